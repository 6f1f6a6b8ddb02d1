import Foundation

/// One database's migration, in a fleet run or alone: current databases are answered and
/// left alone; the others get the drift check and, with a backup directory, a verified
/// bundle (what `steward backup` makes) before their first change.
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
        /// `migrated`, `created`, `current` (nothing to write), `pending` (`--status` with
        /// migrations to apply or records to write) or `would-migrate` (`--dry-run`).
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

    /// The database's migration; with a drift check and a backup directory, both run
    /// inside the migration's write transaction once its plan says it writes something
    /// (`Migrator.run(beforeMigrating:)`): a database the run leaves unchanged gets
    /// neither, one it changes never goes without them.
    public func run(progress: @escaping @Sendable (Migrator.Event) -> Void = { _ in }) throws -> Result {
        let migrator = Migrator(options: options, cancellation: cancellation, progress: progress)
        if options.statusOnly || options.dryRun {
            let report = try migrator.run()
            return Result(outcome: report.outcome, report: report, bundle: nil, schema: nil)
        }
        var schema: SchemaDriftCheck.Comparison?
        var bundle: Bundle?
        // The backup runs inside the migration's write transaction: a descriptor it opens
        // on the database is closed only after the migration's connection is.
        let held = HeldDescriptors()
        defer { held.closeAll() }
        let report = try migrator.run(beforeMigrating: { write in
            guard !write.created else { return }
            schema = try refuseDrift(write)
            if let backupDirectory {
                // Named by the runner's version of the newest applied migration.
                bundle = try backUp(into: backupDirectory, holding: held, version: write.plan.applied.last?.ledgerVersion ?? "0")
            }
        })
        return Result(outcome: report.outcome, report: report, bundle: bundle, schema: schema)
    }

    /// The drift check for a run that applies migrations, in every layout: not with
    /// `--status` or `--dry-run`, and not when adopting with `--baseline` (the schema is
    /// then, by definition, ahead of what is recorded).
    public static func driftCheck(_ options: Migrator.Options) -> SchemaDriftCheck? {
        guard !options.statusOnly, !options.dryRun, options.baseline == nil else { return nil }
        return SchemaDriftCheck(extensions: options.extensions)
    }

    /// Refuses (65) a database whose schema is not what its applied migrations make,
    /// unless drift is allowed; then the difference is reported. Compared on the run's
    /// connection, with what its plan says is applied.
    private func refuseDrift(_ write: Migrator.PendingWrite) throws -> SchemaDriftCheck.Comparison? {
        guard let drift else { return nil }
        let comparison = drift.compare(on: write.connection, set: write.source.set, applied: write.plan.applied,
                                       userVersion: write.userVersion, built: write.build, cancellation: cancellation)
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

    private func backUp(into directory: String, holding held: HeldDescriptors, version: String) throws -> Bundle {
        var backup = BackupMaker.Options(databasePath: options.databasePath, outputDirectory: directory)
        backup.nameVersion = version
        backup.heldDescriptors = held
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
