import BundleFormat
import StewardBase

/// A rollback point before a database is changed: a verified bundle that the backup
/// operation makes of it (`migrate` with a backup directory). The one place where one
/// operation runs another: the command folders do not name each other's types.
enum RollbackPoint {
    /// The bundle written, as the run that changes the database reports it.
    struct Bundle {
        let path: String
        let sha256: String
        let sizeBytes: Int64
        let userVersion: Int32
        let recordedFailures: RecordedFailures?
    }

    /// Backs up `databasePath` into `directory` under a name that carries `version`,
    /// holding the descriptors the caller holds on it (its locks stay the caller's).
    /// Foreign-key violations that were already there do not block the rollback point
    /// (a migration tolerates them); they are recorded in its manifest. Integrity
    /// failures still block it.
    static func make(
        of databasePath: String, in directory: String, version: String, holding held: HeldDescriptors,
        removingStaleTemporaries: Bool, timeout: Double, threads: Int, cancellation: Cancellation
    ) throws -> Bundle {
        var backup = BackupMaker.Options(databasePath: databasePath, outputDirectory: directory)
        backup.nameVersion = version
        backup.heldDescriptors = held
        backup.removesStaleTemporaries = removingStaleTemporaries
        backup.nameTag = try PathTag.of(databasePath)
        backup.timeout = timeout
        backup.threads = threads
        backup.asIs = .foreignKeys
        let report = try BackupMaker(options: backup, cancellation: cancellation).run()
        return Bundle(
            path: report.bundle.path, sha256: report.bundle.sha256, sizeBytes: report.bundle.sizeBytes,
            userVersion: report.manifest.source.userVersion, recordedFailures: report.manifest.recordedFailures)
    }

    /// Removes the temporaries that killed runs left in a backup directory; a directory
    /// that cannot be used is left to each backup, which says why.
    static func removeStaleTemporaries(in directory: String) -> [String] {
        (try? OutputDirectory(path: directory))?.removeStaleTemporaries() ?? []
    }
}
