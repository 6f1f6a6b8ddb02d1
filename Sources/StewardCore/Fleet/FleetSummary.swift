/// The last object of a fleet run's NDJSON (`"kind": "summary"`): counts, the failed
/// databases with their reasons, and the run's exit status.
public struct FleetSummary: Codable, Sendable {
    public struct Failure: Codable, Sendable, Equatable {
        public let database: DatabaseReference
        public let exitCode: Int32
        public let message: String
        /// The command whose run failed, in `steward report` (a fleet's own summary has
        /// one command, its own).
        public var command: String?

        public init(database: String, exitCode: Int32, message: String, command: String? = nil) {
            self.database = DatabaseReference(path: database)
            self.exitCode = exitCode
            self.message = message
            self.command = command
        }
    }

    public let command: String
    /// Paths given (`--db` and `--dbs-from`), duplicates included.
    public let listed: Int
    /// Paths dropped as another spelling of an earlier one (same device and inode).
    public let duplicates: Int
    /// `K/N` when `--shard` chose a share of the list.
    public let shard: String?
    /// Databases this run was to process (its shard of the list).
    public let selected: Int
    /// Databases with a result; `selected - processed` were not started (`--fail-fast`,
    /// or a signal).
    public let processed: Int
    public let notStarted: Int
    public let succeeded: Int
    public let failed: Int
    /// Databases per `outcome` (`migrated`, `current`, `passed`, `backed-up`, `failed` …).
    public let outcomes: [String: Int]
    /// Failed databases per exit status (`"65": 2`).
    public let exitCodes: [String: Int]
    public let failures: [Failure]
    public let exitCode: Int32
    public let totalSeconds: Double

    public init(
        command: String, listed: Int, duplicates: Int, shard: String?, selected: Int, processed: Int,
        succeeded: Int, outcomes: [String: Int], failures: [Failure], exitCode: Int32, totalSeconds: Double
    ) {
        self.command = command
        self.listed = listed
        self.duplicates = duplicates
        self.shard = shard
        self.selected = selected
        self.processed = processed
        self.notStarted = selected - processed
        self.succeeded = succeeded
        self.failed = failures.count
        self.outcomes = outcomes
        var codes: [String: Int] = [:]
        for failure in failures { codes[String(failure.exitCode), default: 0] += 1 }
        self.exitCodes = codes
        self.failures = failures
        self.exitCode = exitCode
        self.totalSeconds = totalSeconds
    }

    /// The exit status of a run whose databases ended with `statuses`: 0 when all
    /// succeeded; otherwise the status every failure shares, or 1 when they differ.
    public static func exitCode<Statuses: Sequence>(of statuses: Statuses) -> Int32 where Statuses.Element == Int32 {
        var shared: Int32?
        for status in statuses where status != 0 {
            if let known = shared, known != status { return 1 }
            shared = status
        }
        return shared ?? 0
    }
}
