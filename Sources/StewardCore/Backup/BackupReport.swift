import BundleFormat

/// What `steward backup` made: where the bundle is, its manifest as written, the checks
/// that ran on the snapshot, and how the bundle itself was written.
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
    /// `manifest.json` as written into the bundle (as restore and inspect show it).
    public let manifest: BundleManifest
    /// Every check on the snapshot, named as verify and restore name them: `integrity`,
    /// `foreign-keys`, `version`, `journal-mode`, `payload-size`, `schema-objects`, `tables`,
    /// `fts-sync`.
    public let checks: [CheckResult]
    /// The checks that failed: empty, except for the failures a `--as-is` bundle records.
    public let failedChecks: [String]
    public let bundle: Bundle
    /// Temporaries of earlier, killed runs that this run removed from the directory.
    public let staleTemporariesRemoved: [String]
    public let totalSeconds: Double
    /// The recipients' types when the bundle is encrypted (age); absent otherwise.
    public var encryption: BundleEncryption? = nil
}
