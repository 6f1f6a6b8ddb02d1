import Foundation
import SQLiteKit
import StewardBase
import StewardCore
import TestSupport
import Testing

/// The fleet machinery without the binary: the list, duplicates, shards, the exit rule and
/// the job pool.
@Suite struct FleetTests {
    @Test func duplicatesAreTheSameFileHoweverSpelledAndTheFirstSpellingIsKept() throws {
        let directory = try TemporaryDirectory()
        let a = directory.file("a.db"), b = directory.file("b.db")
        for path in [a, b] { _ = FileManager.default.createFile(atPath: path, contents: Data("x".utf8)) }
        try FileManager.default.createSymbolicLink(atPath: directory.file("link.db"), withDestinationPath: a)
        #expect(link(b, directory.file("hard.db")) == 0)
        let list = DatabaseList(paths: [
            b, directory.file("link.db"), a, directory.file("hard.db"), directory.path + "/./a.db",
            directory.file("missing.db"), directory.path + "/../" + Paths.fileName(of: directory.path) + "/missing.db",
        ])
        #expect(list.paths == [b, directory.file("link.db"), directory.file("missing.db")])
        #expect(list.duplicateCount == 4)
    }

    @Test func listsAreSplitByLineOrByNulAndEmptyEntriesAreSkipped() {
        #expect(DatabaseList.parse(Array("a.db\n\nb c.db\n".utf8), nullSeparated: false) == ["a.db", "b c.db"])
        #expect(DatabaseList.parse(Array("new\nline.db\0b.db\0".utf8), nullSeparated: true) == ["new\nline.db", "b.db"])
        #expect(DatabaseList.parse([], nullSeparated: false).isEmpty)
    }

    @Test(arguments: [1, 2, 3, 4, 7, 25])
    func shardsCoverTheListExactlyOnceByPosition(count: Int) throws {
        let paths = (0..<23).map { "/srv/\($0)/app.db" }
        let list = DatabaseList(paths: paths)
        var seen: [String] = []
        for index in 1...count {
            let shard = try #require(Shard("\(index)/\(count)"))
            let share = list.selection(shard)
            #expect(share == paths.enumerated().filter { $0.offset % count == index - 1 }.map(\.element))
            seen += share
        }
        #expect(seen.sorted() == paths.sorted())
        #expect(Set(seen).count == paths.count)
    }

    @Test(arguments: ["0/4", "5/4", "1/0", "a/4", "1/", "/4", "1/4/2", "-1/4", "+1/4", "1 /4", "１/4"])
    func badShardsAreRefused(text: String) {
        #expect(Shard(text) == nil)
    }

    @Test func theExitStatusIsTheOneAllFailuresShareOrOne() {
        #expect(FleetSummary.exitCode(of: [0, 0]) == 0)
        #expect(FleetSummary.exitCode(of: [Int32]()) == 0)
        #expect(FleetSummary.exitCode(of: [0, 65, 65]) == 65)
        #expect(FleetSummary.exitCode(of: [75, 0, 65]) == 1)
        #expect(FleetSummary.exitCode(of: [1, 1]) == 1)
    }

    @Test func thePoolRunsEveryJobOnceAndNeverMoreThanItsWidthAtATime() {
        let counter = Counter()
        let started = JobPool.run(count: 200, width: 3, shouldStart: { true }) { index in
            counter.begin(index)
            usleep(200)
            counter.end()
        }
        #expect(started == 200)
        #expect(counter.seen == Array(0..<200))
        #expect(counter.peak <= 3)
        #expect(counter.peak >= 2)
    }

    @Test func thePoolStartsNothingMoreOnceToldToStop() {
        let counter = Counter()
        let started = JobPool.run(count: 100, width: 1, shouldStart: { counter.seen.count < 5 }) { index in
            counter.begin(index)
            counter.end()
        }
        #expect(started == 5)
        #expect(counter.seen == Array(0..<5))
    }

    @Test func pathTagsAreTwelveHexDigitsOfTheAbsolutePath() throws {
        let tag = try PathTag.of("/srv/a/app.db")
        #expect(tag.count == 12)
        #expect(tag.allSatisfy { $0.isHexDigit })
        #expect(try PathTag.of("/srv/a/./app.db") == tag)
        #expect(try PathTag.of("/srv/b/app.db") != tag)
        // echo -n /srv/a/app.db | sha256sum
        let (_, output) = try systemTool(["sh", "-c", "printf %s /srv/a/app.db | sha256sum"])
        #expect(output.hasPrefix(tag))
    }

