import Foundation
import StewardBase

/// `manifest.json`, the first entry of a bundle (docs/design-notes.md, "Bundle format",
/// version 1): what the snapshot is, how it was taken and checked, and the size and
/// SHA-256 of every payload file. Names, counts and settings only; never row data.
public struct BundleManifest: Codable, Sendable, Equatable {
    public static let formatName = "steward-bundle"
    public static let currentFormatVersion = 1
    public static let manifestEntry = "manifest.json"
    public static let checksumEntry = "manifest-sha256.txt"
    public static let dataDirectory = "data"

    /// The source database, as read inside the pinned snapshot.
    public struct Source: Codable, Sendable, Equatable {
        /// The file name only, never the directory.
        public let fileName: String
        public let userVersion: Int32
        public let applicationID: Int32
        public let pageSize: Int
        public let pageCount: Int
        /// `PRAGMA journal_mode` of the source: `delete`, `wal`, `truncate`, …
        public let journalMode: String

        package init(fileName: String, userVersion: Int32, applicationID: Int32, pageSize: Int, pageCount: Int, journalMode: String) {
            self.fileName = fileName
            self.userVersion = userVersion
            self.applicationID = applicationID
            self.pageSize = pageSize
            self.pageCount = pageCount
            self.journalMode = journalMode
        }
    }

    /// How the snapshot was taken.
    public struct Snapshot: Codable, Sendable, Equatable {
        /// From the first attempt to read the source until it was released.
        public let durationSeconds: Double
        /// How long the read transaction on the source was open. In rollback-journal
        /// mode, the application's writers wait for this long at most.
        public let sourceHeldSeconds: Double
        /// Time spent waiting for other connections' locks.
        public let lockWaitSeconds: Double
        /// Times the online backup started over because the source changed (none are
        /// expected: the read transaction pins one point in time).
        public let restarts: Int
        public let pagesPerStep: Int
        public let steps: Int

        package init(durationSeconds: Double, sourceHeldSeconds: Double, lockWaitSeconds: Double, restarts: Int, pagesPerStep: Int, steps: Int) {
            self.durationSeconds = durationSeconds
            self.sourceHeldSeconds = sourceHeldSeconds
            self.lockWaitSeconds = lockWaitSeconds
            self.restarts = restarts
            self.pagesPerStep = pagesPerStep
            self.steps = steps
        }
    }

    /// What was checked on the copy before it was bundled. A bundle exists only when
    /// every check passed.
    public struct Checks: Codable, Sendable, Equatable {
        /// `PRAGMA integrity_check`: exactly `ok`.
        public let integrityCheck: String
        /// Rows of `PRAGMA foreign_key_check` (0).
        public let foreignKeyViolations: Int
        public let userVersion: Int32
        public let userVersionMatchesSource: Bool
        /// `PRAGMA journal_mode` of the copy (`delete`) and header bytes 18 and 19 (1 and 1):
        /// the copy never needs a `-wal` or `-shm` file.
        public let journalMode: String
        public let writeVersion: Int
        public let readVersion: Int
        public let durationSeconds: Double
        /// The checks that ran on the snapshot, by name (`BundleManifest.checkNames`).
        /// Optional in format version 1: bundles made before it was recorded lack it, and
        /// a missing value means "not recorded", never "none ran".
        public let checksRun: [String]?
        /// The FTS5 tables whose FTS5 integrity-check (rank 1) passed on the snapshot, when
        /// `fts5_integrity` ran; missing otherwise.
        public let fts5Tables: [String]?
        /// The FTS3 and FTS4 tables whose own integrity-check passed on the snapshot, when
        /// `fts5_integrity` (the full-text check, named for FTS5 in format 1) ran and the
        /// database has some; missing otherwise, and in bundles made before they were checked.
        public let fts4Tables: [String]?

