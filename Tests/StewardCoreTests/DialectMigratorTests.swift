import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// `steward migrate` on sets and databases made for other runners: only up parts
/// run, applied state comes from the runner's ledger, and the rows the runner would write are
/// written in the same transaction.
@Suite struct DialectMigratorTests: MigratorSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace() }

    func bytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: database)) }

    func integrityOK() throws -> Bool {
        try Connection(path: database).rows(sql: "PRAGMA integrity_check") == [[.text("ok")]]
    }

    /// A database made by sqlx: two of three migrations applied, its ledger filled as sqlx
    /// fills it (checksums from Python), `user_version` 0.
    func sqlxDatabase() throws {
        try write("20240101120000_users.sql", "CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT);\n")
        try write("20240102120000_email.sql", "ALTER TABLE users ADD email TEXT;\n")
        try write("20240103120000_index.sql", "CREATE INDEX users_email ON users(email);\n")
        let connection = try Connection(path: database)
        try connection.execute(sql: """
            CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT);
            ALTER TABLE users ADD email TEXT;
            INSERT INTO users(name, email) VALUES ('a', 'a@example.com');
            CREATE TABLE IF NOT EXISTS _sqlx_migrations (
                version BIGINT PRIMARY KEY, description TEXT NOT NULL,
                installed_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, success BOOLEAN NOT NULL,
                checksum BLOB NOT NULL, execution_time BIGINT NOT NULL);
            """)
        for (name, description) in [("20240101120000_users.sql", "users"), ("20240102120000_email.sql", "email")] {
            let checksum = try python("hashlib.sha384(data).hexdigest()", file: name)
            try connection.execute(
                sql: "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (?1, ?2, TRUE, unhex(?3), 1000)"
                    .replacingOccurrences(of: "unhex(?3)", with: "x'\(checksum)'"),
                bindings: [.integer(Int64(name.prefix(14)) ?? 0), .text(description)])
        }
    }

    // MARK: - sqlx

    @Test func anSqlxDatabaseIsAdoptedFromItsLedger() throws {
        try sqlxDatabase()
        let report = try migrate()
        #expect(report.dialect == .sqlx)
        #expect(report.dialectReason.text.contains("_sqlx_migrations"))
        #expect(report.applied.map(\.file) == ["20240103120000_index.sql"])
        #expect(report.applied.first?.version == 20_240_103_120_000)
        #expect(report.userVersionRule == .appliedCount)
        #expect(report.toVersion == 3)
        #expect(report.ledger?.existed == true && report.ledger?.rowsBefore == 2 && report.ledger?.recorded == 1)
        let connection = try Connection(path: database)
        #expect(try connection.userVersion() == 3)
        let expected = try python("hashlib.sha384(data).hexdigest()", file: "20240103120000_index.sql")
        #expect(try connection.rows(sql: "SELECT description, success, lower(hex(checksum)) FROM _sqlx_migrations WHERE version = 20240103120000")
                == [[.text("index"), .integer(1), .text(expected)]])
        #expect(try integrityOK())
        // Run again: nothing to do.
        #expect(try migrate().applied.isEmpty)
    }

    @Test func aChosenLayoutIsMarkedChosenAndNamesNoOption() throws {
        try write("20240101000001_a.sql", "CREATE TABLE a(x);\n")
        let report = try migrate {
            $0.dialect = .sqlx
            $0.create = true
        }
        #expect(report.dialect == .sqlx)
        #expect(report.dialectReason.chosen)
        #expect(!report.dialectReason.text.contains("--"))
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? [String: Any]
        #expect(encoded?["dialectReason"] as? String == report.dialectReason.text)
    }

    @Test func aChangedAppliedFileIsRefusedUnlessAllowed() throws {
        try sqlxDatabase()
        try write("20240102120000_email.sql", "ALTER TABLE users ADD email TEXT; -- edited\n")
        let before = try bytes()
        let error = try failure()
        #expect(error.kind == .badInput)
        #expect(error.message.contains("20240102120000_email.sql") && error.remedy == .allowChangedMigrations)
        #expect(try bytes() == before)
        let report = try migrate { $0.allowChanged = true }
        #expect(report.notes.contains { $0.contains("20240102120000_email.sql changed") })
        #expect(report.applied.count == 1)
    }

    // MARK: - goose

    @Test func gooseRunsUpPartsAndKeepsItsLedger() throws {
        try write("20240101000001_posts.sql", """
            -- +goose Up
            CREATE TABLE post (id INTEGER PRIMARY KEY, title TEXT);
            -- +goose StatementBegin
            CREATE TRIGGER post_trim AFTER INSERT ON post BEGIN
                UPDATE post SET title = trim(new.title) WHERE id = new.id;
            END;
            -- +goose StatementEnd
            -- +goose Down
            DROP TABLE post;
            """)
        try write("20240101000002_tags.sql", "-- +goose Up\nCREATE TABLE tag(id INTEGER PRIMARY KEY);\n-- +goose Down\nDROP TABLE tag;\n")
        let report = try migrate { $0.create = true }
        #expect(report.dialect == .goose)
        #expect(report.applied.count == 2)
        let connection = try Connection(path: database)
        #expect(try connection.rows(sql: "SELECT version_id, is_applied FROM goose_db_version ORDER BY id")
                == [[.integer(0), .integer(1)], [.integer(20_240_101_000_001), .integer(1)], [.integer(20_240_101_000_002), .integer(1)]])
        #expect(try connection.integer(sql: "SELECT count(*) FROM sqlite_schema WHERE name IN ('post', 'post_trim', 'tag')") == 3)
        #expect(try connection.userVersion() == 2)
    }

    // MARK: - golang-migrate

    @Test func golangMigrateDirtyIsRefusedAndOutOfOrderIsAUsageError() throws {
        try write("1_a.up.sql", "CREATE TABLE a(x);\n")
        try write("1_a.down.sql", "DROP TABLE a;\n")
        try write("2_b.up.sql", "CREATE TABLE b(x);\n")
        let connection = try Connection(path: database)
        try connection.execute(sql: """
            CREATE TABLE a(x);
            CREATE TABLE IF NOT EXISTS schema_migrations (version uint64,dirty bool);
            CREATE UNIQUE INDEX IF NOT EXISTS version_unique ON schema_migrations (version);
            INSERT INTO schema_migrations VALUES (1, 1);
            """)
        let before = try bytes()
        let dirty = try failure()
        #expect(dirty.kind == .badInput && dirty.message.contains("dirty") && dirty.message.contains("migrate force"))
        #expect(try bytes() == before)
        #expect(try failure { $0.allowOutOfOrder = true }.kind == .usage)

        try connection.execute(sql: "UPDATE schema_migrations SET dirty = 0")
        let report = try migrate()
        #expect(report.dialect == .golangMigrate)
        #expect(report.applied.map(\.file) == ["2_b.up.sql"])
        #expect(try connection.rows(sql: "SELECT version, dirty FROM schema_migrations") == [[.integer(2), .integer(0)]])
        #expect(try connection.userVersion() == 2)
    }

    /// Regression: golang-migrate's ledger row was deleted and inserted again by every run,
    /// one that applied nothing too: a current database was reported current, yet written.
    @Test func aCurrentGolangMigrateDatabaseIsNotWritten() throws {
        try write("1_a.up.sql", "CREATE TABLE a(x);\n")
        try write("2_b.up.sql", "CREATE TABLE b(x);\n")
        try Connection(path: database).execute(sql: """
            CREATE TABLE a(x);
            CREATE TABLE b(x);
            CREATE TABLE IF NOT EXISTS schema_migrations (version uint64,dirty bool);
            CREATE UNIQUE INDEX IF NOT EXISTS version_unique ON schema_migrations (version);
            INSERT INTO schema_migrations VALUES (2, 0);
            PRAGMA user_version = 2;
            """)
        let before = try bytes()
        let report = try migrate()
        #expect(report.dialect == .golangMigrate)
        #expect(report.outcome == .current)
        #expect(try bytes() == before, "a run with nothing to apply writes nothing")
    }

    // MARK: - diesel, drizzle, Flyway

    @Test func dieselFoldersRunAndAreRecorded() throws {
        try write("2024-01-01-000000_users/up.sql", "CREATE TABLE users(id INTEGER PRIMARY KEY);\n")
        try write("2024-01-01-000000_users/down.sql", "DROP TABLE users;\n")
        try write("2024-01-02-000000_posts/up.sql", "CREATE TABLE posts(id INTEGER PRIMARY KEY);\n")
        let report = try migrate { $0.create = true }
        #expect(report.dialect == .diesel)
        #expect(report.applied.map(\.versionText) == ["20240101000000", "20240102000000"])
        #expect(try Connection(path: database).rows(sql: "SELECT version FROM __diesel_schema_migrations ORDER BY 1")
                == [[.text("20240101000000")], [.text("20240102000000")]])
    }

    @Test func drizzleJournalSkipsUnlistedFilesAndStartsAtZero() throws {
        try write("0000_init.sql", "CREATE TABLE a(id INTEGER PRIMARY KEY);\n--> statement-breakpoint\nCREATE TABLE b(id INTEGER PRIMARY KEY);\n")
        try write("0001_stray.sql", "DROP TABLE a;\n")
        try write("0002_more.sql", "CREATE TABLE c(id INTEGER PRIMARY KEY);\n")
        try write("meta/_journal.json", #"{"entries":[{"idx":0,"when":1700000000000,"tag":"0000_init"},{"idx":1,"when":1700000002000,"tag":"0002_more"}]}"#)
        let report = try migrate { $0.create = true }
        #expect(report.dialect == .drizzle)
        #expect(report.applied.map(\.file) == ["0000_init.sql", "0002_more.sql"])
        #expect(report.ignoredFiles.contains("0001_stray.sql (not in meta/_journal.json, not run)"))
        let connection = try Connection(path: database)
        #expect(try connection.integer(sql: "SELECT count(*) FROM sqlite_schema WHERE name IN ('a','b','c')") == 3)
        let hash = try python("hashlib.sha256(data).hexdigest()", file: "0002_more.sql")
        #expect(try connection.rows(sql: "SELECT hash FROM __drizzle_migrations WHERE created_at = 1700000002000") == [[.text(hash)]])
    }

    @Test func flywayDottedVersionsAndChecksums() throws {
        try write("V1__init.sql", "CREATE TABLE a(id INTEGER PRIMARY KEY);\n")
        try write("V1_1__second.sql", "CREATE TABLE b(id INTEGER PRIMARY KEY);\n")
        try write("V1.10__tenth.sql", "CREATE TABLE c(id INTEGER PRIMARY KEY);\n")
        let report = try migrate { $0.create = true; $0.targetVersion = RequestedVersion("1.1") }
        #expect(report.dialect == .flyway)
        #expect(report.applied.map(\.versionText) == ["1", "1.1"])
        #expect(report.applied.last?.version == nil)
        let rest = try migrate()
        #expect(rest.applied.map(\.file) == ["V1.10__tenth.sql"])
        let checksum = try python(
            "(lambda c: c - (1 << 32) if c >= (1 << 31) else c)(zlib.crc32(b''.join(data.splitlines())))", file: "V1.10__tenth.sql")
        #expect(try Connection(path: database).rows(sql: "SELECT installed_rank, version, checksum FROM flyway_schema_history WHERE script = 'V1.10__tenth.sql'")
                == [[.integer(3), .text("1.10"), .integer(Int64(checksum) ?? 0)]])
    }

    // MARK: - Sets that start from a baseline schema

    @Test func aSetThatAltersTablesMadeElsewhereRunsOnADatabaseThatHasThem() throws {
        try write("20240101000001_email.sql", "-- migrate:up\nALTER TABLE users ADD email TEXT;\n-- migrate:down\n")
        try write("20240101000002_index.sql", "-- migrate:up\nCREATE INDEX users_email ON users(email);\n-- migrate:down\n")
        let connection = try Connection(path: database)
        try connection.execute(sql: """
            CREATE TABLE users(id INTEGER PRIMARY KEY);
            ALTER TABLE users ADD email TEXT;
            create table if not exists "schema_migrations" (version varchar(128) primary key);
            insert into "schema_migrations" (version) values ('20240101000001');
            """)
        let report = try migrate()
        #expect(report.applied.map(\.file) == ["20240101000002_index.sql"])

        // On a database without them the set is still refused before anything runs.
        let other = directory.file("empty.db")
        var options = Migrator.Options(databasePath: other, migrationsDirectory: migrations)
        options.create = true
        #expect(throws: StewardError.self) { try Migrator(options: options).run() }
        #expect(!FileManager.default.fileExists(atPath: other))
    }

    // MARK: - Statements

    static let rebuild = """
        -- The 12-step table rebuild of https://sqlite.org/lang_altertable.html
        PRAGMA foreign_keys=OFF;
        BEGIN TRANSACTION;
        CREATE TABLE new_author(id INTEGER PRIMARY KEY, name TEXT NOT NULL, born INTEGER);
        INSERT INTO new_author(id, name) SELECT id, name FROM author WHERE %@;
        DROP TABLE author;
        ALTER TABLE new_author RENAME TO author;
        CREATE INDEX author_name ON author(name);
        PRAGMA foreign_key_check;
        COMMIT;
        PRAGMA foreign_keys=ON;
        """

    func authors() throws {
        try write("0001_init.sql", """
            CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE book(id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES author(id), title TEXT);
            """)
        _ = try migrate { $0.create = true; $0.dialect = .steward }
        try Connection(path: database).execute(sql: """
            INSERT INTO author VALUES (1, 'A'), (2, 'B');
            INSERT INTO book VALUES (1, 1, 'x'), (2, 2, 'y');
            """)
    }

    @Test func theTwelveStepRebuildRunsWithItsPragmasAndOuterTransaction() throws {
        try authors()
        try write("0002_rebuild.sql", Self.rebuild.replacingOccurrences(of: "%@", with: "1"))
        let report = try migrate()
        #expect(report.applied.map(\.file) == ["0002_rebuild.sql"])
        #expect(report.notes.contains { $0.hasPrefix("0002_rebuild.sql:2: PRAGMA foreign_keys is a no-op") })
        #expect(report.notes.contains { $0.hasPrefix("0002_rebuild.sql:3: the file's outer BEGIN") })
        #expect(report.notes.contains { $0.hasPrefix("0002_rebuild.sql:11: PRAGMA foreign_keys is a no-op") })
        let connection = try Connection(path: database)
        #expect(try connection.integer(sql: "SELECT count(*) FROM pragma_table_info('author') WHERE name = 'born'") == 1)
        #expect(try connection.integer(sql: "SELECT count(*) FROM book") == 2)
        #expect(try integrityOK())
    }

    @Test func aRebuildThatWouldOrphanRowsFails() throws {
        try authors()
        try write("0002_rebuild.sql", Self.rebuild.replacingOccurrences(of: "%@", with: "id = 1"))
        let before = try bytes()
        // The guard sees the lost author first.
        let error = try failure()
        #expect(error.kind == .checkFailed)
        #expect(error.message.contains("table author lost 1 of its 2 rows"), "\(error.message)")
        #expect(try bytes() == before)
        // Allowed, the orphaned book is still refused by the foreign-key comparison.
        try write("0002_rebuild.sql", "-- steward: allow row-loss author\n" + Self.rebuild.replacingOccurrences(of: "%@", with: "id = 1"))
        let orphan = try failure()
        #expect(orphan.kind == .checkFailed)
        #expect(orphan.message.contains("foreign key"), "\(orphan.message)")
        #expect(try bytes() == before)
    }

    @Test(arguments: [
        ("BEGIN;\nCREATE TABLE t(x);\nCOMMIT;\nCREATE TABLE u(x);\n", "0002_x.sql:4: a statement after the COMMIT on line 3"),
        ("BEGIN;\nCREATE TABLE t(x);\n", "0002_x.sql:1: BEGIN without a COMMIT"),
        ("CREATE TABLE t(x);\nBEGIN;\nCOMMIT;\n", "0002_x.sql:2: BEGIN cannot run inside"),
    ])
    func otherTransactionStatementsStayRefused(sql: String, message: String) throws {
        try authors()
        try write("0002_x.sql", sql)
        let before = try bytes()
        let error = try failure()
        #expect(error.kind == .badInput)
        #expect(error.message.contains(message), "\(error.message)")
        #expect(try bytes() == before)
    }

    // MARK: - Baselines

    func baselineSet() throws {
        try directory.declareLayout()
        try write("0001_ticket.sql", """
            CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT NOT NULL, status TEXT);
            CREATE INDEX ticket_status ON ticket(status);
            """)
        try write("0002_audit.sql", """
            CREATE TABLE audit(id INTEGER PRIMARY KEY, ticket_id INTEGER, at TEXT);
            CREATE TRIGGER ticket_audit AFTER UPDATE ON ticket BEGIN
                INSERT INTO audit(ticket_id, at) VALUES (new.id, datetime('now'));
            END;
            """)
        try write("0003_email.sql", "ALTER TABLE ticket ADD email TEXT;\n")
    }

    /// A database made elsewhere with the schema of version 2, written differently
    /// (quoting, case, whitespace), and rows.
    func legacyDatabase(_ change: (String) -> String = { $0 }) throws {
        let schema = """
            create table "ticket" ( id integer primary key,  title text not null, status text );
            CREATE  INDEX ticket_status ON "ticket"(status);
            CREATE TABLE audit (id INTEGER PRIMARY KEY, ticket_id INTEGER, at TEXT);
            CREATE TRIGGER ticket_audit AFTER UPDATE ON ticket BEGIN
              INSERT INTO audit(ticket_id, at) VALUES (new.id, datetime('now'));
            END;
            INSERT INTO ticket(title, status) VALUES ('private title', 'open');
            """
        try Connection(path: database).execute(sql: change(schema))
    }

    @Test func aMatchingDatabaseIsAdoptedAtItsBaseline() throws {
        try baselineSet()
        try legacyDatabase()
        let status = try migrate { $0.statusOnly = true }
        #expect(status.schemaMatches == "2")
        let report = try migrate { $0.baseline = 2 }
        #expect(report.applied.map(\.file) == ["0003_email.sql"])
        #expect(report.notes.contains { $0.hasPrefix("adopted at baseline 2") })
        #expect(try Connection(path: database).userVersion() == 3)
        #expect(try integrityOK())
    }

    @Test(arguments: [
        ("status text )", "status text, email2 text )", "table ticket: column email2 extra"),
        ("CREATE  INDEX ticket_status ON \"ticket\"(status);", "", "index ticket_status missing"),
        ("datetime('now')", "'never'", "trigger ticket_audit differs"),
    ])
    func aDriftedDatabaseIsRefusedNamingTheDifference(old: String, new: String, difference: String) throws {
        try baselineSet()
        try legacyDatabase { $0.replacingOccurrences(of: old, with: new) }
        let before = try bytes()
        let error = try failure { $0.baseline = 2 }
        #expect(error.kind == .badInput)
        #expect(error.message.contains(difference), "\(error.message)")
        #expect(!error.message.contains("private title"))
        #expect(try bytes() == before)
    }

    // MARK: - Ledgers pre-filled as their runners write them

    @Test func aFlywayDatabaseIsContinuedAtTheNextRank() throws {
        try write("V1__init.sql", "CREATE TABLE a(id INTEGER PRIMARY KEY);\n")
        try write("V1_1__more.sql", "CREATE TABLE b(id INTEGER PRIMARY KEY);\n")
        try write("V2__last.sql", "CREATE TABLE c(id INTEGER PRIMARY KEY);\n")
        let connection = try Connection(path: database)
        // flyway-core SQLiteDatabase.getRawCreateScript, and the rows Flyway writes.
        try connection.execute(sql: """
            CREATE TABLE "main"."flyway_schema_history" ("installed_rank" INT NOT NULL PRIMARY KEY, "version" VARCHAR(50),
              "description" VARCHAR(200) NOT NULL, "type" VARCHAR(20) NOT NULL, "script" VARCHAR(1000) NOT NULL,
              "checksum" INT, "installed_by" VARCHAR(100) NOT NULL,
              "installed_on" TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f','now')),
              "execution_time" INT NOT NULL, "success" BOOLEAN NOT NULL);
            CREATE INDEX "main"."flyway_schema_history_s_idx" ON "flyway_schema_history" ("success");
            CREATE TABLE a(id INTEGER PRIMARY KEY);
            CREATE TABLE b(id INTEGER PRIMARY KEY);
            """)
        let crc = "(lambda c: c - (1 << 32) if c >= (1 << 31) else c)(zlib.crc32(b''.join(data.splitlines())))"
        for (rank, version, description, script) in [(1, "1", "init", "V1__init.sql"), (2, "1.1", "more", "V1_1__more.sql")] {
            let checksum = Int64(try python(crc, file: script)) ?? 0
            try connection.execute(
                sql: "INSERT INTO flyway_schema_history VALUES (?, ?, ?, 'SQL', ?, ?, '', '2024-01-01 00:00:00.000', 5, 1)",
                bindings: [.integer(Int64(rank)), .text(version), .text(description), .text(script), .integer(checksum)])
        }
        let report = try migrate()
        #expect(report.dialect == .flyway)
        #expect(report.applied.map(\.file) == ["V2__last.sql"])
        #expect(try connection.rows(sql: "SELECT installed_rank, version, description, type, installed_by, success FROM flyway_schema_history WHERE script = 'V2__last.sql'")
                == [[.integer(3), .text("2"), .text("last"), .text("SQL"), .text(""), .integer(1)]])

        // A failed row is Flyway's dirty state.
        try connection.execute(sql: "UPDATE flyway_schema_history SET success = 0 WHERE installed_rank = 3")
        let before = try bytes()
        #expect(try failure().message.contains("flyway repair"))
        #expect(try bytes() == before)
    }

    @Test func aDieselDatabaseIsContinued() throws {
        try write("2024-01-01-000000_users/up.sql", "CREATE TABLE users(id INTEGER PRIMARY KEY);\n")
        try write("2024-01-02-000000_posts/up.sql", "CREATE TABLE posts(id INTEGER PRIMARY KEY);\n")
        try Connection(path: database).execute(sql: """
            CREATE TABLE IF NOT EXISTS __diesel_schema_migrations (
                   version VARCHAR(50) PRIMARY KEY NOT NULL,
                   run_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP);
            CREATE TABLE users(id INTEGER PRIMARY KEY);
            INSERT INTO __diesel_schema_migrations (version) VALUES ('20240101000000');
            """)
        let report = try migrate()
        #expect(report.applied.map(\.file) == ["2024-01-02-000000_posts/up.sql"])
        #expect(try Connection(path: database).userVersion() == 2)
    }

    @Test func userVersionAppliedByStewardIsBackfilledIntoANewLedger() throws {
        try write("1_a.sql", "CREATE TABLE a(x);\n")
        try write("2_b.sql", "CREATE TABLE b(x);\n")
        _ = try migrate { $0.create = true; $0.targetVersion = 1; $0.dialect = .steward }
        let report = try migrate { $0.dialect = .sqlx }
        #expect(report.ledger?.backfilled == ["1_a.sql"])
        #expect(report.applied.map(\.file) == ["2_b.sql"])
        let expected = try python("hashlib.sha384(data).hexdigest()", file: "1_a.sql")
        #expect(try Connection(path: database).rows(sql: "SELECT version, lower(hex(checksum)) FROM _sqlx_migrations ORDER BY version")
                .first == [.integer(1), .text(expected)])
    }

    // MARK: - verify

    @Test func verifyExpectsTheUserVersionOfTheSetsLayout() throws {
        try write("20240101000001_a.sql", "-- +goose Up\nCREATE TABLE a(x);\n-- +goose Down\nDROP TABLE a;\n")
        try write("20240101000002_b.sql", "-- +goose Up\nCREATE TABLE b(x);\n-- +goose Down\nDROP TABLE b;\n")
        _ = try migrate { $0.create = true }
        var options = Verifier.Options(databasePath: database)
        options.migrationsDirectory = migrations
        options.contractPath = nil
        let report = try Verifier(options: options).run()
        let version = try #require(report.checks.first { $0.name.rawValue == "version" })
        #expect(version.status == .pass, "\(version)")
        #expect(version.summary.contains("records version 20240101000002, the newest of the set (2 of 2"), "\(version.summary)")
        let ledger = try #require(report.checks.first { $0.name.rawValue == "ledger" })
        #expect(ledger.status == .pass, "\(ledger)")
        #expect(report.passed)

        // goose took the newest back: its ledger is the record (issue 26). The ledger agrees
        // with the files, user_version is the mirror out of line, and the version is behind.
        try Connection(path: database).execute(sql: "DELETE FROM goose_db_version WHERE version_id = 20240101000002")
        let behind = try Verifier(options: options).run()
        let consistent = try #require(behind.checks.first { $0.name.rawValue == "ledger" })
        #expect(consistent.status == .pass, "\(consistent)")
        #expect(consistent.summary.contains("user_version 2 is Steward's mirror of it, out of line (1)"), "\(consistent.summary)")
        let at = try #require(behind.checks.first { $0.name.rawValue == "version" })
        #expect(at.status == .fail)
        #expect(at.summary == "goose_db_version records version 20240101000001, expected 20240101000002, the newest of the set (1 of 2 migrations applied)", "\(at.summary)")
        #expect(!behind.passed)
    }

    @Test func verifySkipsTheLedgerCheckForStewardsOwnLayout() throws {
        try write("0001_a.sql", "CREATE TABLE a(x);\n")
        _ = try migrate { $0.create = true; $0.dialect = .steward }
        var options = Verifier.Options(databasePath: database)
        options.migrationsDirectory = migrations
        let report = try Verifier(options: options).run()
        #expect(report.checks.first { $0.name.rawValue == "ledger" }?.status == .skipped)
        #expect(report.passed)
    }
}
