import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// Each runner's ledger, pre-filled as that runner writes it, with checksums computed
/// independently in Python (hashlib, zlib), never with Steward's code.
@Suite struct LedgerTests: MigrationSetSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace() }

    func hexBytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    func makePlan(_ set: DialectSet, _ connection: Connection, options: LedgerPlan.Options = .init()) throws -> LedgerPlan {
        let ledger = try #require(Ledgers.ledger(for: set.dialect))
        let reading = try ledger.read(on: connection, migrations: set.migrations)
        return try LedgerPlan(set: set, reading: reading, userVersion: try connection.userVersion(), options: options)
    }

    // MARK: - sqlx

    @Test func sqlxChecksumsAndRows() throws {
        try write("20240101120000_create_users.sql", "CREATE TABLE users(id INTEGER PRIMARY KEY);\n")
        try write("20240102120000_add_email.sql", "ALTER TABLE users ADD email TEXT;\r\n")
        try write("20240103120000_add_index.sql", "CREATE INDEX users_email ON users(email);\n")
        let set = try DialectSet(directory: migrations, dialect: .sqlx)
        let connection = try Connection.inMemory()
        try SqlxLedger().create(on: connection)
        // Pre-filled as sqlx writes it, checksums from Python.
        for name in ["20240101120000_create_users.sql", "20240102120000_add_email.sql"] {
            let checksum = hexBytes(try python("hashlib.sha384(data).hexdigest()", file: name))
            let version = Int64(name.prefix(14)) ?? 0
            try connection.execute(
                sql: "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (?1, ?2, TRUE, ?3, -1)",
                bindings: [.integer(version), .text("x"), .blob(checksum)])
        }
        let plan = try makePlan(set, connection)
        #expect(plan.applied.map(\.fileName) == ["20240101120000_create_users.sql", "20240102120000_add_email.sql"])
        #expect(plan.pending.map(\.fileName) == ["20240103120000_add_index.sql"])
        #expect(plan.rule == .appliedCount)

        // The row Steward writes has sqlx's checksum and description.
        let pending = try #require(plan.pending.first)
        try SqlxLedger().record(pending, executionSeconds: 0.0015, on: connection)
        let row = try connection.rows(
            sql: "SELECT description, success, hex(checksum), execution_time FROM _sqlx_migrations WHERE version = 20240103120000")
        #expect(row.first?[0] == .text("add index"))
        #expect(row.first?[1] == .integer(1))
        #expect(row.first?[2].textValue?.lowercased() == (try python("hashlib.sha384(data).hexdigest()", file: pending.fileName)))
        #expect(row.first?[3] == .integer(1_500_000))
    }

    @Test func sqlxChangedFileIsRefusedAndLineEndingsAreNamed() throws {
        try write("1_a.sql", "CREATE TABLE a(x);\n")
        try write("2_b.sql", "CREATE TABLE b(x);\n")
        let connection = try Connection.inMemory()
        try SqlxLedger().create(on: connection)
        for name in ["1_a.sql", "2_b.sql"] {
            let checksum = hexBytes(try python("hashlib.sha384(data).hexdigest()", file: name))
            try connection.execute(
                sql: "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (?1, 'x', TRUE, ?2, 1)",
                bindings: [.integer(Int64(name.prefix(1)) ?? 0), .blob(checksum)])
        }
        try write("1_a.sql", "CREATE TABLE a(x);\r\n")
        try write("2_b.sql", "CREATE TABLE b(x, y);\n")
        let set = try DialectSet(directory: migrations, dialect: .sqlx)
        let error = try #require(throws: StewardError.self) { try makePlan(set, connection) }
        #expect(error.kind == .badInput)
        #expect(error.message.contains("1_a.sql (line endings only), 2_b.sql"))
        var options = LedgerPlan.Options()
        options.allowChanged = true
        #expect(try makePlan(set, connection, options: options).changed.count == 2)
    }

    @Test func sqlxFailedRowIsDirty() throws {
        try write("1_a.sql", "CREATE TABLE a(x);\n")
        let connection = try Connection.inMemory()
        try SqlxLedger().create(on: connection)
        try connection.execute(sql: "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (1, 'a', FALSE, x'00', -1)")
        let set = try DialectSet(directory: migrations, dialect: .sqlx)
        #expect(try #require(throws: StewardError.self) { try makePlan(set, connection) }.message.contains("success = false"))
    }

    // MARK: - goose

    @Test func gooseNewestRowDecides() throws {
        for version in 1...3 { try write("2024010100000\(version)_m.sql", "-- +goose Up\nCREATE TABLE t\(version)(x);\n") }
        let connection = try Connection.inMemory()
        try GooseLedger().create(on: connection)
        #expect(try connection.rows(sql: "SELECT version_id, is_applied FROM goose_db_version") == [[.integer(0), .integer(1)]])
        for (version, applied) in [(20_240_101_000_001, 1), (20_240_101_000_002, 1), (20_240_101_000_002, 0)] as [(Int64, Int64)] {
            try connection.execute(sql: "INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, ?)",
                                   bindings: [.integer(version), .integer(applied)])
        }
        let set = try DialectSet(directory: migrations, dialect: .goose)
        var options = LedgerPlan.Options()
        options.allowOutOfOrder = true
        let plan = try makePlan(set, connection, options: options)
        #expect(plan.applied.map(\.ledgerVersion) == ["20240101000001"])
        #expect(plan.pending.map(\.ledgerVersion) == ["20240101000002", "20240101000003"])
    }

    // MARK: - golang-migrate

    @Test func golangMigrateDirtyFlagIsRefusedWithRecovery() throws {
        for version in 1...2 { try write("\(version)_m.up.sql", "CREATE TABLE t\(version)(x);\n") }
        let connection = try Connection.inMemory()
        try GolangMigrateLedger().create(on: connection)
        try connection.execute(sql: "INSERT INTO schema_migrations (version, dirty) VALUES (1, 1)")
        let set = try DialectSet(directory: migrations, dialect: .golangMigrate)
        let error = try #require(throws: StewardError.self) { try makePlan(set, connection) }
        #expect(error.message.contains("dirty") && error.message.contains("migrate force"))

        try connection.execute(sql: "UPDATE schema_migrations SET dirty = 0")
        let plan = try makePlan(set, connection)
        #expect(plan.applied.map(\.ledgerVersion) == ["1"])
        #expect(plan.rule == .newestVersion)
        try GolangMigrateLedger().finish(newest: plan.pending.last, on: connection)
        #expect(try connection.rows(sql: "SELECT version, dirty FROM schema_migrations") == [[.integer(2), .integer(0)]])
        #expect(try Ledgers.present(on: connection) == [.golangMigrate])
    }

    // MARK: - dbmate and diesel

    @Test func dbmateAndDieselRecordTextVersions() throws {
        try write("20240101000000_a.sql", "-- migrate:up\nCREATE TABLE a(x);\n-- migrate:down\n")
        let connection = try Connection.inMemory()
        try DbmateLedger().create(on: connection)
        #expect(try Ledgers.present(on: connection) == [.dbmate])
        let set = try DialectSet(directory: migrations, dialect: .dbmate)
        try DbmateLedger().record(try #require(set.migrations.first), executionSeconds: 0, on: connection)
        #expect(try connection.rows(sql: "SELECT typeof(version), version FROM schema_migrations")
                == [[.text("text"), .text("20240101000000")]])
        #expect(try makePlan(set, connection).pending.isEmpty)

        let diesel = directory.file("diesel")
        try FileManager.default.createDirectory(atPath: diesel + "/2024-01-01-000000_a", withIntermediateDirectories: true)
        try Data("CREATE TABLE d(x);\n".utf8).write(to: URL(fileURLWithPath: diesel + "/2024-01-01-000000_a/up.sql"))
        let dieselSet = try DialectSet(directory: diesel, dialect: .diesel)
        try DieselLedger().create(on: connection)
        try DieselLedger().record(try #require(dieselSet.migrations.first), executionSeconds: 0, on: connection)
        #expect(try connection.rows(sql: "SELECT version FROM __diesel_schema_migrations") == [[.text("20240101000000")]])
    }

    // MARK: - drizzle

    /// drizzle-orm 0.45.2 hashes the file's text as read, CRLF included.
    @Test func drizzleHashAndCreatedAt() throws {
        try write("0000_init.sql", "CREATE TABLE a(x);\r\n--> statement-breakpoint\r\nCREATE TABLE b(x);\r\n")
        try write("0001_more.sql", "CREATE TABLE c(x);\r\n")
        try write("meta/_journal.json", #"{"entries":[{"idx":0,"when":1700000000000,"tag":"0000_init"},{"idx":1,"when":1700000001000,"tag":"0001_more"}]}"#)
        let set = try DialectSet(directory: migrations, dialect: .drizzle)
        let connection = try Connection.inMemory()
        try DrizzleLedger().create(on: connection)
        let hash = try python("hashlib.sha256(data).hexdigest()", file: "0000_init.sql")
        try connection.execute(sql: "INSERT INTO \"__drizzle_migrations\" (\"hash\", \"created_at\") VALUES(?, ?)",
                               bindings: [.text(hash), .integer(1_700_000_000_000)])
        let plan = try makePlan(set, connection)
        #expect(plan.applied.map(\.fileName) == ["0000_init.sql"])
        #expect(plan.pending.map(\.fileName) == ["0001_more.sql"])
        #expect(plan.rule == .appliedCount)
        try DrizzleLedger().record(try #require(plan.pending.first), executionSeconds: 0, on: connection)
        let expected = try python("hashlib.sha256(data).hexdigest()", file: "0001_more.sql")
        #expect(try connection.rows(sql: "SELECT id, hash, created_at FROM __drizzle_migrations WHERE created_at = 1700000001000")
                == [[.null, .text(expected), .integer(1_700_000_001_000)]])
    }

    /// A ledger row with the hash of the file's LF form: the file's line endings were
    /// converted since it was applied, and that is what the refusal says.
    @Test func drizzleFileWhoseLineEndingsChangedIsNamedSo() throws {
        try write("0000_init.sql", "CREATE TABLE a(x);\r\n")
        try write("meta/_journal.json", #"{"entries":[{"idx":0,"when":1700000000000,"tag":"0000_init"}]}"#)
        let set = try DialectSet(directory: migrations, dialect: .drizzle)
        let connection = try Connection.inMemory()
        try DrizzleLedger().create(on: connection)
        let hash = try python("hashlib.sha256(data.replace(b'\\r\\n', b'\\n')).hexdigest()", file: "0000_init.sql")
        try connection.execute(sql: "INSERT INTO \"__drizzle_migrations\" (\"hash\", \"created_at\") VALUES(?, 1700000000000)",
                               bindings: [.text(hash)])
        let reading = try DrizzleLedger().read(on: connection, migrations: set.migrations)
        #expect(reading.changed == [.init(file: "0000_init.sql", lineEndingsOnly: true)])
    }

    // MARK: - Flyway

    @Test func flywayChecksumIsCRC32OverLines() throws {
        let text = "\u{FEFF}-- comment\r\nCREATE TABLE é(x);\rCREATE TABLE b(x);\n\n"
        try write("V1_1__init_schema.sql", text)
        let set = try DialectSet(directory: migrations, dialect: .flyway)
        let migration = try #require(set.migrations.first)
        // What Java's BufferedReader.readLine and BomFilter do, in Python.
        let expected = try python(
            "(lambda c: c - (1 << 32) if c >= (1 << 31) else c)(zlib.crc32(b''.join(data.decode('utf-8').lstrip('\\ufeff').encode('utf-8').splitlines())))",
            file: "V1_1__init_schema.sql")
        #expect(String(CRC32.flyway(migration.bytes)) == expected)

        let connection = try Connection.inMemory()
        try FlywayLedger().create(on: connection)
        try FlywayLedger().record(migration, executionSeconds: 0.012, on: connection)
        let row = try connection.rows(sql: """
            SELECT installed_rank, version, description, type, script, checksum, installed_by, execution_time, success
            FROM flyway_schema_history
            """)
        #expect(row == [[.integer(1), .text("1.1"), .text("init schema"), .text("SQL"), .text("V1_1__init_schema.sql"),
                         .integer(Int64(expected) ?? 0), .text(""), .integer(12), .integer(1)]])
        #expect(try makePlan(set, connection).pending.isEmpty)
    }

    /// Flyway checksums a versioned migration as written, before its placeholders are
    /// replaced (SqlMigrationResolver), and records a file in a subdirectory by its path
    /// under the location.
    @Test func flywayChecksumIsOfTheFileAsWrittenNotItsPlaceholders() throws {
        try write("2024/V2__settings.sql", "INSERT INTO settings VALUES ('scan', ${scan});\n")
        let set = try DialectSet(directory: migrations, dialect: .flyway, placeholders: FlywayPlaceholders(["scan": "false"]))
        let migration = try #require(set.migrations.first)
        #expect(migration.upSQL == "INSERT INTO settings VALUES ('scan', false);\n")
        let expected = try python(
            "(lambda c: c - (1 << 32) if c >= (1 << 31) else c)(zlib.crc32(b''.join(data.splitlines())))", file: "2024/V2__settings.sql")
        let connection = try Connection.inMemory()
        try FlywayLedger().create(on: connection)
        try FlywayLedger().record(migration, executionSeconds: 0, on: connection)
        #expect(try connection.rows(sql: "SELECT script, checksum FROM flyway_schema_history")
                == [[.text("2024/V2__settings.sql"), .integer(Int64(expected) ?? 0)]])
    }

    @Test func crc32MatchesZlib() throws {
        try write("bytes.bin", "The quick brown fox jumps over the lazy dog")
        let expected = try python("zlib.crc32(data)", file: "bytes.bin")
        #expect(String(CRC32.checksum(Array("The quick brown fox jumps over the lazy dog".utf8))) == expected)
    }

    // MARK: - Plans

    @Test func outOfOrderIsRefusedUnlessAllowed() throws {
        for version in [1, 2, 3] { try write("\(version)_m.sql", "-- migrate:up\nCREATE TABLE t\(version)(x);\n-- migrate:down\n") }
        let set = try DialectSet(directory: migrations, dialect: .dbmate)
        let connection = try Connection.inMemory()
        try DbmateLedger().create(on: connection)
        for version in ["1", "3"] {
            try connection.execute(sql: "insert into schema_migrations (version) values (?)", bindings: [.text(version)])
        }
        let error = try #require(throws: StewardError.self) { try makePlan(set, connection) }
        #expect(error.message.contains("2_m.sql") && error.remedy == .allowOutOfOrder(count: 1))
        var options = LedgerPlan.Options()
        options.allowOutOfOrder = true
        #expect(try makePlan(set, connection, options: options).outOfOrder.map(\.fileName) == ["2_m.sql"])
    }

    @Test func ledgerRowsWithoutFilesAreRefusedAndUserVersionFollowsTheLedger() throws {
        try write("1_m.sql", "-- migrate:up\nCREATE TABLE t(x);\n-- migrate:down\n")
        try write("2_n.sql", "-- migrate:up\nCREATE TABLE u(x);\n-- migrate:down\n")
        let set = try DialectSet(directory: migrations, dialect: .dbmate)
        let connection = try Connection.inMemory()
        try DbmateLedger().create(on: connection)
        try connection.execute(sql: "insert into schema_migrations (version) values ('1')")
        // Ahead of the ledger is what the runner leaves when it rolled back since (issue 26):
        // the ledger is the record, user_version only Steward's mirror of it.
        try connection.setUserVersion(7)
        let ahead = try makePlan(set, connection)
        #expect(ahead.applied.map(\.fileName) == ["1_m.sql"])
        #expect(ahead.pending.map(\.fileName) == ["2_n.sql"])
        #expect(ahead.mirrorOutOfLine && ahead.recordedUserVersion == 1)
        try connection.setUserVersion(1)
        #expect(try makePlan(set, connection).mirrorOutOfLine == false)
        // Behind the ledger is what the runner leaves when it applied migrations since.
        try connection.setUserVersion(0)
        let behind = try makePlan(set, connection)
        #expect(behind.pending.map(\.fileName) == ["2_n.sql"])
        #expect(behind.mirrorOutOfLine)
        try connection.execute(sql: "insert into schema_migrations (version) values ('9')")
        #expect(try #require(throws: StewardError.self) { try makePlan(set, connection) }.message.contains("no file"))
    }
}
