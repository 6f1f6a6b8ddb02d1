/// The migration runner whose layout a set follows and whose ledger table records what is
/// applied. `steward` is Steward's own: `NNNN_name.sql` and `user_version`, no ledger table.
public enum Dialect: String, CaseIterable, Codable, Sendable {
    case steward
    case golangMigrate = "golang-migrate"
    case sqlx
    case goose
    case dbmate
    case diesel
    case drizzle
    case flyway

    /// The names accepted by `--dialect`, in the order the help lists them.
    public static var names: [String] { allCases.map(\.rawValue) }

    /// The ledger table the runner keeps in the database, or nil for Steward's own layout.
    public var ledgerTable: String? {
        switch self {
        case .steward: nil
        case .golangMigrate, .dbmate: "schema_migrations"
        case .sqlx: "_sqlx_migrations"
        case .goose: "goose_db_version"
        case .diesel: "__diesel_schema_migrations"
        case .drizzle: "__drizzle_migrations"
        case .flyway: "flyway_schema_history"
        }
    }

    /// Whether the runner's ledger can record a migration applied below the newest one.
    /// golang-migrate keeps a single row and drizzle compares with its newest `created_at`,
    /// so a file older than the newest applied one would be invisible to them.
    public var canRecordOutOfOrder: Bool {
        switch self {
        case .golangMigrate, .drizzle: false
        default: true
        }
    }
}

/// One migration of a set in a runner's layout: what runs (the up part only), and what the
/// runner's ledger records about it.
public struct DialectMigration: Sendable, Equatable {
    /// The version as the runner orders it.
    public let version: VersionKey
    /// The version as the runner writes it into its ledger (`20240101120000`, `1.1`), or
    /// drizzle's tag.
    public let ledgerVersion: String
    /// The file, relative to the set's directory (`0001_x.sql`, `2021-01-01-000000_x/up.sql`).
    public let fileName: String
    public let path: String
    /// The runner's description: sqlx and Flyway derive it from the name, `_` read as spaces.
    public let description: String
    /// The file's bytes exactly as read, for the runners' checksums.
    public let bytes: [UInt8]
    /// The SQL that runs: the up part, with every other line blanked so that line numbers in
    /// messages are the file's own.
    public let upSQL: String
    /// drizzle's `when` from `meta/_journal.json` (milliseconds), which its ledger records.
    public let journalWhen: Int64?

    public init(
        version: VersionKey, ledgerVersion: String, fileName: String, path: String, description: String,
        bytes: [UInt8], upSQL: String, journalWhen: Int64? = nil
    ) {
        self.version = version
        self.ledgerVersion = ledgerVersion
        self.fileName = fileName
        self.path = path
        self.description = description
        self.bytes = bytes
        self.upSQL = upSQL
        self.journalWhen = journalWhen
    }
}
