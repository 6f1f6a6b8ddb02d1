import StewardBase

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
        public init() {}
    }

    public let rule: UserVersionRule
    /// Applied before the run, in the set's order.
    public let applied: [DialectMigration]
    /// Applied by the user_version only (no ledger row yet): the run writes their rows.
    public let unrecorded: [DialectMigration]
    public let pending: [DialectMigration]
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
        if let target = options.target {
            let atUserVersion = reading == nil && rule == .newestVersion && target.integer == Int64(userVersion)
            guard migrations.contains(where: { $0.version == target }) || atUserVersion else {
                throw StewardError(.badInput, "no migration in \(set.directory) has version \(target)")
            }
            if reading == nil, rule == .newestVersion, let value = target.integer, value < Int64(userVersion) {
                throw StewardError(
                    .badInput, "database is at version \(userVersion), newer than the target version \(target); refusing to downgrade")
            }
            if let newestApplied, target < newestApplied {
                throw StewardError(
                    .badInput, "the newest applied migration (version \(shown(newestApplied))) is newer than the target version \(shown(target)); refusing to downgrade")
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
    }
}
