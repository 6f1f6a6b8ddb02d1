import SQLiteKit

/// What `verify --migrations` expects of a database migrated with a set, in whichever
/// runner's layout the set is (as `migrate` detects it): the `user_version` once every
/// migration is applied, and the set itself when it is in Steward's own layout (the search
/// contract builds its databases from that one).
struct MigrationExpectation: Sendable {
    let dialect: Dialect
    let newestUserVersion: Int32
    let stewardSet: MigrationSet?
    /// The set in its runner's layout, for the ledger check (nil for Steward's own).
    let dialectSet: DialectSet?

    init(directory: String, databasePath: String?) throws {
        // verify writes nothing: a set several runners read alike is read in Steward's own
        // layout, as it always was (only a run that writes must not guess).
        let detection = try DialectSet.detect(
            directory: directory, records: { DialectSet.DatabaseRecords(ledgers: Self.ledgers(of: databasePath)) },
            whenAmbiguous: .stewardsOwn)
        dialect = detection.dialect
        if dialect == .steward {
            let set = try MigrationSet(directory: directory)
            stewardSet = set
            dialectSet = nil
            newestUserVersion = set.newestVersion
        } else {
            // The SQL is not run here, so Flyway placeholders stay as written.
            let set = try DialectSet(directory: directory, dialect: dialect, placeholders: nil)
            stewardSet = nil
            dialectSet = set
            newestUserVersion = LedgerPlan.userVersion(for: set.migrations, rule: LedgerPlan.rule(for: set.migrations))
        }
    }

    /// The `ledger` check: the files and the runner's ledger agree, and the applied files are
    /// the ones the ledger recorded (checksums), as `migrate` requires before it runs. The
    /// ledger is the record: a `user_version` out of line with it is Steward's mirror,
    /// which the next `migrate` that writes rewrites, and is said, not failed. Nil when the
    /// set has no ledger (Steward's own layout).
    func checkLedger(on connection: Connection) throws -> (Bool, String, [String])? {
        guard let set = dialectSet, let ledger = Ledgers.ledger(for: set.dialect) else { return nil }
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
        let mirror = plan.mirrorOutOfLine
            ? "; user_version \(userVersion) is Steward's mirror of it, out of line (\(plan.recordedUserVersion)) until the next migrate that writes"
            : " and user_version"
        return (true, "\(ledger.table) agrees with the files\(mirror): \(plan.applied.count) applied, \(plan.pending.count) pending", [])
    }

    /// The `version` check where the runner's ledger is the record (the set has one and the
    /// database keeps it): every migration of the set applied. Nil otherwise, when
    /// `user_version` is the record.
    func checkVersionFromLedger(on connection: Connection) throws -> (Bool, String, [String])? {
        guard let set = dialectSet, let ledger = Ledgers.ledger(for: set.dialect), try ledger.exists(on: connection) else {
            return nil
        }
        let reading = try ledger.read(on: connection, migrations: set.migrations)
        let plan: LedgerPlan
        do {
            plan = try LedgerPlan(set: set, reading: reading, userVersion: try connection.userVersion(), options: .init())
        } catch let error as StewardError {
            return (false, error.message, [])
        }
        let newest = set.migrations.last?.ledgerVersion ?? ""
        let at = plan.applied.last.map { "version \($0.ledgerVersion)" } ?? "no migration applied"
        let counts = "\(plan.applied.count) of \(set.migrations.count) migrations applied"
        return plan.pending.isEmpty
            ? (true, "\(ledger.table) records version \(newest), the newest of the set (\(counts))", [])
            : (false, "\(ledger.table) records \(at), expected \(newest), the newest of the set (\(counts))", [])
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