    @Test func schemasCompareByObjectIgnoringSpellingShadowTablesAndLedgers() throws {
        let expected = try Connection.inMemory()
        try expected.execute(sql: """
            CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
            CREATE VIRTUAL TABLE ticket_fts USING fts5(title, content='ticket', content_rowid='id');
            CREATE INDEX ticket_title ON ticket(title);
            """)
        let same = try Connection.inMemory()
        try same.execute(sql: """
            create table "ticket" (  id integer primary key, -- the key
              title text not null );
            CREATE VIRTUAL TABLE ticket_fts USING fts5(title, content='ticket', content_rowid='id');
            CREATE INDEX [ticket_title] ON ticket (title);
            CREATE TABLE schema_migrations(version TEXT PRIMARY KEY);
            """)
        let want = try SchemaFingerprint(reading: expected)
        #expect(try SchemaFingerprint(reading: same).differences(from: want).isEmpty)

        try same.execute(sql: """
            ALTER TABLE ticket ADD COLUMN email TEXT;
            DROP INDEX ticket_title;
            CREATE TRIGGER t AFTER INSERT ON ticket BEGIN SELECT 1; END;
            """)
        #expect(try SchemaFingerprint(reading: same).differences(from: want) == [
            "table ticket: column email extra", "index ticket_title missing", "trigger t extra",
        ])
    }

    @Test func theExpectedSchemaIsBuiltPerVersionAndUnknownVersionsAreSkippedWithAReason() throws {
        let directory = try TemporaryDirectory()
        try "CREATE TABLE a(x);".write(toFile: directory.file("0001_a.sql"), atomically: true, encoding: .utf8)
        try "CREATE TABLE b(y);".write(toFile: directory.file("0003_b.sql"), atomically: true, encoding: .utf8)
        let set = try DialectSet(directory: directory.path, dialect: .steward)
        let check = SchemaDriftCheck()
        let database = try Connection.inMemory()
        try database.execute(sql: "CREATE TABLE a(x)")
        func compare(at version: Int32) throws -> SchemaDriftCheck.Comparison {
            try database.setUserVersion(version)
            return check.compare(on: database, set: set, cancellation: Cancellation())
        }
        #expect(try compare(at: 1).status == .match)
        let atThree = try compare(at: 3)
        #expect(atThree.status == .drift)
        #expect(atThree.differences == ["table b missing"])
        #expect(try compare(at: 2).status == .skipped)
        #expect(try compare(at: 4).reason?.contains("newer") == true)
    }

    /// Another runner's layout: what is applied is what its ledger says, and the expected
    /// schema is built from exactly those migrations (the pending third one's index is not
    /// expected), whatever `user_version` says (dbmate does not set it).
    @Test func inOtherLayoutsTheLedgersAppliedSetIsWhatTheSchemaIsComparedWith() throws {
        let directory = try TemporaryDirectory()
        for (name, sql) in [("20240101000000_a.sql", "CREATE TABLE a(x);"), ("20240102000000_b.sql", "CREATE TABLE b(y);"),
                            ("20240103000000_c.sql", "CREATE INDEX a_x ON a(x);")] {
            try "-- migrate:up\n\(sql)\n-- migrate:down\n".write(toFile: directory.file(name), atomically: true, encoding: .utf8)
        }
        let set = try DialectSet(directory: directory.path, dialect: .dbmate)
        let check = SchemaDriftCheck()
        let database = try Connection.inMemory()
        try database.execute(sql: """
            CREATE TABLE schema_migrations(version VARCHAR(128) PRIMARY KEY);
            INSERT INTO schema_migrations VALUES ('20240101000000'), ('20240102000000');
            CREATE TABLE a(x); CREATE TABLE b(y);
            """)
        let match = check.compare(on: database, set: set, cancellation: Cancellation())
        #expect(match.status == .match, "\(match)")
        #expect(match.newestApplied == "20240102000000")
        try database.execute(sql: "CREATE TABLE by_hand(z)")
        #expect(check.compare(on: database, set: set, cancellation: Cancellation()).differences == ["table by_hand extra"])
    }

    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var indices: [Int] = []
        private var running = 0
        private var highest = 0

        func begin(_ index: Int) {
            lock.lock()
            indices.append(index)
            running += 1
            highest = max(highest, running)
            lock.unlock()
        }

        func end() {
            lock.lock()
            running -= 1
            lock.unlock()
        }

        var seen: [Int] {
            lock.lock()
            defer { lock.unlock() }
            return indices.sorted()
        }

        var peak: Int {
            lock.lock()
            defer { lock.unlock() }
            return highest
        }
    }
}
