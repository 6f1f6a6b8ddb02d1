import SQLiteKit

/// What `verify --migrations` expects of a database migrated with a set, in whichever
/// runner's layout the set is (as `migrate` detects it): the `user_version` once every
/// migration is applied, and the set itself when it is in Steward's own layout (the search
/// contract builds its databases from that one).
struct MigrationExpectation {
    let dialect: Dialect
    let newestUserVersion: Int32
    let stewardSet: MigrationSet?

    init(directory: String, databasePath: String?) throws {
        let detection = try DialectSet.detect(directory: directory) { Self.ledgers(of: databasePath) }
        dialect = detection.dialect
        if dialect == .steward {
            let set = try MigrationSet(directory: directory)
            stewardSet = set
            newestUserVersion = set.newestVersion
        } else {
            let set = try DialectSet(directory: directory, dialect: dialect)
            stewardSet = nil
            newestUserVersion = LedgerPlan.userVersion(for: set.migrations, rule: LedgerPlan.rule(for: set.migrations))
        }
    }

    /// The ledger tables of the database, read-only; none when it cannot be read (the
    /// checks report why).
    private static func ledgers(of path: String?) -> Set<Dialect> {
        guard let path, let probe = try? FileProbe(path: path), probe.size > 0,
              let header = try? DatabaseHeader(bytes: probe.headerBytes),
              let connection = try? FileProbe.openReadOnly(path: path, header: header)
        else { return [] }
        return (try? Ledgers.present(on: connection)) ?? []
    }
}
