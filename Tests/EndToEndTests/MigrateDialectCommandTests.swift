import Foundation
import SQLiteKit
import Testing
import TestSupport

/// Through the binary: --dialect, --to with 64-bit and Flyway versions,
/// --baseline, --allow-* and the report's new fields.
@Suite struct MigrateDialectCommandTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace() }

    func migrate(_ extra: [String]) throws -> StewardRun { try workspace.migrate(extra) }

    func bytes() -> Data? { FileManager.default.contents(atPath: database) }

    func gooseSet() throws {
        try write("20240101000001_a.sql", "-- +goose Up\nCREATE TABLE a(x);\n-- +goose Down\nDROP TABLE a;\n")
        try write("20240101000002_b.sql", "-- +goose Up\nCREATE TABLE b(x);\n-- +goose Down\nDROP TABLE b;\n")
    }

    @Test func timestampTargetsAndTheReport() throws {
        try gooseSet()
        let first = try migrate(["--create", "--to", "20240101000001", "--json", "--quiet"])
        #expect(first.status == 0, "\(first.stderr)")
        let report = try first.json()
        #expect(report["dialect"] as? String == "goose")
        #expect(report["userVersionRule"] as? String == "applied-count")
        #expect((report["applied"] as? [[String: Any]])?.map { $0["version"] as? Int } == [20_240_101_000_001])
        #expect((report["ledger"] as? [String: Any])?["table"] as? String == "goose_db_version")
        #expect(report["toVersion"] as? Int == 1)

        let status = try migrate(["--status"])
        #expect(status.status == 0)
        #expect(status.stdout.contains("20240101000002_b.sql"))
        #expect(status.stdout.contains("Layout      goose"))
        #expect(status.stdout.contains("Ledger      goose_db_version: 2 rows before the run") == false)
    }

    @Test func badDialectAndVersionsAreUsageErrors() throws {
        try gooseSet()
        let dialect = try migrate(["--dialect", "liquibase"])
        #expect(dialect.status == 64)
        #expect(dialect.stderr.contains("expected one of steward, golang-migrate, sqlx, goose, dbmate, diesel, drizzle, flyway"))
        #expect(try migrate(["--to", "1.x"]).status == 64)
        #expect(try migrate(["--baseline", "-3"]).status == 64)
    }

    @Test func outOfOrderWithDrizzleIsAUsageError() throws {
        try write("0000_a.sql", "CREATE TABLE a(x);\n")
        try write("meta/_journal.json", #"{"entries":[{"idx":0,"when":1,"tag":"0000_a"}]}"#)
        expectRefused(try migrate(["--create", "--allow-out-of-order"]), status: 64, saying: "drizzle")
    }

    @Test func baselineThroughTheBinary() throws {
        try directory.declareLayout()
        try write("0001_a.sql", "CREATE TABLE a(id INTEGER PRIMARY KEY, name TEXT);\n")
        try write("0002_b.sql", "CREATE INDEX a_name ON a(name);\n")
        try write("0003_c.sql", "ALTER TABLE a ADD c TEXT;\n")
        try Connection(path: database).execute(sql: "CREATE TABLE a(id INTEGER PRIMARY KEY, name TEXT); CREATE INDEX a_name ON a(name);")
        let status = try migrate(["--status"])
        #expect(status.stdout.contains("Schema      matches version 2 of the set (adopt it with --baseline 2)"), "\(status.stdout)")
        let before = bytes()
        let wrong = try migrate(["--baseline", "1"])
        #expect(wrong.status == 65)
        #expect(wrong.stderr.contains("index a_name extra"), "\(wrong.stderr)")
        #expect(bytes() == before)
        let run = try migrate(["--baseline", "2", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("adopted at baseline 2"))
        #expect(try Connection(path: database).userVersion() == 3)
    }

    @Test func changedFilesThroughTheBinary() throws {
        try write("20240101000001_a.sql", "CREATE TABLE a(x);\n")
        #expect(try migrate(["--create", "--dialect", "sqlx", "--quiet"]).status == 0)
        try write("20240101000001_a.sql", "CREATE TABLE a(x);\r\n")
        try write("20240101000002_b.sql", "CREATE TABLE b(x);\n")
        let before = bytes()
        let refused = try migrate(["--dialect", "sqlx"])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("20240101000001_a.sql (line endings only)"), "\(refused.stderr)")
        #expect(bytes() == before)
        let allowed = try migrate(["--dialect", "sqlx", "--allow-changed", "--quiet"])
        #expect(allowed.status == 0)
        #expect(allowed.stdout.contains("Note        20240101000001_a.sql changed since it was applied (line endings only)"), "\(allowed.stdout)")
    }

    /// sqlite-vec's loadable extension, as PyPI's sqlite-vec installs it.
    static let vectorExtension: String? = {
        guard let result = try? systemTool(["python3", "-c", "import sqlite_vec; print(sqlite_vec.loadable_path())"]),
              result.status == 0 else { return nil }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }()

    @Test(.enabled(if: vectorExtension != nil, "sqlite-vec is not installed (scripts/install-deps.sh installs it with pip)"))
    func aSetThatNeedsAnExtensionRunsWithLoadExtension() throws {
        let library = try #require(Self.vectorExtension)
        try directory.declareLayout()
        try write("0001_items.sql", """
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);
            CREATE VIRTUAL TABLE item_vec USING vec0(embedding float[4]);
            INSERT INTO item_vec(rowid, embedding) VALUES (1, '[0.1, 0.2, 0.3, 0.4]');
            """)
        expectRefused(try migrate(["--create"]), status: 65, saying: "0001_items.sql:2")

        let run = try migrate(["--create", "--load-extension", library, "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        // Loading stays off for SQL: a migration cannot load another one.
        try write("0002_load.sql", "SELECT load_extension('\(library)');\n")
        let sneaky = try migrate(["--load-extension", library])
        #expect(sneaky.status == 65, "\(sneaky.stderr)")

        let missing = try migrate(["--load-extension", directory.file("no-such-extension")])
        #expect(missing.status == 65)
        #expect(missing.stderr.contains("cannot load the SQLite extension"))
    }
}
