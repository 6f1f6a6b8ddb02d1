import Foundation
import SQLiteKit
import Testing
import TestSupport

/// Through the binary, the defects of issue 26: sets read differently from their runner,
/// each run on a new database with `--create` and the schema and ledger compared with what
/// the runner makes.
@Suite struct AdoptedSetReadingTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace() }

    func migrate(_ extra: [String]) throws -> StewardRun { try workspace.migrate(["--create"] + extra) }

    func query(_ sql: String) throws -> [[SQLiteValue]] {
        try Connection(path: database, mode: .readOnly).rows(sql: sql)
    }

    func tables() throws -> [String] {
        try query("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").compactMap { $0.first?.textValue }
    }

    /// goose compares annotations without case: a lower-case `-- +goose down` ends the up
    /// part, so the table stays (before, the down part ran too: created, filled, dropped).
    @Test func gooseLowerCaseDownEndsTheUpPart() throws {
        try write("20240101000001_posts.sql", """
            -- +goose up
            CREATE TABLE posts (id INTEGER PRIMARY KEY, title TEXT);
            INSERT INTO posts (title) VALUES ('first');
            -- +goose down
            DROP TABLE posts;

            """)
        let run = try migrate(["--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try query("SELECT count(*) FROM posts") == [[.integer(1)]])
        #expect(try query("SELECT version_id, is_applied FROM goose_db_version ORDER BY id") == [[.integer(0), .integer(1)], [.integer(20_240_101_000_001), .integer(1)]])
    }

    /// goose's spelling is ENVSUB: the file is refused with its line, nothing is created.
    @Test func gooseEnvsubOnIsRefused() throws {
        try write("20240101000001_a.sql", "-- +goose Up\n-- +goose ENVSUB ON\nCREATE TABLE a(owner DEFAULT '${OWNER}');\n")
        expectRefused(try migrate([]), status: 65, saying: "20240101000001_a.sql:2: '-- +goose ENVSUB ON'")
    }

    /// goose collects only `*.sql` and `*.go`: a helper script is not a migration.
    @Test func gooseIgnoresAPythonHelper() throws {
        try write("20240101000001_a.sql", "-- +goose Up\nCREATE TABLE a(x);\n")
        try write("20240101000002_fix_titles.py", "print('helper')\n")
        let run = try migrate(["--json", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try tables().contains("a"))
    }

    /// diesel orders versions as strings: `2024-03-13_170000_x` is version 20240313, after
    /// 20240306170000 (the pair of vaultwarden's set, written here in a few lines).
    @Test func dieselVersionsAreOrderedAsText() throws {
        try write("2024-03-06-170000_add_sso_users/up.sql", "CREATE TABLE sso_users (user_uuid TEXT PRIMARY KEY, identifier TEXT);\n")
        try write("2024-03-13_170000_sso_userscascade/up.sql", """
            DROP TABLE IF EXISTS sso_users;
            CREATE TABLE sso_users (user_uuid TEXT PRIMARY KEY, identifier TEXT, FOREIGN KEY (user_uuid) REFERENCES sso_users(user_uuid) ON DELETE CASCADE);

            """)
        let run = try migrate(["--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try query("SELECT version FROM __diesel_schema_migrations ORDER BY rowid") == [[.text("20240306170000")], [.text("20240313")]])
        #expect(try query("SELECT sql LIKE '%CASCADE%' FROM sqlite_schema WHERE name = 'sso_users'") == [[.integer(1)]])
    }

    /// golang-migrate's pattern takes `30_ignore_autotag.up..sql`: it is applied, and the
    /// ledger's one row says 30.
    @Test func golangMigrateAppliesUpDotDotSQL() throws {
        try write("29_a.up.sql", "CREATE TABLE a(x);\n")
        try write("30_ignore_autotag.up..sql", "CREATE TABLE b(x);\n")
        try write("30_ignore_autotag.down.sql", "DROP TABLE b;\n")
        let run = try migrate(["--dialect", "golang-migrate", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try tables().contains("b"))
        #expect(try query("SELECT version, dirty FROM schema_migrations") == [[.integer(30), .integer(0)]])
    }

    /// A CRLF dbmate file: its up part runs (before, the file was read as one line and
    /// nothing ran, recorded as applied).
    @Test func dbmateCRLFFileRuns() throws {
        try write("20240101000001_a.sql", "-- migrate:up\r\nCREATE TABLE a(x);\r\n\r\n-- migrate:down\r\nDROP TABLE a;\r\n")
        let run = try migrate(["--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try tables().contains("a"))
        #expect(try query("SELECT version FROM schema_migrations") == [[.text("20240101000001")]])
    }

    /// Flyway replaces `${name}` inside string literals too: without a value the file is
    /// refused with its line and the option that gives one; with it, the value is inserted
    /// and the checksum stays that of the file as written.
    @Test func flywayPlaceholders() throws {
        try write("V1__init.sql", "CREATE TABLE settings (key TEXT, value TEXT);\n")
        try write("V2__defaults.sql", "INSERT INTO settings VALUES ('scan', '${library-scan-startup}');\n")
        let refused = try migrate([])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("V2__defaults.sql:1: the Flyway placeholder '${library-scan-startup}' has no value"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--placeholder 'library-scan-startup=VALUE'"), "\(refused.stderr)")

        let run = try migrate(["--placeholder", "library-scan-startup=false", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try query("SELECT value FROM settings") == [[.text("false")]])
        let checksum = try systemTool(["python3", "-c", """
            import sys, zlib; c = zlib.crc32(b''.join(open(sys.argv[1], 'rb').read().splitlines())); print(c - (1 << 32) if c >= (1 << 31) else c)
            """, directory.file("migrations/V2__defaults.sql")]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try query("SELECT checksum FROM flyway_schema_history WHERE version = '2'") == [[.integer(Int64(checksum) ?? 0)]])
    }

    @Test(arguments: ["=false", "no-equals-sign"])
    func aPlaceholderWithoutNameOrValueIsAUsageError(value: String) throws {
        try write("V1__init.sql", "CREATE TABLE a(x);\n")
        let run = try migrate(["--placeholder", value])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--placeholder <name=value>"))
    }

    /// drizzle records the SHA-256 of the file as read, CRLF included.
    @Test func drizzleHashesTheRawText() throws {
        try write("0000_init.sql", "CREATE TABLE a(x);\r\n--> statement-breakpoint\r\nCREATE TABLE b(x);\r\n")
        try write("meta/_journal.json", #"{"version":"7","dialect":"sqlite","entries":[{"idx":0,"version":"6","when":1700000000000,"tag":"0000_init","breakpoints":true}]}"#)
        let run = try migrate(["--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        let hash = try systemTool(["sha256sum", directory.file("migrations/0000_init.sql")]).output.prefix(64)
        #expect(try query("SELECT hash, created_at FROM __drizzle_migrations") == [[.text(String(hash)), .integer(1_700_000_000_000)]])
    }
}
