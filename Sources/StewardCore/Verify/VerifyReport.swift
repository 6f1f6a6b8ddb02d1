/// The handover report of `steward verify`: what was checked and how it went.
/// Names, counts, settings and fixture case names only; never row data or query text.
public struct VerifyReport: Codable, Sendable {
    public struct Check: Codable, Sendable {
        public enum Status: String, Codable, Sendable {
            case pass, fail, skipped
        }

        public let name: String
        public let status: Status
        public let durationSeconds: Double
        /// One line: what passed, or what failed, or why the check was skipped.
        public let summary: String
        /// The first problems found (at most a few dozen lines).
        public let details: [String]
        /// For a check skipped because the run lacked an input: which one, so that the
        /// command line can name the option that gives it. Not part of the JSON.
        public var missingInput: MissingInput?
        /// For a failed check that a run with another option could pass: which way out, so
        /// that the command line can add the option to the summary. Not part of the JSON.
        public var remedy: StewardError.Remedy?

        private enum CodingKeys: String, CodingKey {
            case name, status, durationSeconds, summary, details
        }

        init(name: String, status: Status, durationSeconds: Double, summary: String, details: [String],
             missingInput: MissingInput? = nil) {
            self.name = name
            self.status = status
            self.durationSeconds = durationSeconds
            self.summary = summary
            self.details = details
            self.missingInput = missingInput
        }

        static func skipped(_ name: String, _ reason: String) -> Check {
            Check(name: name, status: .skipped, durationSeconds: 0, summary: reason, details: [])
        }

        /// Skipped because the run was not given `input`; the summary says so in words.
        static func skipped(_ name: String, missing input: MissingInput) -> Check {
            Check(name: name, status: .skipped, durationSeconds: 0, summary: input.summary, details: [], missingInput: input)
        }

        /// The same check with its one line worded otherwise (by the command line); its
        /// remedy is then in the words.
        public func summarized(_ summary: String) -> Check {
            Check(name: name, status: status, durationSeconds: durationSeconds, summary: summary, details: details,
                  missingInput: missingInput)
        }
    }

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

    public struct ContractCase: Codable, Sendable {
        public let name: String
        public let passed: Bool
        /// Whether the fresh and the migrated database gave the same outcome.
        public let agree: Bool
        public let freshMatches: Bool
        public let migratedMatches: Bool
        /// Outcomes as `keys [1, 2]`, `rejected: too-long`, `error: syntax`: fixture
        /// keys only, never query text.
        public let expected: String
        public let fresh: String
        public let migrated: String
    }

    public var command = "verify"
    public let stewardVersion: String
    public let sqliteVersion: String
    public let fts5Available: Bool
    public let database: Database?
    public let contractVersion: String?
    public let contractCases: [ContractCase]
    public var checks: [Check]
    public let failedChecks: [String]
    public let failedCases: [String]
    public let passed: Bool
    public let totalSeconds: Double
}
