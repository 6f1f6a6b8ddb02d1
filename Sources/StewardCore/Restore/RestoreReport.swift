import BundleFormat

/// What `steward restore` did: the bundle's manifest, the hashes computed while
/// extracting, every check with its result and duration, and where the database is now.
/// Names, counts, hashes and settings only; never row data.
public struct RestoreReport: Codable, Sendable {
    /// A table of the restored database and its row count (nil when it could not be read);
    /// views are not counted (`schema-objects` prepares them).
    public struct Table: Codable, Sendable, Equatable {
        public let name: String
        /// `table`, `virtual` or `shadow` (`pragma_table_list`).
        public let type: String
        public let rowCount: Int64?
        public let error: String?
    }

    public var command = "restore"
    public let stewardVersion: String
    public let sqliteVersion: String
    /// The bundle path as given, and its size.
    public internal(set) var bundle: BundleReference
    /// `--into` as given (empty with `--replace`).
    public internal(set) var into: String
    /// Where the database is once published: `<into>/data/<name>`, or the `--replace` path;
    /// and the SHA-256 of the file as published.
    public internal(set) var database: DatabaseReference
    /// Whether the directory was published; false when a check failed.
    public let published: Bool
    public let manifest: BundleManifest
    /// The payload files with the SHA-256 computed while extracting (each matches the
    /// manifest, or the restore stops with status 65 before any check).
    public let files: [VerifiedFile]
    /// Whether the database's header said WAL and it was switched to rollback-journal mode
    /// in the staging directory; its SHA-256 (`database.sha256`) then differs from the bundle's.
    public let walConverted: Bool
    public let checks: [CheckResult]
    public let failedChecks: [String]
    /// Whether FTS5's integrity-check was left out on request (`fts-sync` is then
    /// `skipped`).
    public let fts5CheckSkipped: Bool
    public let tables: [Table]
    /// Staging directories of earlier, killed runs that this run removed.
    public let staleStagingRemoved: [String]
    /// Workspaces of earlier, killed runs of Steward's commands that this run removed from
    /// TMPDIR (a drill's decrypted database, a spooled bundle; names only).
    public internal(set) var staleTemporariesRemoved: [String] = []
    /// Reading, hashing and writing the bundle's entries.
    public let extractSeconds: Double
    /// From the header check to the end of the read-write probe.
    public let checkSeconds: Double
    public let totalSeconds: Double
    /// What the age header of an encrypted bundle said; absent for a plain bundle.
    public var encryption: BundleEncryption? = nil
    /// True for `--check-only`: every check ran, nothing was (or was meant to be)
    /// published; missing otherwise.
    public var checkOnly: Bool? = nil

    /// What `--replace PATH` did; missing otherwise.
    public var replacement: Replacement? = nil

    /// `restore --replace`: the database at `path` was replaced by the restored one.
    public struct Replacement: Codable, Sendable {
        public let path: String
        /// Where the replaced database is kept (hard-linked before the rename); nil with
        /// `--discard-replaced`.
        public let replacedKeptAs: String?
        /// The replaced database's journal mode when it was found (`wal` is checkpointed
        /// and switched to `delete` first).
        public let journalModeBefore: String
        /// The side files resolved before the rename.
        public let sideFilesResolved: [String]
        public let lockWaitSeconds: Double
    }

    /// Whether every check passed: published, or in a drill, publishable.
    public var passed: Bool { failedChecks.isEmpty }
}
