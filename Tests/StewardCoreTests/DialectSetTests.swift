import Foundation
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// Reading migration sets in the layouts of other runners: detection, versions, up parts
/// and refusals.
@Suite struct DialectSetTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace() }

    func refusal(_ dialect: Dialect) throws -> StewardError {
        try #require(throws: StewardError.self) { try DialectSet(directory: migrations, dialect: dialect) }
    }

    // MARK: - Detection

    @Test func detectionFollowsTheIssuesOrder() throws {
        #expect(DialectSet.detect(directory: migrations, ledgers: []).dialect == .steward)
        try write("0001_a.up.sql")
        #expect(DialectSet.detect(directory: migrations, ledgers: [.golangMigrate]).dialect == .golangMigrate)
        #expect(DialectSet.detect(directory: migrations, ledgers: [.sqlx, .golangMigrate]).dialect == .sqlx)
        try write("20240101000000_b.sql", "-- migrate:up\nCREATE TABLE b(x);\n-- migrate:down\nDROP TABLE b;\n")
        #expect(DialectSet.detect(directory: migrations, ledgers: [.sqlx]).dialect == .dbmate)
        try write("20240102000000_c.sql", "-- +goose Up\nCREATE TABLE c(x);\n")
        #expect(DialectSet.detect(directory: migrations, ledgers: []).dialect == .goose)
        try write("V1__init.sql")
        #expect(DialectSet.detect(directory: migrations, ledgers: []).dialect == .flyway)
        try write("2024-01-01-000000_init/up.sql")
        #expect(DialectSet.detect(directory: migrations, ledgers: []).dialect == .diesel)
        try write("meta/_journal.json", #"{"entries":[]}"#)
        let detection = DialectSet.detect(directory: migrations, ledgers: [])
        #expect(detection.dialect == .drizzle)
        #expect(detection.reason.text == "meta/_journal.json")
    }

    /// goose's annotations are found in any case and spacing, as goose reads them (and in
    /// CRLF files); a comment that only mentions `+goose` is not one.
    @Test(arguments: [
        ("-- +goose up\nCREATE TABLE a(x);\n", Dialect.goose),
        ("--+goose Up\r\nCREATE TABLE a(x);\r\n", .goose),
        ("-- +goose Reset\nCREATE TABLE a(x);\n", .goose),
        ("-- the old +goose files are gone\nCREATE TABLE a(x);\n", .steward),
        ("-- migrate:up\r\nCREATE TABLE a(x);\r\n-- migrate:down\r\n", .dbmate),
    ])
    func detectionReadsAnnotationsAsTheRunnersDo(text: String, dialect: Dialect) throws {
        try write("20240101000001_a.sql", text)
        #expect(DialectSet.detect(directory: migrations, ledgers: []).dialect == dialect)
    }

    // MARK: - Versions

    @Test func flywayVersionsCompareAsFlywayDoes() throws {
        let key = { (text: String) in try #require(VersionKey(text, dotted: true)) }
        #expect(try key("1.10") > key("1.9"))
        #expect(try key("1_1") == key("1.1"))
        #expect(try key("1.0") == key("1"))
        #expect(try key("001.2") == key("1.2"))
        #expect(try key("2") > key("1.999999999999999999999999"))
        #expect(VersionKey("1.2") == nil)
        #expect(VersionKey("1..2", dotted: true) == nil)
        #expect(VersionKey("1a", dotted: true) == nil)
        #expect(VersionKey("20240101123045")?.integer == 20_240_101_123_045)
        #expect(VersionKey("99999999999999999999")?.integer == nil)
    }

    @Test func fourteenDigitVersionsAreSqlxVersions() throws {
        try write("20240101120000_create_users.sql", "CREATE TABLE users(id);\n")
        try write("20240215093000_add_email.up.sql", "ALTER TABLE users ADD email;\n")
        try write("20240215093000_add_email.down.sql", "ALTER TABLE users DROP email;\n")
        let set = try DialectSet(directory: migrations, dialect: .sqlx)
        #expect(set.migrations.map(\.version.integer) == [20_240_101_120_000, 20_240_215_093_000])
        #expect(set.migrations.map(\.description) == ["create users", "add email"])
        #expect(set.ignoredFiles == ["20240215093000_add_email.down.sql"])
        // The same set in Steward's own layout does not fit user_version.
        #expect(try refusal(.steward).message.contains("out of range"))
    }

    @Test func sqlxNoTransactionIsRefused() throws {
        try write("1_a.sql", "-- no-transaction\nCREATE INDEX i ON t(x);\n")
        let error = try refusal(.sqlx)
        #expect(error.kind == .badInput)
        #expect(error.message.contains("1_a.sql:1") && error.message.contains("no-transaction"))
    }

    // MARK: - goose

    static let gooseFile = """
        -- +goose Up
        CREATE TABLE post (id INTEGER PRIMARY KEY, title TEXT);
        -- +goose StatementBegin
        CREATE TRIGGER post_title AFTER UPDATE ON post BEGIN
            UPDATE post SET title = trim(new.title) WHERE id = new.id;
        END;
        -- +goose StatementEnd

        -- +goose Down
        DROP TABLE post;

        """

    @Test func gooseRunsOnlyTheUpPartWithTheFilesLineNumbers() throws {
        try write("20240101000001_post.sql", Self.gooseFile)
        let migration = try #require(try DialectSet(directory: migrations, dialect: .goose).migrations.first)
        #expect(!migration.upSQL.contains("DROP TABLE"))
        #expect(migration.upSQL.contains("CREATE TRIGGER post_title"))
        #expect(migration.upSQL.components(separatedBy: "\n").count == Self.gooseFile.components(separatedBy: "\n").count)
        #expect(migration.upSQL.components(separatedBy: "\n")[1].hasPrefix("CREATE TABLE post"))
    }

    @Test(arguments: [
        ("-- +goose Up\n-- +goose NO TRANSACTION\nCREATE INDEX i ON t(x);\n", "NO TRANSACTION"),
        ("-- +goose Up\n-- +goose ENVSUBST ON\nCREATE TABLE t(x);\n", "ENVSUBST"),
        ("CREATE TABLE t(x);\n-- +goose Up\n", "before '-- +goose Up'"),
        ("-- just a comment\nCREATE TABLE t(x);\n", "before '-- +goose Up'"),
    ])
    func gooseRefusals(text: String, reason: String) throws {
        try write("1_a.sql", text)
        let error = try refusal(.goose)
        #expect(error.kind == .badInput)
        #expect(error.message.contains(reason))
    }

    /// A versioned Go file is refused in every layout: goose runs it, and the runners
    /// without code migrations skip it while the application runs it. A helper that goose
    /// does not collect (`.py`) is ignored there (ConformanceTests, goose-52).
    @Test(arguments: [Dialect.steward, .goose, .sqlx, .dbmate, .golangMigrate, .diesel])
    func aVersionedGoFileIsRefused(dialect: Dialect) throws {
        switch dialect {
        case .steward, .sqlx: try write("20240101000001_a.sql", "CREATE TABLE t(x);\n")
        case .goose: try write("20240101000001_a.sql", "-- +goose Up\nCREATE TABLE t(x);\n")
        case .dbmate: try write("20240101000001_a.sql", "-- migrate:up\nCREATE TABLE t(x);\n-- migrate:down\n")
        case .golangMigrate: try write("20240101000001_a.up.sql", "CREATE TABLE t(x);\n")
        default: try write("2024-01-01-000001_a/up.sql", "CREATE TABLE t(x);\n")
        }
        try write("20240101000002_move_data.go", "package migrations\n")
        let error = try refusal(dialect)
        #expect(error.kind == .badInput)
        #expect(error.message.contains("20240101000002_move_data.go"))
    }

    @Test func versionedNames() {
        #expect(DialectSet.looksVersioned("0216__x.js"))
        #expect(DialectSet.looksVersioned("20240101_x.go"))
        #expect(DialectSet.looksVersioned("V3__x.java"))
        #expect(DialectSet.looksVersioned("V1_1__x.kt"))
        #expect(DialectSet.looksVersioned("R__views.js"))
        #expect(!DialectSet.looksVersioned("README.md"))
        #expect(!DialectSet.looksVersioned("Version.txt"))
    }

    // MARK: - dbmate

    @Test func dbmateUpPartAndRefusals() throws {
        try write("20240101000000_a.sql", "-- migrate:up\nCREATE TABLE a(x);\n\n-- migrate:down\nDROP TABLE a;\n")
        let migration = try #require(try DialectSet(directory: migrations, dialect: .dbmate).migrations.first)
        #expect(migration.upSQL == "\nCREATE TABLE a(x);\n\n\n\n")
        #expect(migration.ledgerVersion == "20240101000000")

        try write("20240101000001_b.sql", "-- migrate:up transaction:false\nCREATE TABLE b(x);\n-- migrate:down\n")
        let error = try refusal(.dbmate)
        #expect(error.message.contains("20240101000001_b.sql:1") && error.message.contains("transaction:false"))
    }

    // MARK: - diesel

    @Test func dieselFoldersAndMetadata() throws {
        try write("2024-01-01-120000_create_users/up.sql", "CREATE TABLE users(id);\n")
        try write("2024-01-01-120000_create_users/down.sql", "DROP TABLE users;\n")
        try write("2024-02-01-000000_posts/up.sql", "CREATE TABLE posts(id);\n")
        try write("2024-02-01-000000_posts/metadata.toml", "run_in_transaction = true\n")
        try write(".keep", "")
        let set = try DialectSet(directory: migrations, dialect: .diesel)
        #expect(set.migrations.map(\.ledgerVersion) == ["20240101120000", "20240201000000"])
        #expect(set.migrations.map(\.fileName) == ["2024-01-01-120000_create_users/up.sql", "2024-02-01-000000_posts/up.sql"])

        try write("2024-03-01-000000_index/up.sql", "CREATE INDEX i ON posts(id);\n")
        try write("2024-03-01-000000_index/metadata.toml", "# no transaction\nrun_in_transaction = false\n")
        let error = try refusal(.diesel)
        #expect(error.message.contains("metadata.toml") && error.message.contains("run_in_transaction = false"))
    }

    // MARK: - drizzle

    @Test func drizzleJournalDecidesWhatRunsAndInWhichOrder() throws {
        try write("0000_first.sql", "CREATE TABLE a(x);\n--> statement-breakpoint\nCREATE TABLE b(x);\n")
        try write("0001_second.sql", "CREATE TABLE c(x);\n")
        try write("0002_stray.sql", "DROP TABLE a;\n")
        try write("meta/_journal.json", """
            {"version":"7","dialect":"sqlite","entries":[
              {"idx":0,"version":"6","when":1700000000000,"tag":"0000_first","breakpoints":true},
              {"idx":1,"version":"6","when":1700000100000,"tag":"0001_second","breakpoints":true}]}
            """)
        try write("meta/0000_snapshot.json", "{}")
        let set = try DialectSet(directory: migrations, dialect: .drizzle)
        #expect(set.migrations.map(\.fileName) == ["0000_first.sql", "0001_second.sql"])
        #expect(set.migrations.map(\.version.integer) == [0, 1])
        #expect(set.migrations.map(\.journalWhen) == [1_700_000_000_000, 1_700_000_100_000])
        #expect(set.ignoredFiles.contains("0002_stray.sql (not in meta/_journal.json, not run)"))
    }

    @Test func drizzleJournalForAnotherDatabaseIsRefused() throws {
        try write("0000_init.sql", "CREATE TABLE IF NOT EXISTS \"doors\" (\"id\" serial PRIMARY KEY NOT NULL);\n")
        try write("meta/_journal.json", #"{"version":"5","dialect":"pg","entries":[{"idx":0,"when":1,"tag":"0000_init"}]}"#)
        #expect(try refusal(.drizzle).message.contains("'pg'"))
    }

    @Test func drizzleJournalNamingAMissingFileIsRefused() throws {
        try write("meta/_journal.json", #"{"entries":[{"idx":0,"when":1,"tag":"0000_gone"}]}"#)
        #expect(try refusal(.drizzle).message.contains("0000_gone.sql"))
    }

    // MARK: - Flyway

    @Test func flywayNamesAndOrder() throws {
        try write("V1__init.sql")
        try write("V1_2__more.sql")
        try write("V1.10__later.sql")
        try write("V2__add_email_column.sql")
        let set = try DialectSet(directory: migrations, dialect: .flyway)
        #expect(set.migrations.map(\.ledgerVersion) == ["1", "1.2", "1.10", "2"])
        #expect(set.migrations.last?.description == "add email column")

        try write("V1.0__same_as_one.sql")
        #expect(try refusal(.flyway).message.contains("also used by"))
    }

    @Test func flywayRepeatableIsRefused() throws {
        try write("V1__init.sql")
        try write("R__views.sql")
        let error = try refusal(.flyway)
        #expect(error.kind == .badInput)
        #expect(error.message.contains("R__views.sql"))
    }

    @Test func anEmptySetIsAnError() throws {
        try write("README.md", "notes\n")
        let error = try refusal(.sqlx)
        #expect(error.message.contains("no migrations found") && error.message.contains("README.md"))
    }
}
