/// `steward migrate` on one database as one operation: the schema-drift check before
/// anything changes, then the migration (`Migrator`); with a backup directory, a
/// verified bundle before the first change (`FleetMigration`, as in runs over many
/// databases).
public struct MigrationRun: StewardOperation {
    public struct Options: Sendable {
        public var migration: Migrator.Options
        /// `--backup-dir`.
        public var backupDirectory: String?
        /// Migrate a database whose schema differs from the set's at its version.
        public var allowDrift = false
        /// zstd threads of the backup.
        public var backupThreads = 1

        public init(migration: Migrator.Options) {
            self.migration = migration
        }
    }

    public typealias Event = Migrator.Event

    /// The migration's report with the drift check's finding, and with `--backup-dir`
    /// the rollback bundle taken first (none when nothing changed), at the top level.
    public struct Report: Encodable, Sendable {
        public let migration: MigrateReport
        public let schema: SchemaDriftCheck.Comparison?
        /// Whether a backup was asked for (`--backup-dir`).
        public let backupRequested: Bool
        public let backup: FleetMigration.Bundle?

        private enum Keys: String, CodingKey { case bundle, schema, backupRequested }

        public func encode(to encoder: any Encoder) throws {
            try migration.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encodeIfPresent(backup, forKey: .bundle)
            if backupRequested { try container.encode(true, forKey: .backupRequested) }
            try container.encodeIfPresent(schema, forKey: .schema)
        }
    }

    public let setup: OperationSetup<Options, Event>

    public init(setup: OperationSetup<Options, Event>) {
        self.setup = setup
    }

    public func run() throws -> Report {
        var migration = options.migration
        // The look before the run and the run read the set once.
        if migration.setCache == nil { migration.setCache = MigrationSetCache() }
        if let backupDirectory = options.backupDirectory {
            let result = try FleetMigration(
                options: migration, backupDirectory: backupDirectory, backupThreads: options.backupThreads,
                drift: FleetMigration.driftCheck(migration), allowDrift: options.allowDrift, cancellation: cancellation
            ).run()
            return Report(migration: result.report, schema: result.schema, backupRequested: true, backup: result.bundle)
        }
        // Drift is refused before anything is changed, as in runs over many databases; a
        // database with nothing to write is answered without the look (design notes, "Performance").
        let fleet = FleetMigration(
            options: migration, backupDirectory: nil, backupThreads: 1, drift: FleetMigration.driftCheck(migration),
            allowDrift: options.allowDrift, cancellation: cancellation)
        var schema: SchemaDriftCheck.Comparison?
        let report = try Migrator(options: migration, cancellation: cancellation, progress: progress).run(beforeMigrating: {
            schema = try fleet.driftBeforeMigrating()
        })
        return Report(migration: report, schema: schema, backupRequested: false, backup: nil)
    }
}
