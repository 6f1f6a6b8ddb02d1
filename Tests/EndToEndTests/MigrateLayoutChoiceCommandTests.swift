import Foundation
import SQLiteKit
import Testing
import TestSupport

/// Through the binary: a new database from a set that sqlx, golang-migrate and Steward's
/// own layout read alike is refused with the `--dialect` to give, and made in the layout
/// the set declares.
@Suite struct MigrateLayoutChoiceCommandTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace() }

    func migrate(_ extra: [String]) throws -> StewardRun { try workspace.migrate(extra) }

    @Test func aNewDatabaseFromSmallVersionsIsRefusedWithTheOptions() throws {
        try write("0001_users.sql", "CREATE TABLE users(id INTEGER PRIMARY KEY);\n")
        let run = try migrate(["--create", "--json"])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("or pass --dialect steward or --dialect sqlx"), "\(run.stderr)")
        #expect(run.stderr.contains(".steward-dialect"), "\(run.stderr)")
        let error = try #require(try run.json()["error"] as? [String: Any])
        #expect((error["message"] as? String)?.contains("--dialect sqlx") == true)
        #expect(!FileManager.default.fileExists(atPath: database))

        let chosen = try migrate(["--create", "--dialect", "sqlx", "--quiet"])
        #expect(chosen.status == 0, "\(chosen.stderr)")
        #expect(try Connection(path: database).integer(sql: "SELECT count(*) FROM _sqlx_migrations") == 1)
    }

    @Test func timestampVersionsNameTheDialectNotARange() throws {
        try write("20240101120000_users.sql", "CREATE TABLE users(id INTEGER PRIMARY KEY);\n")
        let run = try migrate(["--create"])
        #expect(run.status == 65)
        #expect(!run.stderr.contains("out of range"), "\(run.stderr)")
        #expect(run.stderr.contains("or pass --dialect sqlx"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    @Test func aDeclaredSetNeedsNoOption() throws {
        try write("0001_users.up.sql", "CREATE TABLE users(id INTEGER PRIMARY KEY);\n")
        try write("0001_users.down.sql", "DROP TABLE users;\n")
        try write(".steward-dialect", "golang-migrate\n")
        let run = try migrate(["--create", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Layout      golang-migrate (declared in .steward-dialect)"), "\(run.stdout)")
        #expect(try Connection(path: database).rows(sql: "SELECT version, dirty FROM schema_migrations")
                == [[.integer(1), .integer(0)]])
    }

    @Test func theExampleSetDeclaresStewardsOwnLayout() throws {
        let run = try StewardProcess.run(["migrate", "--db", database, "--migrations", Fixtures.exampleMigrations.path,
                                          "--create", "--json", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.json()
        #expect(report["dialect"] as? String == "steward")
        #expect(report["dialectReason"] as? String == "declared in .steward-dialect")
    }
}
