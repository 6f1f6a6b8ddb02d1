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
        var summary: String {
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
