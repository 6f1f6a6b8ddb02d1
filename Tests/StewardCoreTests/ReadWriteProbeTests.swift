import ArchiveKit
import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// The read-write probe works on the restored file itself: it must still fail
/// on a file SQLite cannot write, and prove the file unchanged when it passes.
@Suite struct ReadWriteProbeTests {
    let directory: TemporaryDirectory
    var path: String { directory.file("restored.sqlite") }

    init() throws {
        directory = try TemporaryDirectory(prefix: "steward-probe")
        let connection = try Connection(path: directory.file("restored.sqlite"))
        try connection.execute(sql: """
            CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
            INSERT INTO note(body) SELECT printf('note %d', i) FROM n;
            """)
    }

    private func bytes() throws -> [UInt8] {
        Array(try #require(FileManager.default.contents(atPath: path)))
    }

    private func probe(expecting sha256: String? = nil) throws -> CheckResult {
        let expected = try sha256 ?? SHA256Hasher.hex(of: bytes())
        return try ReadWriteProbe(databasePath: path, directory: directory.path, cancellation: Cancellation(),
                                  expectedSHA256: expected).run()
    }

    @Test func passesAndLeavesTheFileByteIdenticalWithNothingBesideIt() throws {
        let before = try bytes()
        let check = try probe()
        #expect(check.status == .pass, "\(check.summary)")
        #expect(try bytes() == before)
        #expect(try directory.contents() == ["restored.sqlite"])
    }

    @Test func leavesFreePagesByteIdentical() throws {
        // Free pages hold old bytes; the probe's transaction reuses them, and SQLite
        // journals a reused free page without reading it. Spilled into the file, such
        // pages stayed changed after the rollback (seen on the benchmark database).
        let connection = try Connection(path: path)
        try connection.execute(sql: """
            CREATE TABLE filler(id INTEGER PRIMARY KEY, body BLOB NOT NULL);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400)
            INSERT INTO filler(body) SELECT randomblob(3000) FROM n;
            DELETE FROM filler WHERE id % 2 = 0;
            """)
        #expect(try connection.integer(sql: "PRAGMA freelist_count") > 100)
        let before = try bytes()
        let check = try probe()
        #expect(check.status == .pass, "\(check.summary)")
        #expect(try bytes() == before)
    }

    @Test func failsWhenTheFileIsNotAsItWasAfterTheRollback() throws {
        // Stands for a rollback that did not restore every page: the hash it is held to differs.
        let check = try probe(expecting: String(repeating: "0", count: 64))
        #expect(check.status == .fail)
        #expect(check.summary.contains("the rollback did not restore the file"), "\(check.summary)")
    }

    @Test func failsOnAFileSQLiteOpensReadOnly() throws {
        // Header byte 18 (write version) above 2: SQLite reads such a file but never writes it.
        var header = try bytes()
        header[18] = 3
        try Data(header).write(to: URL(fileURLWithPath: path))
        let before = try bytes()
        let check = try probe()
        #expect(check.status == .fail, "\(check.summary)")
        #expect(check.summary.contains("read-only") || check.summary.contains("readonly"), "\(check.summary)")
        #expect(try bytes() == before)
    }

    @Test func failsOnAFileInWALMode() throws {
        let connection = try Connection(path: path)
        #expect(try connection.setJournalMode("wal") == "wal")
        let check = try probe(expecting: String(repeating: "0", count: 64))
        #expect(check.status == .fail)
        #expect(check.summary.contains("journal mode wal"), "\(check.summary)")
    }
}

/// Restore runs the probe while FTS5's check still runs (design notes, "Performance"):
/// the check's transaction, an INSERT, must not hold the lock the probe needs.
@Suite struct ProbeBesideFTS5CheckTests {
    @Test func theProbePassesWhileFTS5sCheckHoldsItsTransaction() throws {
        let directory = try TemporaryDirectory(prefix: "steward-probe-fts")
        let path = directory.file("restored.sqlite")
        let setup = try Connection(path: path)
        try setup.execute(sql: """
            CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
            CREATE VIRTUAL TABLE doc_fts USING fts5(body, content='doc', content_rowid='id');
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
            INSERT INTO doc(body) SELECT printf('word%d other%d', i, i % 7) FROM n;
            INSERT INTO doc_fts(doc_fts) VALUES ('rebuild');
            """)
        let before = try SHA256Hasher.hex(of: Array(try #require(FileManager.default.contents(atPath: path))))

        let fts = try RestoredDatabaseChecks.openForFTS5Check(path)
        // Used by its check's thread only: no mutex entered for every page FTS5 reads.
        #expect(!fts.isSerialized)
        try fts.execute(sql: "BEGIN")
        try FTS5IntegrityCheck.check("doc_fts", rank: 1, on: fts)
        #expect(!fts.isAutocommit, "the check's transaction is still open")
        let probe = try ReadWriteProbe(databasePath: path, directory: directory.path, cancellation: Cancellation(),
                                       expectedSHA256: before).run()
        #expect(probe.status == .pass, "\(probe.summary)")
        // The check goes on after the probe, on the same transaction, and still passes.
        try FTS5IntegrityCheck.check("doc_fts", rank: 1, on: fts)
        try fts.execute(sql: "ROLLBACK")
        #expect(try SHA256Hasher.hex(of: Array(try #require(FileManager.default.contents(atPath: path)))) == before)
        #expect(try directory.contents() == ["restored.sqlite"])
    }
}
