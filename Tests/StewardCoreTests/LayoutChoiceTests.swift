import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// A set whose files several runners read alike (`N_name.sql`: sqlx and Steward;
/// `N_name.up.sql`: golang-migrate too) on a database that has no record of any: never a
/// silent pick, but the layout the set declares, or the one its database already keeps.
@Suite struct LayoutChoiceTests: MigratorSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace() }

    func detect(_ records: DialectSet.DatabaseRecords = .init()) throws -> DialectSet.Detection {
        try DialectSet.detect(directory: migrations, records: { records })
    }

    func refusal(_ records: DialectSet.DatabaseRecords = .init()) throws -> StewardError {
        try #require(throws: StewardError.self) { try detect(records) }
    }

    @Test func smallVersionsOnANewDatabaseNameBothLayouts() throws {
        try write("0001_users.sql", "CREATE TABLE users(id INTEGER PRIMARY KEY);\n")
        try write("0002_email.sql", "ALTER TABLE users ADD email TEXT;\n")
        let error = try refusal()
        #expect(error.kind == .badInput)
        #expect(error.remedy == .nameDialect(["steward", "sqlx"]))
        #expect(error.message.contains("sqlx"), "\(error.message)")
        #expect(error.message.contains(Paths.join(migrations, ".steward-dialect")), "\(error.message)")
        #expect(!error.message.contains("--"), "the core names no option: \(error.message)")
    }

    @Test func timestampVersionsNameSqlxInsteadOfARange() throws {
        try write("20240101120000_users.sql", "CREATE TABLE users(id INTEGER PRIMARY KEY);\n")
        let error = try refusal()
        #expect(error.remedy == .nameDialect(["sqlx"]))
        #expect(!error.message.contains("out of range"), "\(error.message)")
        #expect(error.message.contains("only sqlx reads these files"), "\(error.message)")
    }

    @Test func upFilesAreReadByThreeLayouts() throws {
        try write("1_users.up.sql", "CREATE TABLE users(id INTEGER PRIMARY KEY);\n")
        try write("1_users.down.sql", "DROP TABLE users;\n")
        #expect(try refusal().remedy == .nameDialect(["steward", "sqlx", "golang-migrate"]))
    }

    @Test func theDatabaseDecidesWhenItKeepsARecord() throws {
        try write("0001_users.sql")
        // user_version without a ledger: only Steward's own layout leaves that.
        let steward = try detect(.init(userVersion: 1))
        #expect(steward.dialect == .steward)
        #expect(steward.reason.text.contains("user_version 1"), "\(steward.reason.text)")
        #expect(try detect(.init(ledgers: [.sqlx])).dialect == .sqlx)
        #expect(try detect(.init(ledgers: [.golangMigrate], userVersion: 3)).dialect == .golangMigrate)
    }

    @Test func aSetNoLayoutReadsKeepsStewardsOwnRefusal() throws {
        // Nothing to choose between: Steward's own reader says what is wrong.
        #expect(try detect().dialect == .steward)
        try write("README.md", "notes\n")
        #expect(try detect().dialect == .steward)
    }

    @Test func theDeclarationNamesTheLayout() throws {
        try write("0001_users.sql")
        try write(".steward-dialect", "# the application runs sqlx::migrate!\nsqlx\n")
        let detection = try detect()
        #expect(detection.dialect == .sqlx)
        #expect(detection.reason.text == "declared in .steward-dialect")
        // It comes before what the files or the database say.
        try write("0002_b.sql", "-- migrate:up\nCREATE TABLE b(x);\n")
        #expect(try detect(.init(ledgers: [.golangMigrate], userVersion: 2)).dialect == .sqlx)
    }

    @Test(arguments: ["", "liquibase\n", "sqlx\ngoose\n"])
    func aDeclarationThatNamesNoLayoutIsRefused(_ text: String) throws {
        try write("0001_users.sql")
        try write(".steward-dialect", text)
        let error = try refusal()
        #expect(error.kind == .badInput)
        #expect(error.message.contains(".steward-dialect must name one layout"), "\(error.message)")
    }

    @Test func verifyStillReadsAnAmbiguousSetAsStewardsOwn() throws {
        try write("0001_users.sql")
        let detection = try DialectSet.detect(directory: migrations, records: { .init() }, whenAmbiguous: .stewardsOwn)
        #expect(detection.dialect == .steward)
    }

    // MARK: - Through the migrator

    @Test func aNewDatabaseIsNotCreatedFromAnAmbiguousSet() throws {
        try write("0001_users.sql", "CREATE TABLE users(id INTEGER PRIMARY KEY);\n")
        let error = try failure { $0.create = true }
        #expect(error.remedy == .nameDialect(["steward", "sqlx"]))
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    @Test func aDeclaredSqlxSetGetsItsLedgerOnANewDatabase() throws {
        try write("0001_users.sql", "CREATE TABLE users(id INTEGER PRIMARY KEY);\n")
        try write(".steward-dialect", "sqlx\n")
        let report = try migrate { $0.create = true }
        #expect(report.dialect == .sqlx)
        #expect(report.dialectReason.text == "declared in .steward-dialect")
        #expect(!report.ignoredFiles.contains(".steward-dialect"))
        let connection = try Connection(path: database)
        #expect(try connection.rows(sql: "SELECT version, description FROM _sqlx_migrations") == [[.integer(1), .text("users")]])
    }

    @Test func aDeclaredStewardSetStaysStewardsOwn() throws {
        try write("0001_users.sql", "CREATE TABLE users(id INTEGER PRIMARY KEY);\n")
        try write(".steward-dialect", "steward\n")
        let report = try migrate { $0.create = true }
        #expect(report.dialect == .steward)
        #expect(report.ledger == nil)
        #expect(report.ignoredFiles.isEmpty)
        // Afterwards user_version alone says it, declaration or not.
        try FileManager.default.removeItem(atPath: directory.file("migrations/.steward-dialect"))
        try write("0002_email.sql", "ALTER TABLE users ADD email TEXT;\n")
        #expect(try migrate().applied.map(\.file) == ["0002_email.sql"])
    }

    @Test func aChosenLayoutThatContradictsTheDeclarationIsRefused() throws {
        try write("0001_users.sql")
        try write(".steward-dialect", "steward\n")
        let error = try failure {
            $0.create = true
            $0.dialect = .sqlx
        }
        #expect(error.kind == .badInput)
        #expect(error.message.contains("declares the set's layout steward"), "\(error.message)")
        #expect(!FileManager.default.fileExists(atPath: database))
        #expect(try migrate {
            $0.create = true
            $0.dialect = .steward
        }.dialect == .steward)
    }

    @Test func aFleetRunSharingTheSetRefusesTheNewDatabaseOnly() throws {
        try write("0001_users.sql", "CREATE TABLE users(id INTEGER PRIMARY KEY);\n")
        let cache = MigrationSetCache()
        let old = directory.file("old.db")
        let made = try Connection(path: old)
        try made.execute(sql: "CREATE TABLE users(id INTEGER PRIMARY KEY)")
        try made.setUserVersion(1)
        var options = Migrator.Options(databasePath: old, migrationsDirectory: migrations)
        options.setCache = cache
        #expect(try Migrator(options: options).run().migration.dialect == .steward)
        options.databasePath = database
        options.create = true
        let error = try #require(throws: StewardError.self) { try Migrator(options: options).run() }
        #expect(error.remedy == .nameDialect(["steward", "sqlx"]))
    }
}
