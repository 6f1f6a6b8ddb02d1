import SQLiteKit

/// The table a migration runner keeps in the database to know what it has applied. Steward
/// reads it to know what is applied, and writes, for each migration it applies, the row that
/// runner would write, in the same transaction: afterwards the runner finds nothing to do.
protocol MigrationLedger: Sendable {
    var dialect: Dialect { get }
    /// Creates the table (and what the runner writes with it) when it does not exist.
    func create(on connection: Connection) throws
    /// What the table says about `migrations`.
    func read(on connection: Connection, migrations: [DialectMigration]) throws -> LedgerReading
    /// Records one applied migration, as the runner would right after running it.
    func record(_ migration: DialectMigration, executionSeconds: Double, on connection: Connection) throws
    /// Called once after the last migration of a run (golang-migrate keeps one row).
    func finish(newest: DialectMigration?, on connection: Connection) throws
}

extension MigrationLedger {
    func finish(newest: DialectMigration?, on connection: Connection) throws {}

    var table: String { dialect.ledgerTable ?? "" }

    func exists(on connection: Connection) throws -> Bool {
        try Ledgers.tableExists(table, on: connection)
    }
}

/// The ledgers by dialect, and which of them a database has.
public enum Ledgers {
    static func ledger(for dialect: Dialect) -> (any MigrationLedger)? {
        switch dialect {
        case .steward: nil
        case .sqlx: SqlxLedger()
        case .goose: GooseLedger()
        case .golangMigrate: GolangMigrateLedger()
        case .dbmate: DbmateLedger()
        case .diesel: DieselLedger()
        case .drizzle: DrizzleLedger()
        case .flyway: FlywayLedger()
        }
    }

    /// A ledger that records only each applied version, as the text `sql`'s one column
    /// holds it (dbmate, diesel): which of the set's files it names, and what else.
    static func readTextVersions(sql: String, on connection: Connection, migrations: [DialectMigration]) throws -> LedgerReading {
        var reading = LedgerReading()
        let byText = Dictionary(migrations.map { ($0.ledgerVersion, $0) }, uniquingKeysWith: { first, _ in first })
        try connection.forEachRow(sql: sql) { row in
            let version = row.text(at: 0) ?? ""
            reading.rows += 1
            if let migration = byText[version] {
                reading.applied.insert(migration.version)
            } else {
                reading.unknown.append(version)
            }
        }
        return reading
    }

    static func tableExists(_ name: String, on connection: Connection) throws -> Bool {
        try connection.integer(
            sql: "SELECT count(*) FROM main.sqlite_schema WHERE type = 'table' AND name = ?1", bindings: [.text(name)]) > 0
    }

    /// The runners whose ledger table the database has. `schema_migrations` is
    /// golang-migrate's when it has a `dirty` column, dbmate's otherwise.
    public static func present(on connection: Connection) throws -> Set<Dialect> {
        var found = Set<Dialect>()
        for dialect in Dialect.allCases {
            guard let table = dialect.ledgerTable, try tableExists(table, on: connection) else { continue }
            if table == "schema_migrations" {
                let hasDirty = try connection.integer(
                    sql: "SELECT count(*) FROM pragma_table_info('schema_migrations') WHERE name = 'dirty'") > 0
                if hasDirty != (dialect == .golangMigrate) { continue }
            }
            found.insert(dialect)
        }
        return found
    }
}

/// What a ledger says about the set's migrations.
public struct LedgerReading: Sendable, Equatable {
    /// An applied migration whose file is no longer what was applied.
    public struct Change: Sendable, Equatable, Codable {
        public let file: String
        /// Only the line endings differ (CRLF against LF).
        public let lineEndingsOnly: Bool
    }

    /// The versions of the set's files that the ledger records as applied.
    public var applied: Set<VersionKey> = []
    /// Versions the ledger records that no file of the set has, as the ledger writes them.
    public var unknown: [String] = []
    public var changed: [Change] = []
    /// Why the ledger says a run stopped half way, with how to recover; nil when it does not.
    public var dirty: String?
    /// The number of rows that record an applied migration.
    public var rows = 0
}

/// The two line-ending forms of a file's bytes, to tell a changed file from one whose line
/// endings were converted (by git's autocrlf, or an editor).
enum LineEndings {
    /// Every CRLF read as LF.
    static func unix(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A {
                index += 1
                continue
            }
            result.append(bytes[index])
            index += 1
        }
        return result
    }

    /// Every LF written as CRLF (after reading CRLF as LF, so none is doubled).
    static func windows(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + bytes.count / 16)
        for byte in unix(bytes) {
            if byte == 0x0A { result.append(0x0D) }
            result.append(byte)
        }
        return result
    }
}
