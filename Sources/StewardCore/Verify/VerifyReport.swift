/// The handover report of `steward verify`: what was checked and how it went.
/// Names, counts, settings and fixture case names only; never row data or query text.
public struct VerifyReport: Codable, Sendable {
    /// An FTS5 table and the parameters it was created with.
    public struct FTSTable: Codable, Sendable {
        public let name: String
        public let columns: [String]
        public let contentMode: String
        public let content: String?
        public let contentRowID: String?
        public let tokenize: String
        public let options: [String: String]
    }

    public struct Database: Codable, Sendable {
        /// The file name, without its directory.
        public let fileName: String
        public let path: String
        public let sizeBytes: Int64
        public let userVersion: Int32
        public let ftsTables: [FTSTable]
    }

    /// A search-contract case (`ContractCaseResult`, shared with StewardKit).
    public typealias ContractCase = ContractCaseResult

    public var command = "verify"
    public let stewardVersion: String
    public let sqliteVersion: String
    public let fts5Available: Bool
    public let database: Database?
    public let contractVersion: String?
    public let contractCases: [ContractCase]
    public var checks: [CheckResult]
    public let failedChecks: [String]
    public let failedCases: [String]
    public let passed: Bool
    public let totalSeconds: Double
    /// Workspaces of earlier, killed runs of Steward's commands that this run removed from
    /// TMPDIR (names only; with `--db`).
    public var staleTemporariesRemoved: [String] = []
}
