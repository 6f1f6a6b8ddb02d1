import Foundation

/// One database's migration in a fleet run: current databases are found by a read-only
/// look at `user_version` and left alone; with a backup directory, the others get a
/// verified bundle (what `steward backup` makes) before their first change.
public struct FleetMigration {
    /// The rollback point taken before the migration.
    public struct Bundle: Codable, Sendable {
        public let path: String
        public let sha256: String
        public let sizeBytes: Int64
        /// The `user_version` in the bundle: the version the database is rolled back to.
        public let userVersion: Int32
        /// Foreign-key violations that were already in the database (migrate tolerates
        /// them), recorded in the manifest as `backup --as-is` records them; nil when none.
        public let recordedFailures: RecordedFailures?
        /// The one command that rolls the database back to this bundle, absolute paths,
        /// quoted for a POSIX shell.
        public let rollbackCommand: String

        /// `steward restore BUNDLE --replace DB`, with `--accept-recorded-failures` when
        /// the bundle records foreign-key violations (restore refuses it otherwise).
        static func rollbackCommand(bundle: String, database: String, recordsFailures: Bool) -> String {
            // The one place StewardCore names options: this is a command line a user
            // copies into a shell, report data, not a message that points at an option
            // (`CoreWordingTests` allows exactly these).
            var words = ["steward", "restore", ShellQuoting.quoted(DatabaseList.absolute(bundle)),
                         "--replace", ShellQuoting.quoted(DatabaseList.absolute(database))]
            if recordsFailures { words.append("--accept-recorded-failures") }
            return words.joined(separator: " ")
        }
    }

    public struct Result: Sendable {
        /// `migrated`, `created`, `current` (nothing to apply), `pending` (`--status` with
        /// migrations to apply) or `would-migrate` (`--dry-run`).
        public let outcome: String
        public let report: MigrateReport
        public let bundle: Bundle?
        /// The drift check's finding; nil when it did not run (current databases,
        /// `--status`, `--dry-run`, no check asked for).
        public let schema: SchemaDriftCheck.Comparison?
    }

    let options: Migrator.Options
    let backupDirectory: String?
    let backupThreads: Int
    let cancellation: Cancellation
    let drift: SchemaDriftCheck?
    let allowDrift: Bool
    /// The run removed the stale temporaries of the backup directory once, before its
    /// first database (`removeStaleTemporaries(in:)`).
    public var backupDirectorySwept = false

    public init(
        options: Migrator.Options, backupDirectory: String?, backupThreads: Int, drift: SchemaDriftCheck?,
        allowDrift: Bool, cancellation: Cancellation
    ) {
        self.options = options
        self.backupDirectory = backupDirectory
        self.backupThreads = backupThreads
        self.drift = drift
        self.allowDrift = allowDrift
        self.cancellation = cancellation
    }

    public func run() throws -> Result {
        if options.statusOnly {
            let report = try Migrator(options: options, cancellation: cancellation).run()
            return Result(outcome: report.outcome, report: report, bundle: nil, schema: nil)
        }
        if options.dryRun {
            let report = try Migrator(options: options, cancellation: cancellation).run()
            return Result(outcome: report.outcome, report: report, bundle: nil, schema: nil)
        }
        let exists = DatabaseFile.exists(options.databasePath)
        var schema: SchemaDriftCheck.Comparison?
        if exists {
            // A read-only look costs one open and a few reads; a database it cannot read
            // (a hot journal that the writer will roll back, say) goes the full way, which
            // gives the real answer.
            let status = try? look()
            if let status, status.pending.isEmpty {
                return Result(outcome: "current", report: status, bundle: nil, schema: nil)
            }
            schema = try refuseDrift(status)
        }
        var bundle: Bundle?
        if let backupDirectory, exists {
            bundle = try backUp(into: backupDirectory)
        }
        let report = try Migrator(options: options, cancellation: cancellation).run()
        return Result(outcome: report.outcome, report: report, bundle: bundle, schema: schema)
    }

    /// The drift check for a run that applies migrations, in every layout: not with
    /// `--status` or `--dry-run`, and not when adopting with `--baseline` (the schema is
    /// then, by definition, ahead of what is recorded).
    public static func driftCheck(_ options: Migrator.Options) -> SchemaDriftCheck? {
        guard !options.statusOnly, !options.dryRun, options.baseline == nil else { return nil }
        return SchemaDriftCheck(extensions: options.extensions)
    }

    /// `--status` with the drift check on the same read-only connection, when it applies.
    private func look() throws -> MigrateReport {
        var look = options
        look.statusOnly = true
        look.driftCheck = drift
        return try Migrator(options: look, cancellation: cancellation).run()
    }

    /// The drift check alone, before a plain one-database migration: nil when the
    /// database does not exist yet or has nothing pending; 65 on drift unless allowed.
    public func driftBeforeMigrating() throws -> SchemaDriftCheck.Comparison? {
        guard drift != nil, DatabaseFile.exists(options.databasePath) else { return nil }
        let status = try? look()
        if let status, status.pending.isEmpty { return nil }
        return try refuseDrift(status)
    }

    /// Refuses (65) a database whose schema is not what its applied migrations make,
    /// unless drift is allowed; then the difference is reported.
    private func refuseDrift(_ status: MigrateReport?) throws -> SchemaDriftCheck.Comparison? {
        guard drift != nil else { return nil }
        guard let status, let comparison = status.schema else {
            return .init(status: "skipped", version: status?.fromVersion ?? 0, newestApplied: nil, differences: [],
                         reason: "what is applied could not be read before migrating")
        }
        if comparison.status == "drift" && !allowDrift {
            throw StewardError(
                .badInput,
                "\(options.databasePath): schema drift, not migrated: the schema differs from what the migration set makes "
                    + "at version \(comparison.builtTo): \(comparison.differences.joined(separator: "; "))", remedy: .allowDrift)
        }
        return comparison
    }

    /// Removes the temporaries that killed runs left in a backup directory, once for a
    /// fleet run; a directory that cannot be used is left to each database's backup,
    /// which says why.
    public static func removeStaleTemporaries(in directory: String) -> [String] {
        (try? OutputDirectory(path: directory))?.removeStaleTemporaries() ?? []
    }

    private func backUp(into directory: String) throws -> Bundle {
        var backup = BackupMaker.Options(databasePath: options.databasePath, outputDirectory: directory)
        backup.removesStaleTemporaries = !backupDirectorySwept
        backup.nameTag = try PathTag.of(options.databasePath)
        backup.timeout = options.timeout
        backup.threads = backupThreads
        // Foreign-key violations that were already there do not block the rollback point
        // (migrate tolerates them); they are recorded in its manifest. Integrity failures
        // still block it.
        backup.asIs = .foreignKeys
        do {
            let report = try BackupMaker(options: backup, cancellation: cancellation).run()
            return Bundle(path: report.bundle.path, sha256: report.bundle.sha256, sizeBytes: report.bundle.sizeBytes,
                          userVersion: report.manifest.source.userVersion, recordedFailures: report.manifest.recordedFailures,
                          rollbackCommand: Bundle.rollbackCommand(
                            bundle: report.bundle.path, database: options.databasePath,
                            recordsFailures: report.manifest.recordedFailures != nil))
        } catch let error as StewardError {
            if error.kind == .interrupted { throw error }
            throw StewardError(error.kind, "not migrated: the backup before migrating failed: \(error.message)", remedy: error.remedy)
        }
    }
}