        public init(
            integrityCheck: String, foreignKeyViolations: Int, userVersion: Int32, userVersionMatchesSource: Bool,
            journalMode: String, writeVersion: Int, readVersion: Int, durationSeconds: Double,
            checksRun: [String]? = nil, fts5Tables: [String]? = nil, fts4Tables: [String]? = nil
        ) {
            self.integrityCheck = integrityCheck
            self.foreignKeyViolations = foreignKeyViolations
            self.userVersion = userVersion
            self.userVersionMatchesSource = userVersionMatchesSource
            self.journalMode = journalMode
            self.writeVersion = writeVersion
            self.readVersion = readVersion
            self.durationSeconds = durationSeconds
            self.checksRun = checksRun
            self.fts5Tables = fts5Tables
            self.fts4Tables = fts4Tables
        }
    }

    /// The names `Checks.checksRun` may hold:
    /// - `integrity_check`: `PRAGMA integrity_check` said `ok`, on a read-write connection,
    ///   so CHECK constraints included;
    /// - `foreign_key_check`, `user_version`, `journal_mode`: as in `Checks`;
    /// - `fts5_integrity`: the full-text check passed for every full-text table: FTS5's
    ///   integrity-check (rank 1), and FTS3's and FTS4's own (the name predates them).
    ///
    /// These are the manifest's own names, kept for the bundle format; reports name the
    /// same checks by `CheckName` (`CheckName.manifestName` maps between them).
    public static let checkNames = CheckName.manifestChecks.map(\.manifestName)

    public struct File: Codable, Sendable, Equatable {
        /// The entry name in the bundle, such as `data/tickets.sqlite`.
        public let path: String
        public let size: Int64
        /// 64 lower-case hex digits.
        public let sha256: String

        package init(path: String, size: Int64, sha256: String) {
            self.path = path
            self.size = size
            self.sha256 = sha256
        }
    }

    public var format = BundleManifest.formatName
    public var formatVersion = BundleManifest.currentFormatVersion
    public let stewardVersion: String
    public let sqliteVersion: String
    /// The moment the snapshot was pinned, ISO 8601 in UTC to the second.
    public let createdAt: String
    public let source: Source
    public let snapshot: Snapshot
    public let checks: Checks
    public let files: [File]
    /// Per-table logical SHA-256 digests and the schema's (`ContentDigests`). Optional in
    /// format version 1: bundles made before they were recorded lack them, and `restore`
    /// then says it could not compare.
    public var contentDigests: ContentDigests? = nil
    /// The failed checks of a database bundled as it is (`backup --as-is`); missing for a
    /// bundle whose snapshot passed every check. Optional in format version 1.
    public var recordedFailures: RecordedFailures? = nil

    /// The JSON of `manifest.json`: sorted keys, so that equal manifests are equal bytes.
    public func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(self)) + [UInt8(ascii: "\n")]
    }

    /// `manifest-sha256.txt`: one `HEX  path` line per file, the format of `sha256sum`
    /// (and of a BagIt manifest), so that `sha256sum -c` checks an extracted bundle.
    public func checksumList() -> [UInt8] {
        Array(files.map { "\($0.sha256)  \($0.path)\n" }.joined().utf8)
    }

    /// The entry name of the database in a bundle: `data/<stem>.sqlite`.
    public static func payloadEntry(forDatabase fileName: String) -> String {
        "\(dataDirectory)/\(BackupNaming.stem(of: fileName)).sqlite"
    }

    package init(stewardVersion: String, sqliteVersion: String, createdAt: String, source: Source, snapshot: Snapshot, checks: Checks, files: [File], contentDigests: ContentDigests? = nil, recordedFailures: RecordedFailures? = nil) {
        self.stewardVersion = stewardVersion
        self.sqliteVersion = sqliteVersion
        self.createdAt = createdAt
        self.source = source
        self.snapshot = snapshot
        self.checks = checks
        self.files = files
        self.contentDigests = contentDigests
        self.recordedFailures = recordedFailures
    }
}
