import SQLiteKit
import StewardBase

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
    /// Records that `migration` was taken back, as the runner's own down command does right
    /// after running its down part; `newest` is the newest migration still applied.
    func unrecord(_ migration: DialectMigration, newest: DialectMigration?, on connection: Connection) throws
}

extension MigrationLedger {
    func finish(newest: DialectMigration?, on connection: Connection) throws {}

    /// The runners that keep one row per applied migration delete that row.
    func unrecord(_ migration: DialectMigration, newest: DialectMigration?, on connection: Connection) throws {
        try write("DELETE FROM \(Connection.quote(identifier: table)) WHERE version = ?", migration, on: connection)
    }

    var table: String { dialect.ledgerTable ?? "" }

    /// The runner's statement `sql`, its one parameter the migration's version as the
    /// runner writes it in a text column.
    func write(_ sql: String, _ migration: DialectMigration, on connection: Connection) throws {
        try connection.execute(sql: sql, bindings: [.text(migration.ledgerVersion)])
    }

    /// The migration's version as a runner with integer versions records it; 65 when it
    /// does not fit them (`versions`: "sqlx's 64-bit versions").
    func integerVersion(of migration: DialectMigration, runner versions: String) throws -> Int64 {
        guard let version = migration.version.integer else {
            throw StewardError(.badInput, "\(migration.fileName): version \(migration.version) does not fit \(versions)")
        }
        return version
    }

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

