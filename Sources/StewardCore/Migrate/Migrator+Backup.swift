import Foundation
import SQLiteKit
import BundleFormat
import StewardBase

/// What runs before a database's first change, inside the migration's write transaction:
/// the drift check, and with a backup directory the rollback point, a verified bundle
/// (what `steward backup` makes).
extension Migrator {
    /// The rollback point taken before the migration.
    public struct RollbackBundle: Codable, Sendable {
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

    /// Refuses (65) a database whose schema is not what its applied migrations make,
    /// unless drift is allowed; then the difference is reported. Compared on the run's
    /// connection, with what its plan says is applied. Not when adopting with
    /// `--baseline`: the schema is then, by definition, ahead of what is recorded.
    func refuseDrift(
        on connection: Connection, source: Source, build: SetBuild, applied: [DialectMigration], userVersion: Int32
    ) throws -> SchemaDriftCheck.Comparison? {
        guard options.baseline == nil else { return nil }
        let comparison = cache.driftCheck(extensions: options.extensions).compare(
            on: connection, set: source.set, applied: applied, userVersion: userVersion, built: build,
            cancellation: cancellation)
        if comparison.status == .drift && !options.allowDrift {
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

    func backUp(into directory: String, holding held: HeldDescriptors, version: String) throws -> RollbackBundle {
        var backup = BackupMaker.Options(databasePath: options.databasePath, outputDirectory: directory)
        backup.nameVersion = version
        backup.heldDescriptors = held
        backup.removesStaleTemporaries = !options.backupDirectorySwept
        backup.nameTag = try PathTag.of(options.databasePath)
        backup.timeout = options.timeout
        backup.threads = options.backupThreads
        // Foreign-key violations that were already there do not block the rollback point
        // (migrate tolerates them); they are recorded in its manifest. Integrity failures
        // still block it.
        backup.asIs = .foreignKeys
        do {
            let report = try BackupMaker(options: backup, cancellation: cancellation).run()
            return RollbackBundle(
                path: report.bundle.path, sha256: report.bundle.sha256, sizeBytes: report.bundle.sizeBytes,
                userVersion: report.manifest.source.userVersion, recordedFailures: report.manifest.recordedFailures,
                rollbackCommand: RollbackBundle.rollbackCommand(
                    bundle: report.bundle.path, database: options.databasePath,
                    recordsFailures: report.manifest.recordedFailures != nil))
        } catch let error as StewardError {
            if error.kind == .interrupted { throw error }
            throw StewardError(error.kind, "not migrated: the backup before migrating failed: \(error.message)", remedy: error.remedy)
        }
    }
}
