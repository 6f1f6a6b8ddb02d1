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
