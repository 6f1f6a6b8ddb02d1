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
        RollbackPoint.removeStaleTemporaries(in: directory)
    }

    func backUp(into directory: String, holding held: HeldDescriptors, version: String) throws -> RollbackBundle {
        do {
            let point = try RollbackPoint.make(
                of: options.databasePath, in: directory, version: version, holding: held,
                removingStaleTemporaries: !options.backupDirectorySwept, timeout: options.timeout,
                threads: options.backupThreads, cancellation: cancellation)
            return RollbackBundle(
                path: point.path, sha256: point.sha256, sizeBytes: point.sizeBytes,
                userVersion: point.userVersion, recordedFailures: point.recordedFailures,
                rollbackCommand: RollbackBundle.rollbackCommand(
                    bundle: point.path, database: options.databasePath,
                    recordsFailures: point.recordedFailures != nil))
        } catch let error as StewardError {
            if error.kind == .interrupted { throw error }
            throw StewardError(error.kind, "not migrated: the backup before migrating failed: \(error.message)", remedy: error.remedy)
        }
    }
}

/// Words for a POSIX shell, for commands Steward prints for people to run.
enum ShellQuoting {
    /// `word` as is when it holds only characters no shell treats specially; otherwise in
    /// single quotes, each `'` written as `'\''`.
    static func quoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { scalar in
            (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || (scalar >= "0" && scalar <= "9")
                || "/._-+:,@%=".unicodeScalars.contains(scalar)
        }
        if plain { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
