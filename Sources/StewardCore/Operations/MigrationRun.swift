/// `steward migrate` on one database as one operation, as in runs over many databases
/// (`FleetMigration`): the migration (`Migrator`), with the schema-drift check and, with a
/// backup directory, a verified bundle, both before the first change.
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
        let result = try FleetMigration(
            options: options.migration, backupDirectory: options.backupDirectory, backupThreads: options.backupThreads,
            drift: FleetMigration.driftCheck(options.migration), allowDrift: options.allowDrift, cancellation: cancellation
        ).run(progress: progress)
        return Report(migration: result.report, schema: result.schema, backupRequested: options.backupDirectory != nil,
                      backup: result.bundle)
    }
}
