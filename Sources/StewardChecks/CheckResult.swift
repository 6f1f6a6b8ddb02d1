import StewardBase

/// One check as every command's report gives it (`$defs/check` in the schema): verify's,
/// backup's and restore's checks alike, so that a reader of one report can read the others.
/// Names, counts and settings only; never row data.
public struct CheckResult: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        /// `skipped`: not run, on request, for want of an input, or because an earlier check
        /// refused the file. `accepted`: failed as the bundle's manifest recorded
        /// (`backup --as-is`), and accepted by `restore --accept-recorded-failures`.
        case pass, fail, skipped, accepted
    }

    public let name: CheckName
    public let status: Status
    /// One line: what passed, or what failed, or why the check was skipped.
    public let summary: String
    public let durationSeconds: Double
    /// The first problems found (at most a few dozen lines).
    public let details: [String]
    /// For a check skipped because the run lacked an input: which one, so that the
    /// command line can name the option that gives it. Not part of the JSON.
    public var missingInput: MissingInput?
    /// For a failed check that a run with another option could pass: which way out, so
    /// that the command line can add the option to the summary. Not part of the JSON.
    public var remedy: StewardError.Remedy?

    private enum CodingKeys: String, CodingKey {
        case name, status, summary, durationSeconds, details
    }

    public init(name: CheckName, status: Status, summary: String, durationSeconds: Double, details: [String] = [],
                missingInput: MissingInput? = nil) {
        self.name = name
        self.status = status
        self.summary = summary
        self.durationSeconds = durationSeconds
        self.details = details
        self.missingInput = missingInput
    }

    package static func skipped(_ name: CheckName, _ reason: String) -> CheckResult {
        CheckResult(name: name, status: .skipped, summary: reason, durationSeconds: 0)
    }

    /// Skipped because the run was not given `input`; the summary says so in words.
    package static func skipped(_ name: CheckName, missing input: MissingInput) -> CheckResult {
        CheckResult(name: name, status: .skipped, summary: input.summary, durationSeconds: 0, missingInput: input)
    }

    /// The same check with its one line worded otherwise (by the command line); its
    /// remedy is then in the words.
    public func summarized(_ summary: String) -> CheckResult {
        CheckResult(name: name, status: status, summary: summary, durationSeconds: durationSeconds, details: details,
                    missingInput: missingInput)
    }
}

extension CheckResult {
    /// An input of verify that a check needs and the run was not given.
    public enum MissingInput: Sendable, Equatable {
        /// No database: every check of a database is skipped.
        case database
        /// No migration set (the ledger and schema checks).
        case migrations
        /// No expected version and no migration set to take it from.
        case expectedVersion
        /// No search contract.
        case contract
        /// No assertion file.
        case assertions

        /// The core's own words, without the command line's option names.
        package var summary: String {
            switch self {
            case .database: "no database given"
            case .migrations: "no migration set given"
            case .expectedVersion: "no expected version or migration set given"
            case .contract: "no search contract given"
            case .assertions: "no assertion file given"
            }
        }
    }
}
