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
    }

    public struct Result: Sendable {
        /// `migrated`, `created`, `current` (nothing to apply), `pending` (`--status` with
        /// migrations to apply) or `would-migrate` (`--dry-run`).
        public let outcome: String
        public let report: MigrateReport
        public let bundle: Bundle?
    }

    let options: Migrator.Options
    let backupDirectory: String?
    let backupThreads: Int
    let cancellation: Cancellation

    public init(options: Migrator.Options, backupDirectory: String?, backupThreads: Int, cancellation: Cancellation) {
        self.options = options
        self.backupDirectory = backupDirectory
        self.backupThreads = backupThreads
        self.cancellation = cancellation
    }

    public func run() throws -> Result {
        if options.statusOnly {
            let report = try Migrator(options: options, cancellation: cancellation).run()
            return Result(outcome: report.pending.isEmpty ? "current" : "pending", report: report, bundle: nil)
        }
        if options.dryRun {
            let report = try Migrator(options: options, cancellation: cancellation).run()
            return Result(outcome: report.applied.isEmpty ? "current" : "would-migrate", report: report, bundle: nil)
        }
        let exists = FileProbe.exists(options.databasePath)
        if exists {
            // A read-only look costs one open and one pragma; a database it cannot read
            // (a hot journal that the writer will roll back, say) goes the full way, which
            // gives the real answer.
            var look = options
            look.statusOnly = true
            if let status = try? Migrator(options: look, cancellation: cancellation).run(), status.pending.isEmpty {
                return Result(outcome: "current", report: status, bundle: nil)
            }
        }
        var bundle: Bundle?
        if let backupDirectory, exists {
            bundle = try backUp(into: backupDirectory)
        }
        let report = try Migrator(options: options, cancellation: cancellation).run()
        let outcome = report.created ? "created" : report.applied.isEmpty ? "current" : "migrated"
        return Result(outcome: outcome, report: report, bundle: bundle)
    }

    private func backUp(into directory: String) throws -> Bundle {
        var backup = BackupMaker.Options(databasePath: options.databasePath, outputDirectory: directory)
        backup.nameTag = try PathTag.of(options.databasePath)
        backup.timeout = options.timeout
        backup.threads = backupThreads
        do {
            let report = try BackupMaker(options: backup, cancellation: cancellation).run()
            return Bundle(path: report.bundle.path, sha256: report.bundle.sha256, sizeBytes: report.bundle.sizeBytes,
                          userVersion: report.source.userVersion)
        } catch let error as StewardError {
            if error.kind == .interrupted { throw error }
            throw StewardError(error.kind, "not migrated: the backup before migrating failed: \(error.message)")
        }
    }
}
