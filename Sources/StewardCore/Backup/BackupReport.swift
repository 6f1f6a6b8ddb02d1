/// What `steward backup` made: where the bundle is, and everything its manifest records,
/// plus how the bundle itself was written.
public struct BackupReport: Codable, Sendable {
    public struct Bundle: Codable, Sendable {
        /// The final path, the output directory as given joined with the name.
        public let path: String
        public let sizeBytes: Int64
        /// SHA-256 of the whole `.tar.zst` file.
        public let sha256: String
        public let compressionLevel: Int
        public let threads: Int
        /// From the start of the checks to the published, synced bundle.
        public let durationSeconds: Double
    }

    public var command = "backup"
    public let stewardVersion: String
    public let sqliteVersion: String
    /// The database, its path as given.
    public let database: DatabaseReference
    public let createdAt: String
    public let source: BundleManifest.Source
    public let snapshot: BundleManifest.Snapshot
    public let checks: BundleManifest.Checks
    public let files: [BundleManifest.File]
    public let bundle: Bundle
    /// Temporaries of earlier, killed runs that this run removed from the directory.
    public let staleTemporariesRemoved: [String]
    public let totalSeconds: Double
    /// The recipients' types when the bundle is encrypted (age); absent otherwise.
    public var encryption: BundleEncryption? = nil
    /// `--as-is`: the failed checks recorded in the manifest.
    public var recordedFailures: RecordedFailures? = nil
}
