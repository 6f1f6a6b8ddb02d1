import SQLiteKit

/// What `verify --migrations` expects of a database migrated with a set, in whichever
/// runner's layout the set is (named, or detected as `migrate` detects it): the
/// `user_version` once every migration is applied, and the set itself, read by the reader
/// `migrate` uses, for the ledger and schema checks and the search contract's databases.
struct MigrationExpectation: Sendable {
    let dialect: Dialect
    let newestUserVersion: Int32
    let set: DialectSet

    init(directory: String, dialect chosen: Dialect? = nil, databasePath: String?) throws {
        let dialect = try chosen ?? DialectSet.detect(directory: directory) { Self.ledgers(of: databasePath) }.dialect
        self.dialect = dialect
        if dialect == .steward {
            // Steward's own layout is read by `MigrationSet`, whose refusals stand, as in migrate.
            set = DialectSet(steward: try MigrationSet(directory: directory))
        } else {
            set = try DialectSet(directory: directory, dialect: dialect)
        }
        newestUserVersion = LedgerPlan.userVersion(for: set.migrations, rule: LedgerPlan.rule(for: set.migrations))
    }

    /// Whether the layout keeps a ledger table (every runner's but Steward's own).
    var hasLedger: Bool { Ledgers.ledger(for: dialect) != nil }

    /// The `ledger` check: the files, the runner's ledger and `user_version` agree, and the
    /// applied files are the ones the ledger recorded (checksums), as `migrate` requires
    /// before it runs. Nil when the set has no ledger (Steward's own layout).
    func checkLedger(on connection: Connection) throws -> (Bool, String, [String])? {
        guard let ledger = Ledgers.ledger(for: set.dialect) else { return nil }
        guard try ledger.exists(on: connection) else {
            return (false, "no \(ledger.table): \(set.dialect.rawValue) would apply every migration again", [])
        }
        let reading = try ledger.read(on: connection, migrations: set.migrations)
        let userVersion = try connection.userVersion()
        let plan: LedgerPlan
        do {
            plan = try LedgerPlan(set: set, reading: reading, userVersion: userVersion, options: .init())
        } catch let error as StewardError {
            return (false, error.message, [])
        }
        let expected = LedgerPlan.userVersion(for: plan.applied, rule: plan.rule)
        if userVersion != expected {
            return (false, "user_version is \(userVersion), but \(ledger.table) records \(plan.applied.count) applied migrations, which means \(expected)", [])
        }
        return (true, "\(ledger.table) agrees with the files and user_version: \(plan.applied.count) applied, \(plan.pending.count) pending", [])
    }

    /// The ledger tables of the database, read-only; none when it cannot be read (the
    /// checks report why).
    static func ledgers(of path: String?) -> Set<Dialect> {
        guard let path, let probe = try? DatabaseFile(path: path), probe.size > 0,
              let header = try? DatabaseHeader(bytes: probe.headerBytes),
              let connection = try? DatabaseFile.openReadOnly(path: path, header: header)
        else { return [] }
        return (try? Ledgers.present(on: connection)) ?? []
    }
}