    /// A checksum a ledger records, computed by libcrypto; its failure is Steward's (70).
    static func digest<Value>(_ name: String, _ compute: () throws -> Value) throws -> Value {
        do {
            return try compute()
        } catch {
            throw StewardError(.internal, "libcrypto could not compute a \(name): \(error)")
        }
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
    /// The applied versions in the order the runner's down command takes them back, for a
    /// ledger that keeps the order of application (goose); nil: newest version first.
    public var takenBackOrder: [VersionKey]?
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

/// What is applied and what runs, from the files, the ledger and `user_version` together;
/// every disagreement between them is refused (65) with what each says.
public struct LedgerPlan: Sendable {
    /// How `user_version` records progress for a set.
    public enum UserVersionRule: String, Codable, Sendable {
        /// Every version is an integer from 1 to 2147483647: `user_version` holds the newest
        /// applied version, as Steward always did.
        case newestVersion = "newest-version"
        /// Otherwise (timestamps, Flyway's dotted versions, version 0): the number of
        /// applied migrations; the ledger says which.
        case appliedCount = "applied-count"
    }

    public struct Options: Sendable {
        public var target: VersionKey?
        public var allowChanged = false
        public var allowOutOfOrder = false
        /// Record the set up to this version as applied (the schema was checked to match).
        public var baseline: VersionKey?
        /// Take back every applied migration above `target` (0 takes back all of them).
        public var down = false
        /// Refuse a down run whose migrations lack a usable down part (off only to show them).
        public var requireDownParts = true
        public init() {}
    }

    public let rule: UserVersionRule
    /// Applied before the run, in the set's order.
    public let applied: [DialectMigration]
    /// Applied by the user_version only (no ledger row yet): the run writes their rows.
    public let unrecorded: [DialectMigration]
    public let pending: [DialectMigration]
    /// A down run: the applied migrations it takes back, newest first.
    public let undo: [DialectMigration]
    /// Pending migrations older than the newest applied one (allowed by the options).
    public let outOfOrder: [DialectMigration]
    /// Applied files that changed since, allowed by `--allow-changed`.
    public let changed: [LedgerReading.Change]
    /// The database's `user_version` when the plan was read.
    public let userVersion: Int32
    /// The database has the runner's ledger, which says what is applied: `user_version` is
    /// then only Steward's mirror of it (the runner neither reads nor writes it), and a
    /// mirror out of line is not work by itself; the next run that writes rewrites it.
    public let followsLedger: Bool

    /// The `user_version` that records what the plan says is applied.
    public var recordedUserVersion: Int32 { Self.userVersion(for: applied, rule: rule) }

    /// `user_version` disagrees with the ledger that the plan follows.
    public var mirrorOutOfLine: Bool { followsLedger && userVersion != recordedUserVersion }

    public static func rule(for migrations: [DialectMigration]) -> UserVersionRule {
        migrations.allSatisfy { migration in
            guard let value = migration.version.integer else { return false }
            return (1...Int64(Int32.max)).contains(value)
        } ? .newestVersion : .appliedCount
    }

    /// The `user_version` that records `applied` under `rule`.
    public static func userVersion(for applied: [DialectMigration], rule: UserVersionRule) -> Int32 {
        switch rule {
        case .newestVersion:
            Int32(clamping: applied.map { $0.version.integer ?? 0 }.max() ?? 0)
        case .appliedCount:
            Int32(clamping: applied.count)
        }
    }

    /// - Parameters:
    ///   - reading: what the ledger says, or nil when the database has no ledger table.
    ///   - userVersion: the database's `user_version`.
    public init(
        set: DialectSet, reading: LedgerReading?, userVersion: Int32, options: Options
    ) throws {
        let migrations = set.migrations
        let rule = Self.rule(for: migrations)
        self.rule = rule
        self.userVersion = userVersion
        self.followsLedger = reading != nil
        let ledgerName = set.dialect.ledgerTable ?? "the ledger"

        var appliedKeys = Set<VersionKey>()
        var unrecorded: [DialectMigration] = []
        if let reading {
            if options.baseline != nil, reading.rows > 0 {
                throw StewardError(
                    .badInput,
                    "a baseline adopts a database with no record of its migrations, and \(ledgerName) already records \(reading.rows)",
                    remedy: .withoutBaseline)
            }
            if let dirty = reading.dirty {
                throw StewardError(.badInput, dirty)
            }
            if !reading.unknown.isEmpty {
                throw StewardError(
                    .badInput,
                    "\(ledgerName) records \(reading.unknown.count == 1 ? "a migration" : "migrations") that no file in \(set.directory) has (\(reading.unknown.prefix(5).joined(separator: ", "))); the files and the ledger disagree: was a file removed or renamed, or is this the wrong directory?")
            }
            // The ledger is the record: behind it, user_version is what the runner leaves
            // when it applied migrations itself; ahead of it, what it leaves when it rolled
            // some back (it knows nothing of user_version). Either way the ledger is followed.
            appliedKeys = reading.applied
            if !reading.changed.isEmpty, !options.allowChanged {
                let names = reading.changed.map { $0.lineEndingsOnly ? "\($0.file) (line endings only)" : $0.file }
                throw StewardError(
                    .badInput,
                    "applied migration\(names.count == 1 ? "" : "s") changed since \(names.count == 1 ? "it was" : "they were") applied: \(names.joined(separator: ", ")) (\(ledgerName) records another checksum)",
                    remedy: .allowChangedMigrations)
            }
        } else if let baseline = options.baseline {
            guard userVersion == 0 else {
                throw StewardError(
                    .badInput,
                    "a baseline adopts a database with no record of its migrations, and this one has user_version \(userVersion)",
                    remedy: .withoutBaseline)
            }
            unrecorded = migrations.filter { $0.version <= baseline }
            appliedKeys = Set(unrecorded.map(\.version))
        } else if userVersion > 0 {
            // No ledger yet: user_version says how far the set was applied (by Steward).
            switch rule {
            case .newestVersion:
                let newest = migrations.compactMap(\.version.integer).max() ?? 0
                if Int64(userVersion) > newest {
                    throw StewardError(
                        .badInput,
                        "database is at version \(userVersion), newer than the newest migration (\(newest)); refusing to downgrade")
                }
                unrecorded = migrations.filter { ($0.version.integer ?? 0) <= Int64(userVersion) }
            case .appliedCount:
                guard Int(userVersion) <= migrations.count else {
                    throw StewardError(
                        .badInput,
                        "user_version is \(userVersion), but \(set.directory) holds only \(Counted.phrase(migrations.count, "migration"))")
                }
                unrecorded = Array(migrations.prefix(Int(userVersion)))
            }
            appliedKeys = Set(unrecorded.map(\.version))
        }
        self.changed = reading?.changed ?? []
        self.unrecorded = set.dialect.ledgerTable == nil ? [] : unrecorded

        let shown = { (version: VersionKey) in migrations.first { $0.version == version }?.ledgerVersion ?? version.description }
        let applied = migrations.filter { appliedKeys.contains($0.version) }
        self.applied = applied
        let newestApplied = applied.map(\.version).max()
        var pending = migrations.filter { !appliedKeys.contains($0.version) }
        var undo: [DialectMigration] = []
        if options.down {
            undo = try Self.undo(applied: applied, order: reading?.takenBackOrder, set: set, target: options.target,
                                 requireDownParts: options.requireDownParts)
            pending = []
        } else if let target = options.target {
            let atUserVersion = reading == nil && rule == .newestVersion && target.integer == Int64(userVersion)
            guard migrations.contains(where: { $0.version == target }) || atUserVersion else {
                throw StewardError(.badInput, "no migration in \(set.directory) has version \(target)")
            }
            if reading == nil, rule == .newestVersion, let value = target.integer, value < Int64(userVersion) {
                throw StewardError(
                    .badInput, "database is at version \(userVersion), newer than the target version \(target); refusing to downgrade",
                    remedy: .takeMigrationsBack)
            }
            if let newestApplied, target < newestApplied {
                throw StewardError(
                    .badInput, "the newest applied migration (version \(shown(newestApplied))) is newer than the target version \(shown(target)); refusing to downgrade",
                    remedy: .takeMigrationsBack)
            }
            pending = pending.filter { $0.version <= target }
        }
        let outOfOrder = newestApplied.map { newest in pending.filter { $0.version < newest } } ?? []
        if !outOfOrder.isEmpty, !options.allowOutOfOrder {
            throw StewardError(
                .badInput,
                "\(outOfOrder.map(\.fileName).prefix(5).joined(separator: ", ")) \(outOfOrder.count == 1 ? "is" : "are") older than the newest applied migration (version \(newestApplied.map(shown) ?? "")) but not applied (branches merged?)",
                remedy: .allowOutOfOrder(count: outOfOrder.count))
        }
        self.outOfOrder = outOfOrder
        self.pending = pending
        self.undo = undo
    }

    /// What a down run to `target` takes back: the applied migrations above it, newest
    /// first. Refused (65) up front, naming every file, when one of them has no down part,
    /// an empty one, or one Steward cannot run as its runner would: the runners treat a
    /// missing or empty down part as nothing to do and record the migration as taken back
    /// anyway, which leaves the schema holding what that runner's ledger says is gone.
    static func undo(
        applied: [DialectMigration], order: [VersionKey]? = nil, set: DialectSet, target: VersionKey?, requireDownParts: Bool = true
    ) throws -> [DialectMigration] {
        switch set.dialect {
        case .drizzle:
            throw StewardError(
                .badInput, "drizzle has no down migrations, so Steward has nothing to take the set back with",
                remedy: .restoreRollbackBundle)
        case .flyway:
            throw StewardError(
                .badInput, "Flyway's undo migrations are not part of its free edition, and Steward does not run them",
                remedy: .restoreRollbackBundle)
        default:
            break
        }
        guard let target else {
            throw StewardError(.usage, "a down run needs the version to go back to (0 takes back every migration)")
        }
        let migrations = set.migrations
        if target != VersionKey(0), !migrations.contains(where: { $0.version == target }) {
            if let newest = migrations.last, newest.version < target {
                throw StewardError(
                    .badInput,
                    "version \(target) is above the newest migration of \(set.directory) (\(newest.ledgerVersion)); a down run only takes applied migrations back to a version of the set, or 0")
            }
            throw StewardError(.badInput, "no migration in \(set.directory) has version \(target)")
        }
        var undo: [DialectMigration]
        if let order {
            // goose's down-to: the applied versions, most recently applied first, until the
            // first at or below the target (pressly/goose v3.27.3 provider.go, `down`).
            let byVersion = Dictionary(applied.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
            undo = []
            for version in order {
                guard version > target else { break }
                if let migration = byVersion[version] { undo.append(migration) }
            }
        } else {
            undo = Array(applied.filter { $0.version > target }.reversed())
        }
        guard requireDownParts else { return undo }
        var missing: [String] = []
        var empty: [String] = []
        var refused: [String] = []
        for migration in undo {
            guard let down = migration.down else {
                missing.append(migration.path)
                continue
            }
            if let refusal = down.refusal {
                refused.append(refusal)
            } else if down.isEmpty {
                empty.append(down.path)
            }
        }
        var problems: [String] = []
        if !missing.isEmpty {
            problems.append("no down part for \(missing.joined(separator: ", "))")
        }
        if !empty.isEmpty {
            problems.append("an empty down part (no statement) in \(empty.joined(separator: ", "))")
        }
        problems += refused
        guard problems.isEmpty else {
            throw StewardError(
                .badInput,
                "cannot take back \(Counted.phrase(undo.count, "migration")) to version \(target): \(problems.joined(separator: "; ")). "
                    + "Taking back a migration without running a down part would record it as gone while its schema stays, so the whole run is refused; nothing changed")
        }
        return undo
    }
}
