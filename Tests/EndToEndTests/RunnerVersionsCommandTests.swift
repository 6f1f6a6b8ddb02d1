import Foundation
import SQLiteKit
import Testing
import TestSupport

/// Issue 26: the versions migrate shows and accepts are the runner's, in every layout: what
/// `--status` prints is what `--to` and `--baseline` take, a database its runner migrated
/// is `current`, and a `--backup-dir` bundle is named by the runner's version.
@Suite struct RunnerVersionsCommandTests {
    /// A three-migration set in one runner's layout: the files to write, and the versions
    /// as the runner shows them.
    struct Layout: CustomTestStringConvertible, Sendable {
        let dialect: String
        let files: [(name: String, text: String)]
        let versions: [String]
        let ledger: String?
        var testDescription: String { dialect }
    }

    static func sql(_ table: String) -> String { "CREATE TABLE \(table)(x);\n" }

    static let layouts: [Layout] = [
        Layout(dialect: "steward", files: [("0001_a.sql", sql("a")), ("0002_b.sql", sql("b")), ("0003_c.sql", sql("c"))],
               versions: ["1", "2", "3"], ledger: nil),
        Layout(dialect: "golang-migrate",
               files: [("20240101000001_a.up.sql", sql("a")), ("20240101000001_a.down.sql", "DROP TABLE a;\n"),
                       ("20240101000002_b.up.sql", sql("b")), ("20240101000003_c.up.sql", sql("c"))],
               versions: ["20240101000001", "20240101000002", "20240101000003"], ledger: "schema_migrations"),
        Layout(dialect: "sqlx", files: [("20240101000001_a.sql", sql("a")), ("20240101000002_b.sql", sql("b")),
                                       ("20240101000003_c.sql", sql("c"))],
               versions: ["20240101000001", "20240101000002", "20240101000003"], ledger: "_sqlx_migrations"),
        Layout(dialect: "goose", files: ["a", "b", "c"].enumerated().map { index, table in
                   ("0000\(index + 1)_\(table).sql", "-- +goose Up\n\(sql(table))-- +goose Down\nDROP TABLE \(table);\n")
               },
               versions: ["00001", "00002", "00003"], ledger: "goose_db_version"),
        Layout(dialect: "dbmate", files: ["a", "b", "c"].enumerated().map { index, table in
                   ("2024010100000\(index + 1)_\(table).sql", "-- migrate:up\n\(sql(table))-- migrate:down\nDROP TABLE \(table);\n")
               },
               versions: ["20240101000001", "20240101000002", "20240101000003"], ledger: "schema_migrations"),
        Layout(dialect: "diesel", files: ["a", "b", "c"].enumerated().map { index, table in
                   ("2024-01-01-00000\(index + 1)_\(table)/up.sql", sql(table))
               },
               versions: ["20240101000001", "20240101000002", "20240101000003"], ledger: "__diesel_schema_migrations"),
        Layout(dialect: "drizzle",
               files: [("0000_a.sql", sql("a")), ("0001_b.sql", sql("b")), ("0002_c.sql", sql("c")),
                       ("meta/_journal.json", #"{"dialect":"sqlite","entries":[{"idx":0,"when":1700000000000,"tag":"0000_a"},{"idx":1,"when":1700000001000,"tag":"0001_b"},{"idx":2,"when":1700000002000,"tag":"0002_c"}]}"#)],
               versions: ["0000_a", "0001_b", "0002_c"], ledger: "__drizzle_migrations"),
        Layout(dialect: "flyway", files: [("V1__a.sql", sql("a")), ("V1_1__b.sql", sql("b")), ("V2__c.sql", sql("c"))],
               versions: ["1", "1.1", "2"], ledger: "flyway_schema_history"),
    ]

    let directory: TemporaryDirectory
    var migrations: String { directory.file("migrations") }

    init() throws {
        directory = try TemporaryDirectory()
    }

    func migrate(_ database: String, _ layout: Layout, _ extra: [String]) throws -> StewardRun {
        try StewardProcess.run(["migrate", "--db", directory.file(database), "--migrations", migrations,
                                "--dialect", layout.dialect] + extra)
    }

    func json(_ run: StewardRun, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)", sourceLocation: sourceLocation)
        return try run.json()
    }

    @Test(arguments: layouts)
    func statusToAndBaselineSpeakTheRunnersVersions(_ layout: Layout) throws {
        for file in layout.files { try directory.write(file.text, to: "migrations/\(file.name)") }
        let versions = layout.versions
        let none = layout.dialect == "steward" ? "0" : "none"

        // --to takes the version as the runner writes it.
        let first = try json(migrate("app.db", layout, ["--create", "--to", versions[1], "--json", "--quiet"]))
        #expect(first["toVersionText"] as? String == versions[1])
        #expect(first["fromVersionText"] == nil)
        #expect(first["appliedCountAfter"] as? Int == 2 && first["migrationCount"] as? Int == 3)
        #expect((first["applied"] as? [[String: Any]])?.map { $0["versionText"] as? String } == Array(versions.prefix(2)))

        let status = try migrate("app.db", layout, ["--status"])
        #expect(status.stdout.contains("Version     \(versions[1]) (2 of 3 migrations applied; newest migration: \(versions[2]))"),
                "\(status.stdout)")

        // The newest, with a rollback bundle named by the runner's version.
        try FileManager.default.createDirectory(atPath: directory.file("bundles"), withIntermediateDirectories: true)
        let rest = try migrate("app.db", layout, ["--backup-dir", directory.file("bundles"), "--quiet"])
        #expect(rest.status == 0, "\(rest.stderr)")
        #expect(rest.stdout.contains("Version     migrated from \(versions[1]) to \(versions[2]) (3 of 3 migrations applied"), "\(rest.stdout)")
        let bundle = try #require(try directory.contents(of: "bundles").first)
        #expect(bundle.contains("-v\(versions[1])-"), "\(bundle)")

        // The database as its runner leaves it (its runner knows nothing of user_version).
        if layout.ledger != nil { try Connection(path: directory.file("app.db")).setUserVersion(0) }
        let upToDate = try json(migrate("app.db", layout, ["--status", "--json"]))
        #expect(upToDate["outcome"] as? String == "current", "\(upToDate)")
        #expect(upToDate["fromVersionText"] as? String == versions[2])
        let current = try migrate("app.db", layout, ["--status"])
        #expect(current.stdout.contains("Pending     none: the database is up to date"), "\(current.stdout)")

        // A database with the schema of the second migration and no record of it: the
        // version --status suggests is taken by --baseline as given.
        _ = try json(migrate("old.db", layout, ["--create", "--to", versions[1], "--json", "--quiet"]))
        let old = try Connection(path: directory.file("old.db"))
        if let ledger = layout.ledger { try old.execute(sql: "DROP TABLE \"\(ledger)\"") }
        try old.setUserVersion(0)
        let suggestion = try migrate("old.db", layout, ["--status"])
        #expect(suggestion.stdout.contains("Version     \(none) (0 of 3 migrations applied"), "\(suggestion.stdout)")
        let line = try #require(suggestion.stdout.split(separator: "\n").first { $0.hasPrefix("Schema      matches version") },
                                "\(suggestion.stdout)")
        let suggested = try #require(line.components(separatedBy: "--baseline ").last?.dropLast())
        #expect(String(suggested) == versions[1])
        let adopted = try json(migrate("old.db", layout, ["--baseline", String(suggested), "--json", "--quiet"]))
        #expect((adopted["applied"] as? [[String: Any]])?.map { $0["versionText"] as? String } == [versions[2]])
        #expect((adopted["notes"] as? [String])?.contains { $0.hasPrefix("adopted at baseline \(versions[1]):") } == true)
    }

    /// Following the ledger where user_version is ahead of it must not run migrations
    /// again over a schema that has them: a ledger emptied under its schema is drift.
    @Test func aLedgerEmptiedUnderItsSchemaIsRefusedAsDrift() throws {
        let dbmate = try #require(Self.layouts.first { $0.dialect == "dbmate" })
        for file in dbmate.files { try directory.write(file.text, to: "migrations/\(file.name)") }
        #expect(try migrate("app.db", dbmate, ["--create", "--quiet"]).status == 0)
        try Connection(path: directory.file("app.db")).execute(sql: "DELETE FROM schema_migrations")
        let before = try Data(contentsOf: URL(fileURLWithPath: directory.file("app.db")))
        let run = try migrate("app.db", dbmate, [])
        #expect(run.status == 65)
        #expect(run.stderr.contains("schema drift, not migrated: the schema differs from what the migration set makes at version 0: table a extra"),
                "\(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("app.db"))) == before)
    }

    @Test func aTagNoMigrationHasIsRefusedAndOtherTextIsAUsageError() throws {
        let drizzle = try #require(Self.layouts.first { $0.dialect == "drizzle" })
        for file in drizzle.files { try directory.write(file.text, to: "migrations/\(file.name)") }
        let unknown = try migrate("app.db", drizzle, ["--create", "--to", "0001_other"])
        #expect(unknown.status == 65)
        #expect(unknown.stderr.contains("no migration in \(migrations) has version 0001_other"), "\(unknown.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("app.db")))
        // The version part alone is the version drizzle orders by.
        let byNumber = try json(migrate("app.db", drizzle, ["--create", "--to", "1", "--json", "--quiet"]))
        #expect(byNumber["toVersionText"] as? String == "0001_b")
        #expect(try migrate("app.db", drizzle, ["--to", "b_0001"]).status == 64)
    }
}
