import Foundation
import SQLiteKit
import Testing
import TestSupport

/// The words that name an option come from the command line now, not the core;
/// what a user reads stays as it was, in the text and the JSON.
@Suite struct CoreWordingCommandTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test func aChosenLayoutIsReportedWithItsOption() throws {
        let migrations = directory.file("migrations")
        try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: true)
        try Data("CREATE TABLE a(x);\n".utf8).write(to: URL(fileURLWithPath: directory.file("migrations/20240101000001_a.sql")))
        let database = directory.file("app.db")
        let json = try StewardProcess.run(
            ["migrate", "--db", database, "--migrations", migrations, "--create", "--dialect", "sqlx", "--json", "--quiet"])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(try json.json()["dialectReason"] as? String == "--dialect sqlx")
        let text = try StewardProcess.run(["migrate", "--db", database, "--migrations", migrations, "--dialect", "sqlx", "--status"])
        #expect(text.stdout.contains("Layout      sqlx (--dialect sqlx)"), "\(text.stdout)")
        // Detected, the reason is what was found, as before.
        let detected = try StewardProcess.run(["migrate", "--db", database, "--migrations", migrations, "--status", "--json"])
        #expect(try detected.json()["dialectReason"] as? String == "the database has sqlx's ledger table _sqlx_migrations")
    }

    @Test func aBundleNameWithADirectoryPointsAtTheOutputOption() throws {
        let database = directory.file("app.db")
        try Fixtures.makeExampleDatabase(at: database)
        let run = try StewardProcess.run(["backup", "--db", database, "--out", directory.path, "--name", "sub/x.tar.zst"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("the name must be a file name, without '/'; the directory is --out"), "\(run.stderr)")
    }

    @Test func aVirtualTableWithoutItsModuleAsksForTheExtension() throws {
        let database = directory.file("app.db")
        do {
            let connection = try Connection(path: database)
            try connection.execute(sql: "CREATE TABLE t(x)")
            // A virtual table of a module this SQLite does not have, as an extension's
            // table looks to a connection that did not load it.
            try connection.execute(sql: "PRAGMA writable_schema = ON")
            try connection.execute(sql: """
                INSERT INTO sqlite_schema(type, name, tbl_name, rootpage, sql)
                VALUES ('table', 'v', 'v', 0, 'CREATE VIRTUAL TABLE v USING nosuchmodule(x)')
                """)
        }
        let text = try StewardProcess.run(["verify", "--db", database])
        #expect(text.status == 1, "\(text.stdout)\(text.stderr)")
        let wording = "cannot be prepared on SQLite \(SQLiteLibrary.version): virtual table v (of 0 views, 0 triggers and 1 virtual table)"
            + " (an extension's module needs --load-extension)"
        #expect(text.stdout.contains(wording), "\(text.stdout)")
        let json = try StewardProcess.run(["verify", "--db", database, "--json"])
        let checks = try #require(try json.json()["checks"] as? [[String: Any]])
        let objects = try #require(checks.first { $0["name"] as? String == "schema-objects" })
        #expect(objects["summary"] as? String == wording)
        #expect(objects["details"] as? [String] == ["virtual table v: no such module: nosuchmodule"])
    }
}
