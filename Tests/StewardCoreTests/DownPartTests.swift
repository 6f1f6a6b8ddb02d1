import Foundation
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// The down part of each migration, read in each layout that has one (issue 29): which file
/// holds it, what of it runs, and that the up path never runs any of it.
@Suite struct DownPartTests: MigrationSetSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace() }

    func read(_ dialect: Dialect) throws -> DialectSet {
        try DialectSet(directory: migrations, dialect: dialect)
    }

    /// The lines of `sql` that are not blank.
    func statements(_ sql: String?) -> [String] {
        // Split on LF scalars: "\r\n" is one Character.
        (sql ?? "").unicodeScalars.split(separator: "\n").map { String(String.UnicodeScalarView($0)).trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    // MARK: - Files of their own

    @Test func stewardsOwnDownFileSitsBesideItsMigration() throws {
        try write("0001_a.sql", "CREATE TABLE a(x);\n")
        try write("0001_a.down.sql", "DROP TABLE a;\n")
        try write("0002_b.up.sql", "CREATE TABLE b(x);\n")
        try write("0002_b.down.sql", "DROP TABLE b;\n")
        try write("0003_c.sql", "CREATE TABLE c(x);\n")
        // Another name's down file is not this migration's.
        try write("0003_other.down.sql", "DROP TABLE c;\n")
        let set = try read(.steward)
        #expect(set.migrations.map { $0.down?.fileName } == ["0001_a.down.sql", "0002_b.down.sql", nil])
        #expect(statements(set.migrations[0].down?.sql) == ["DROP TABLE a;"])
        #expect(set.migrations.allSatisfy { !$0.upSQL.contains("DROP") })
    }

    @Test func aDownFileThatIsNotTextRefusesOnlyTheDownRun() throws {
        try write("0001_a.sql", "CREATE TABLE a(x);\n")
        try Data([0x44, 0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: workspace.migration("0001_a.down.sql")))
        let set = try read(.steward)
        #expect(set.migrations[0].upSQL == "CREATE TABLE a(x);\n")
        #expect(set.migrations[0].down?.refusal?.hasSuffix("0001_a.down.sql: not UTF-8 text") == true)
    }

    @Test func golangMigrateAndSqlxPairTheDownFileByVersion() throws {
        try write("1_a.up.sql", "CREATE TABLE a(x);\n")
        try write("1_a.down.sql", "DROP TABLE a;\n")
        try write("2_b.up.sql", "CREATE TABLE b(x);\n")
        try write("2_renamed.down.sql", "DROP TABLE b;\n")
        try write("3_c.up.sql", "CREATE TABLE c(x);\n")
        for dialect in [Dialect.golangMigrate, .sqlx] {
            let set = try read(dialect)
            #expect(set.migrations.map(\.fileName) == ["1_a.up.sql", "2_b.up.sql", "3_c.up.sql"], "\(dialect)")
            #expect(set.migrations.map { $0.down?.fileName } == ["1_a.down.sql", "2_renamed.down.sql", nil], "\(dialect)")
            #expect(set.migrations.map(\.upSQL) == ["CREATE TABLE a(x);\n", "CREATE TABLE b(x);\n", "CREATE TABLE c(x);\n"])
        }
    }

    @Test func dieselReadsDownSqlInTheMigrationsFolder() throws {
        try write("2024-01-01-000001_a/up.sql", "CREATE TABLE a(x);\n")
        try write("2024-01-01-000001_a/down.sql", "DROP TABLE a;\n")
        try write("2024-01-02-000001_b/up.sql", "CREATE TABLE b(x);\n")
        let set = try read(.diesel)
        #expect(set.migrations.map { $0.down?.fileName } == ["2024-01-01-000001_a/down.sql", nil])
        #expect(set.migrations[0].down?.sql == "DROP TABLE a;\n")
    }

    @Test func drizzleAndFlywayHaveNoDownParts() throws {
        try write("V1__a.sql", "CREATE TABLE a(x);\n")
        try write("U1__a.sql", "DROP TABLE a;\n")
        let set = try DialectSet(directory: migrations, dialect: .flyway)
        #expect(set.migrations.allSatisfy { $0.down == nil })
    }

    // MARK: - goose

    @Test func gooseDownSectionIsTheDownPartAndNeverRunsUp() throws {
        try write("00001_a.sql", """
            -- +goose Up
            CREATE TABLE a(x);
            -- +goose Down
            DROP TABLE a;
            """)
        try write("00002_b.sql", """
            -- +goose Up
            -- +goose StatementBegin
            CREATE TABLE b(x);
            CREATE TRIGGER b_t AFTER INSERT ON b BEGIN SELECT 1; END;
            -- +goose StatementEnd
            --+goose down
            -- +goose StatementBegin
            DROP TRIGGER b_t;
            DROP TABLE b;
            -- +goose StatementEnd
            """)
        try write("00003_c.sql", "-- +goose Up\nCREATE TABLE c(x);\n")
        let set = try read(.goose)
        #expect(set.migrations.map { $0.down?.fileName } == ["00001_a.sql", "00002_b.sql", nil])
        #expect(statements(set.migrations[0].down?.sql) == ["DROP TABLE a;"])
        #expect(statements(set.migrations[1].down?.sql) == ["DROP TRIGGER b_t;", "DROP TABLE b;"])
        // The past defect: the down part ran in the up run. Neither part holds the other's SQL.
        for migration in set.migrations {
            #expect(!migration.upSQL.contains("DROP"), "\(migration.fileName)")
            let down = migration.down?.sql ?? ""
            #expect(!down.contains("CREATE"), "\(migration.fileName)")
        }
        // Line numbers stay the file's own: the down statement is on line 4.
        #expect(set.migrations[0].down?.sql.split(separator: "\n", omittingEmptySubsequences: false)[3] == "DROP TABLE a;")
    }

    @Test func gooseNoTransactionInTheDownSectionRefusesTheFile() throws {
        try write("00001_a.sql", """
            -- +goose Up
            CREATE TABLE a(x);
            -- +goose Down
            -- +goose NO TRANSACTION
            DROP TABLE a;
            """)
        #expect(throws: StewardError.self) { try read(.goose) }
        let error = try #require(throws: StewardError.self) { try read(.goose) }
        #expect(error.message.contains("00001_a.sql:4:"))
        #expect(error.message.contains("outside a transaction"))
    }

    @Test func aGooseDownPartCutShortRefusesOnlyTheDownRun() throws {
        // goose's up run resets its buffer in the down part: the up part runs as ever.
        try write("00001_a.sql", """
            -- +goose Up
            CREATE TABLE a(x);
            -- +goose Down
            CREATE TRIGGER t AFTER INSERT ON a BEGIN
              SELECT 1;
            END;
            """)
        let set = try read(.goose)
        #expect(statements(set.migrations[0].upSQL) == ["CREATE TABLE a(x);"])
        let refusal = try #require(set.migrations[0].down?.refusal)
        #expect(refusal.hasPrefix("00001_a.sql:4: goose sends lines 4-5 of the down part"))
        #expect(set.migrations[0].reversed() == nil)
    }

    @Test func aGooseDownPartWithoutItsSemicolonIsRefusedForTheDownRun() throws {
        try write("00001_a.sql", "-- +goose Up\nCREATE TABLE a(x);\n-- +goose Down\nDROP TABLE a\n")
        let set = try read(.goose)
        #expect(set.migrations[0].down?.refusal?.contains("without its ';' at the end of the down part") == true)
    }

    @Test func aGooseFileWithoutDownHasNoDownPart() throws {
        try write("00001_a.sql", "-- +goose Up\nCREATE TABLE a(x);\n")
        try write("00002_b.sql", "-- +goose Up\nCREATE TABLE b(x);\n-- +goose Down\n-- nothing to undo\n")
        let set = try read(.goose)
        #expect(set.migrations[0].down == nil)
        #expect(set.migrations[1].down?.isEmpty == true)
    }

    // MARK: - dbmate

    @Test func dbmateDownSectionRunsToTheEndOfTheFile() throws {
        try write("1_a.sql", "-- migrate:up\nCREATE TABLE a(x);\n\n--migrate:down\nDROP TABLE a;\n")
        try write("2_b.sql", "-- migrate:up\r\nCREATE TABLE b(x);\r\n-- migrate:down\r\nDROP TABLE b;\r\n")
        let set = try read(.dbmate)
        #expect(set.migrations.map { $0.down?.fileName } == ["1_a.sql", "2_b.sql"])
        #expect(statements(set.migrations[0].down?.sql) == ["DROP TABLE a;"])
        #expect(statements(set.migrations[1].down?.sql) == ["DROP TABLE b;\r"])
        #expect(set.migrations.allSatisfy { !$0.upSQL.contains("DROP") && $0.down?.refusal == nil })
    }

    @Test func dbmateTransactionFalseOnTheDownDirectiveRefusesTheDownRun() throws {
        try write("1_a.sql", "-- migrate:up\nCREATE TABLE a(x);\n-- migrate:down transaction:false\nDROP TABLE a;\n")
        let set = try read(.dbmate)
        #expect(statements(set.migrations[0].upSQL) == ["CREATE TABLE a(x);"])
        #expect(set.migrations[0].down?.refusal?.hasPrefix("1_a.sql:3: 'transaction:false'") == true)
    }

    @Test func aDbmateFileOfSeveralSectionsIsNotTakenBack() throws {
        try write("1_a.sql", "-- migrate:up\nCREATE TABLE a(x);\n-- migrate:down\nDROP TABLE a;\n-- migrate:up\nCREATE TABLE b(x);\n-- migrate:down\nDROP TABLE b;\n")
        let set = try read(.dbmate)
        #expect(set.migrations[0].down?.refusal?.contains("a second '-- migrate:up' section") == true)
    }
}
