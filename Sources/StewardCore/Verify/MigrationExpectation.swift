import SQLiteKit
import StewardBase

/// What `verify --migrations` expects of a database migrated with a set, in whichever
/// runner's layout the set is (named, or detected as `migrate` detects it): the
/// `user_version` once every migration is applied, and the set itself, read by the reader
/// `migrate` uses, for the ledger and schema checks and the search contract's databases.
struct MigrationExpectation: Sendable {
    let dialect: Dialect
    let newestUserVersion: Int32
    let set: DialectSet

    init(directory: String, dialect chosen: Dialect? = nil, databasePath: String?) throws {
        // verify writes nothing: a set several runners read alike is read in Steward's own
        // layout, as it always was (only a run that writes must not guess).
        let dialect = try chosen ?? DialectSet.detect(
            directory: directory, records: { DialectSet.DatabaseRecords(ledgers: Self.ledgers(of: databasePath)) },
            whenAmbiguous: .stewardsOwn).dialect
        self.dialect = dialect
        // The SQL is not run here, so Flyway placeholders stay as written.
        set = try DialectSet(directory: directory, dialect: dialect, placeholders: nil)
        newestUserVersion = LedgerPlan.userVersion(for: set.migrations, rule: LedgerPlan.rule(for: set.migrations))
    }

    /// Whether the layout keeps a ledger table (every runner's but Steward's own).
    var hasLedger: Bool { Ledgers.ledger(for: dialect) != nil }

    /// The `ledger` check: the files and the runner's ledger agree, and the applied files are
    /// the ones the ledger recorded (checksums), as `migrate` requires before it runs. The
    /// ledger is the record: a `user_version` out of line with it is Steward's mirror,
    /// which the next `migrate` that writes rewrites, and is said, not failed. Nil when the
    /// set has no ledger (Steward's own layout).
    func checkLedger(on connection: Connection) throws -> Check? {
        guard let ledger = Ledgers.ledger(for: set.dialect) else { return nil }
        guard try ledger.exists(on: connection) else {
            return Check(.ledger, passed: false, "no \(ledger.table): \(set.dialect.rawValue) would apply every migration again", [])
        }
        let reading = try ledger.read(on: connection, migrations: set.migrations)
        let userVersion = try connection.userVersion()
        let plan: LedgerPlan
        do {
            plan = try LedgerPlan(set: set, reading: reading, userVersion: userVersion, options: .init())
        } catch let error as StewardError {
            return Check(.ledger, passed: false, error.message, [])
        }
        let mirror = plan.mirrorOutOfLine
            ? "; user_version \(userVersion) is Steward's mirror of it, out of line (\(plan.recordedUserVersion)) until the next migrate that writes"
            : " and user_version"
        return Check(.ledger, passed: true, "\(ledger.table) agrees with the files\(mirror): \(plan.applied.count) applied, \(plan.pending.count) pending", [])
    }

    /// The `version` check where the runner's ledger is the record (the set has one and the
    /// database keeps it): every migration of the set applied. Nil otherwise, when
    /// `user_version` is the record.
    func checkVersionFromLedger(on connection: Connection) throws -> Check? {
        guard let ledger = Ledgers.ledger(for: set.dialect), try ledger.exists(on: connection) else {
            return nil
        }
        let reading = try ledger.read(on: connection, migrations: set.migrations)
        let plan: LedgerPlan
        do {
            plan = try LedgerPlan(set: set, reading: reading, userVersion: try connection.userVersion(), options: .init())
        } catch let error as StewardError {
            return Check(.version, passed: false, error.message, [])
        }
        let newest = set.migrations.last?.ledgerVersion ?? ""
        let at = plan.applied.last.map { "version \($0.ledgerVersion)" } ?? "no migration applied"
        let counts = "\(plan.applied.count) of \(Counted.phrase(set.migrations.count, "migration")) applied"
        return plan.pending.isEmpty
            ? Check(.version, passed: true, "\(ledger.table) records version \(newest), the newest of the set (\(counts))", [])
            : Check(.version, passed: false, "\(ledger.table) records \(at), expected \(newest), the newest of the set (\(counts))", [])
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
