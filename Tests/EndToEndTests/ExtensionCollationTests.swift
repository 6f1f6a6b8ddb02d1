import Foundation
import SQLiteKit
import Testing
import TestSupport

/// `--load-extension` reaches every connection a command opens on the user's data
/// (issue 25, item 16): a database whose index uses a collation only an extension
/// provides (`CollationExtension`, built here with gcc) is verified, backed up, restored
/// and inspected with it, in rollback-journal and WAL mode.
@Suite(.enabled(if: CollationExtension.canBuild, "gcc or sqlite3ext.h (libsqlite3-dev) is missing"))
struct ExtensionCollationTests {
    let directory: TemporaryDirectory
    let library: String
    var database: String { directory.file("app.db") }

    init() throws {
        directory = try TemporaryDirectory()
        library = try CollationExtension.build(in: directory.path)
    }

    func makeDatabase(journalMode: String) throws {
        let connection = try Connection(path: database)
        try connection.loadExtension(path: library)
        _ = try connection.setJournalMode(journalMode)
        try connection.execute(sql: """
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT COLLATE \(CollationExtension.collation));
            CREATE INDEX item_name ON item(name);
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 200)
            INSERT INTO item(name) SELECT printf('item %d', x) FROM n;
            """)
    }

    @Test(arguments: ["delete", "wal"])
    func verifyChecksIntegrityWithTheCollationLoaded(_ journalMode: String) throws {
        try makeDatabase(journalMode: journalMode)
        let with = try StewardProcess.run(["verify", "--db", database, "--load-extension", library, "--json", "--quiet"])
        #expect(with.status == 0, "\(with.allOutput)")
        let without = try StewardProcess.run(["verify", "--db", database, "--quiet"])
        #expect(without.status == 1)
        #expect(without.stdout.contains("no such collation sequence"), "\(without.stdout)")
    }

    @Test(arguments: ["delete", "wal"])
    func backupAndRestoreCheckWithTheCollationLoaded(_ journalMode: String) throws {
        try makeDatabase(journalMode: journalMode)
        let out = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let backup = try StewardProcess.run(
            ["backup", "--db", database, "--out", out, "--name", "app.tar.zst", "--load-extension", library, "--check-fts", "--quiet"])
        #expect(backup.status == 0, "\(backup.allOutput)")
        let bundle = out + "/app.tar.zst"
        try #require(FileManager.default.fileExists(atPath: bundle))

        let drill = try StewardProcess.run(["restore", bundle, "--check-only", "--load-extension", library, "--quiet"])
        #expect(drill.status == 0, "\(drill.allOutput)")
        let into = try StewardProcess.run(["restore", bundle, "--into", directory.file("restored"), "--load-extension", library, "--quiet"])
        #expect(into.status == 0, "\(into.allOutput)")
        let replace = try StewardProcess.run(
            ["restore", bundle, "--replace", database, "--discard-replaced", "--load-extension", library, "--quiet"])
        #expect(replace.status == 0, "\(replace.allOutput)")

        let without = try StewardProcess.run(["restore", bundle, "--check-only", "--quiet"])
        #expect(without.status == 1, "\(without.allOutput)")
    }

    @Test func inspectTakesLoadExtension() throws {
        try makeDatabase(journalMode: "delete")
        let inspect = try StewardProcess.run(["inspect", database, "--load-extension", library, "--json"])
        #expect(inspect.status == 0, "\(inspect.allOutput)")
        let digest = try StewardProcess.run(["inspect", "--digest", database, "--load-extension", library, "--json"])
        #expect(digest.status == 0, "\(digest.allOutput)")
        let plain = try StewardProcess.run(["inspect", "--digest", database, "--json"])
        #expect(plain.status == 0, "\(plain.allOutput)")
        let digests = try #require(try digest.json()["contentDigests"] as? [String: Any])
        let plainDigests = try #require(try plain.json()["contentDigests"] as? [String: Any])
        #expect(NSDictionary(dictionary: digests).isEqual(to: plainDigests), "a loaded extension does not change a digest")

        let missing = try StewardProcess.run(["inspect", database, "--load-extension", directory.file("no-such-extension")])
        #expect(missing.status == 65)
        #expect(missing.stderr.contains("cannot load the SQLite extension"), "\(missing.stderr)")
    }
}
