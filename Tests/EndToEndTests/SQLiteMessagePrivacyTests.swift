import Foundation
import SQLiteKit
import Testing
import TestSupport

/// Privacy of SQLite's messages through the binary: a value planted in a row reaches
/// SQLite's message (`JSON path error near '…'`, an FTS5 query), and no command prints
/// it, in text or JSON; messages that name only the schema are printed, so the user sees
/// why a migration failed (`SQLiteMessage`, steward(1) "SQLite's messages").
@Suite struct SQLiteMessagePrivacyTests {
    let directory: TemporaryDirectory
    let secret = "PLANTED-\(UUID().uuidString)"

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// `doc(id, body, path)` whose one row's `path` is the secret, then (as a schema edited
    /// by hand or by a newer build would be) `extra` put into the table's definition:
    /// reading the row through it evaluates `json_extract(body, path)`.
    @discardableResult
    func makeDatabase(_ name: String, path: String? = nil, extra: String) throws -> String {
        let file = directory.file(name)
        let connection = try Connection(path: file)
        try connection.execute(sql: "CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT NOT NULL, path TEXT)")
        try connection.execute(sql: "INSERT INTO doc(body, path) VALUES ('{\"a\": 1}', ?)", bindings: [.text(path ?? secret)])
        try connection.execute(sql: "PRAGMA writable_schema = ON")
        try connection.execute(
            sql: "UPDATE sqlite_schema SET sql = ? WHERE name = 'doc'",
            bindings: [.text("CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT NOT NULL, path TEXT\(extra))")])
        return file
    }

    /// A CHECK that integrity_check evaluates on a read-write connection (verify's copy,
    /// backup's and restore's checks).
    static let check = " CHECK (json_extract(body, path) IS NOT NULL OR path IS NOT NULL)"
    /// A generated column that a read of every column evaluates (the content digests).
    static let generated = ", v GENERATED ALWAYS AS (json_extract(body, path)) VIRTUAL"

