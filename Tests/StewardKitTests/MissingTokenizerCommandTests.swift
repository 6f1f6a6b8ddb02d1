import CSQLite
import Foundation
import StewardKit
import TestSupport
import Testing

/// The command line facing the app's database: it does not have the app's tokenizer, says
/// so by name and points at StewardKit; never "passed", never a crash, never SQLite's bare
/// "no such tokenizer". verify, backup and restore exit 1 (a check failed, or Steward
/// refused to publish); migrate exits 65 (bad input) and writes nothing.
@Suite struct MissingTokenizerCommandTests {
    let directory: TemporaryDirectory
    let database: String

    init() throws {
        directory = try TemporaryDirectory(prefix: "steward-kit-cli")
        database = directory.file("app.sqlite")
        let app = try AppConnection(path: database)
        try app.createTicketDatabase()
        try app.execute("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE")
    }

    static let named = "the FTS5 tokenizer app_words is not in this SQLite"

    static func expectNamedAndPrivate(_ run: StewardRun) {
        #expect(run.allOutput.contains(named), "\(run.allOutput)")
        #expect(run.allOutput.contains("StewardKit"))
        #expect(!run.allOutput.contains("no such tokenizer"))
        #expect(!run.allOutput.contains("secret") && !run.allOutput.contains("Customer"))
    }

    @Test func verifyFailsNamingTheTokenizer() throws {
        let text = try StewardProcess.run(["verify", "--db", database])
        #expect(text.status == 1)
        Self.expectNamedAndPrivate(text)
        let json = try StewardProcess.run(["verify", "--db", database, "--json"])
        #expect(json.status == 1)
        let object = try json.json()
        #expect(object["status"] as? String == "failed")
        #expect((object["failedChecks"] as? [String])?.contains("fts-sync") == true)
        Self.expectNamedAndPrivate(json)
    }

    @Test func backupWithTheFullTextCheckRefusesNamingTheTokenizer() throws {
        let out = directory.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let run = try StewardProcess.run(["backup", "--db", database, "--out", out, "--check-fts"])
        #expect(run.status == 1)
        Self.expectNamedAndPrivate(run)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty)
    }

    @Test func migrateRefusesAndWritesNothing() throws {
        let migrations = directory.file("migrations")
        try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: false)
        try "CREATE TABLE note (id INTEGER PRIMARY KEY);\n".write(toFile: migrations + "/0001_note.sql", atomically: true, encoding: .utf8)
        try "steward\n".write(toFile: migrations + "/.steward-dialect", atomically: true, encoding: .utf8)
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let run = try StewardProcess.run(["migrate", "--db", database, "--migrations", migrations])
        #expect(run.status == 65)
        Self.expectNamedAndPrivate(run)
        #expect(run.stderr.contains("ticket_fts: the FTS5 tokenizer app_words"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
    }

    @Test func restoreRefusesABundleOfTheAppsDatabase() throws {
        // A bundle of a database like the app's, with unicode61; then its payload made the
        // app's: the tokenizer's name (of the same length) written into the schema.
        let plain = directory.file("plain.sqlite")
        do {
            let app = try AppConnection(path: plain)
            try app.createTicketDatabase(tokenizer: "unicode61")
            try app.execute("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE")
        }
        let out = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let backup = try StewardProcess.run(["backup", "--db", plain, "--out", out, "--name", "plain.tar.zst"])
        try #require(backup.status == 0, "\(backup.allOutput)")
        var parts = try BundleParts(reading: out + "/plain.tar.zst")
        let edited = directory.file("edited.sqlite")
        try Data(parts.payload).write(to: URL(fileURLWithPath: edited))
        do {
            let app = try AppConnection(path: edited, registeringTokenizer: false)
            try app.execute("""
                PRAGMA writable_schema = ON;
                UPDATE sqlite_schema SET sql = replace(sql, 'unicode61', 'app_words') WHERE name = 'ticket_fts';
                PRAGMA writable_schema = OFF;
                """)
        }
        try parts.replaceDatabase(with: Array(try Data(contentsOf: URL(fileURLWithPath: edited))))
        let bundle = directory.file("app.tar.zst")
        try parts.bundle(to: bundle)
        let target = directory.file("restored")
        let run = try StewardProcess.run(["restore", bundle, "--into", target])
        #expect(run.status == 1, "\(run.allOutput)")
        Self.expectNamedAndPrivate(run)
        #expect(!FileManager.default.fileExists(atPath: target))
    }
}