    func expectPrivate(_ run: StewardRun, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!run.allOutput.contains(secret), "\(label): \(run.allOutput)", sourceLocation: sourceLocation)
        #expect(!run.allOutput.contains("JSON path error"), "\(label)", sourceLocation: sourceLocation)
    }

    /// The secret really reaches SQLite's message, so its absence from the output means something.
    func expectSQLiteQuotesIt(_ database: String, _ sql: String) throws {
        let connection = try Connection(path: database)
        let failure = #expect(throws: SQLiteError.self) { _ = try connection.rows(sql: sql) }
        #expect(failure?.message.contains(secret) == true, "\(failure?.message ?? "")")
    }

    // MARK: - values: never shown

    /// Regression: verify printed "cannot run: JSON path error near '<row value>'".
    @Test func verifyDoesNotQuoteARowsJSONPath() throws {
        let database = try makeDatabase("check.db", extra: Self.check)
        try expectSQLiteQuotesIt(database, "PRAGMA integrity_check")
        for json in [false, true] {
            let run = try StewardProcess.run(["verify", "--db", database] + (json ? ["--json"] : []))
            #expect(run.status == 1, "\(run.allOutput)")
            expectPrivate(run, "verify json: \(json)")
            #expect(run.stdout.contains("SQLite's own message is not shown"), "\(run.stdout)")
        }
        let fleet = try StewardProcess.run(["verify", "--db", database, "--db", database + "-none", "--json"])
        expectPrivate(fleet, "verify over two databases")
    }

    /// Regression: backup printed "refusing to publish: … JSON path error near '<row value>'".
    @Test(arguments: [check, generated])
    func backupDoesNotQuoteIt(extra: String) throws {
        let database = try makeDatabase("doc.db", extra: extra)
        let out = directory.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        for json in [false, true] {
            let run = try StewardProcess.run(["backup", "--db", database, "--out", out] + (json ? ["--json"] : []))
            #expect(run.status == 1, "refused: \(run.allOutput)")
            expectPrivate(run, "backup json: \(json)")
        }
    }

    /// Regression: `inspect --digest` printed "cannot read the database …: JSON path error near '<row value>'".
    @Test func inspectDigestDoesNotQuoteIt() throws {
        let database = try makeDatabase("generated.db", extra: Self.generated)
        try expectSQLiteQuotesIt(database, "SELECT * FROM doc")
        for json in [false, true] {
            let run = try StewardProcess.run(["inspect", "--digest", database] + (json ? ["--json"] : []))
            #expect(run.status != 0, "\(run.allOutput)")
            expectPrivate(run, "inspect --digest json: \(json)")
        }
        let plain = try StewardProcess.run(["inspect", "--json", database])
        expectPrivate(plain, "inspect")
    }

    /// A bundle whose database holds such a row (its payload replaced, the manifest made
    /// to match): restore's checks fail without quoting it.
    @Test func restoreDoesNotQuoteIt() throws {
        let clean = try makeDatabase("clean.db", path: "$.a", extra: Self.check)
        let planted = try makeDatabase("planted.db", extra: Self.check)
        let out = directory.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let backup = try StewardProcess.run(["backup", "--db", clean, "--out", out, "--name", "b.tar.zst", "--quiet"])
        try #require(backup.status == 0, "\(backup.allOutput)")
        var parts = try BundleParts(reading: out + "/b.tar.zst")
        try parts.replacePayload(with: Array(try Data(contentsOf: URL(fileURLWithPath: planted))))
        let bundle = directory.file("planted.tar.zst")
        try parts.bundle(to: bundle)
        for json in [false, true] {
            let run = try StewardProcess.run(["restore", bundle, "--check-only"] + (json ? ["--json"] : []))
            #expect(run.status == 1, "\(run.allOutput)")
            expectPrivate(run, "restore json: \(json)")
        }
        let into = try StewardProcess.run(["restore", bundle, "--into", directory.file("restored")])
        #expect(into.status == 1)
        expectPrivate(into, "restore --into")
    }

    func writeMigrations(_ files: [(String, String)]) throws -> String {
        let name = "migrations-\(UUID().uuidString)"
        let set = directory.file(name)
        try FileManager.default.createDirectory(atPath: set, withIntermediateDirectories: true)
        for (name, sql) in files { try sql.write(toFile: set + "/" + name, atomically: true, encoding: .utf8) }
        try directory.declareLayout(of: name)
        return set
    }

    /// A migration that reads a row's path, or runs a row's text as an FTS5 query.
    @Test(arguments: [
        "UPDATE doc SET body = json_set(body, path, 1);",
        "DELETE FROM note WHERE rowid IN (SELECT rowid FROM note WHERE note MATCH (SELECT '*' || path FROM doc));",
        "DELETE FROM note WHERE rowid IN (SELECT rowid FROM note WHERE note MATCH (SELECT replace(path, '-', '_') || ': x' FROM doc));",
    ])
    func migrateDoesNotQuoteARowThatAStatementRead(statement: String) throws {
        let set = try writeMigrations([
            ("0001_create.sql", "CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT, path TEXT);\nCREATE VIRTUAL TABLE note USING fts5(body);\n"),
            ("0002_touch.sql", statement + "\n"),
        ])
        let database = directory.file("app.db")
        let first = try StewardProcess.run(["migrate", "--migrations", set, "--db", database, "--create", "--to", "1"])
        try #require(first.status == 0, "\(first.allOutput)")
        let connection = try Connection(path: database)
        try connection.execute(sql: "INSERT INTO doc(body, path) VALUES ('{}', ?)", bindings: [.text(secret)])
        try connection.execute(sql: "INSERT INTO note(body) VALUES ('hello')")
        for json in [false, true] {
            let run = try StewardProcess.run(["migrate", "--migrations", set, "--db", database] + (json ? ["--json"] : []))
            #expect(run.status == 65, "\(run.allOutput)")
            #expect(!run.allOutput.contains(secret), "\(run.allOutput)")
            #expect(!run.allOutput.contains(secret.replacingOccurrences(of: "-", with: "_")), "\(run.allOutput)")
            #expect(run.allOutput.contains("0002_touch.sql:1"), "the statement is named: \(run.allOutput)")
        }
        #expect(try Connection(path: database).userVersion() == 1, "rolled back")
    }

    /// An assertion that reads the row: the assertion fails, without the value.
    @Test func anAssertionDoesNotQuoteIt() throws {
        let database = try makeDatabase("doc.db", extra: "")
        let assertion = directory.file("a.sql")
        try "SELECT count(json_extract(body, path)) >= 0 FROM doc;\n".write(toFile: assertion, atomically: true, encoding: .utf8)
        try expectSQLiteQuotesIt(database, "SELECT count(json_extract(body, path)) FROM doc")
        for json in [false, true] {
            let run = try StewardProcess.run(["verify", "--db", database, "--assert", assertion] + (json ? ["--json"] : []))
            #expect(run.status == 1, "\(run.allOutput)")
            expectPrivate(run, "verify --assert json: \(json)")
        }
    }

    // MARK: - names: shown

    /// Regression: migrate said "SQL logic error … SQLite's own message is not shown" for a
    /// view that a dropped table broke, which names only the schema.
    @Test func migrateNamesAViewThatNoLongerCompiles() throws {
        let set = try writeMigrations([
            ("0001_create.sql", """
                CREATE TABLE ticket(id INTEGER PRIMARY KEY, state TEXT);
                CREATE VIEW open_ticket AS SELECT * FROM ticket WHERE state = 'open';
                CREATE TABLE other(x);
                """),
            ("0002_drop.sql", "DROP TABLE ticket;\nALTER TABLE other RENAME TO other2;\n"),
        ])
        let run = try StewardProcess.run(["migrate", "--migrations", set, "--db", directory.file("app.db"), "--create", "--json"])
        #expect(run.status == 65, "\(run.allOutput)")
        let message = try #require((try run.json()["error"] as? [String: Any])?["message"] as? String)
        #expect(message.contains("0002_drop.sql:2"), "\(message)")
        #expect(message.contains("error in view open_ticket: no such table: main.ticket"), "\(message)")
        #expect(!message.contains("not shown"), "\(message)")
    }

    /// Regression: the same for a foreign key whose parent has no unique index.
    @Test func migrateNamesAForeignKeyMismatch() throws {
        let set = try writeMigrations([
            ("0001_create.sql", """
                CREATE TABLE tokens(id INTEGER PRIMARY KEY, code TEXT);
                CREATE TABLE strategy_tokens(id INTEGER PRIMARY KEY, code TEXT REFERENCES tokens(code));
                """),
            ("0002_rows.sql", "INSERT INTO tokens VALUES (1, 'a');\nINSERT INTO strategy_tokens VALUES (1, 'a');\n"),
        ])
        let run = try StewardProcess.run(["migrate", "--migrations", set, "--db", directory.file("app.db"), "--create"])
        #expect(run.status == 65, "\(run.allOutput)")
        #expect(run.stderr.contains(#"foreign key mismatch - "strategy_tokens" referencing "tokens""#), "\(run.stderr)")
        #expect(!run.stderr.contains("not shown"), "\(run.stderr)")
    }
}
