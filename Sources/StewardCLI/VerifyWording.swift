import StewardCore

/// Verify's skipped checks name the option that would have run them: the core says which
/// input was missing, the command line which option gives it.
enum VerifyWording {
    static func summary(for input: CheckResult.MissingInput) -> String {
        switch input {
        case .database: "no --db given"
        case .migrations: "no --migrations given"
        case .expectedVersion: "no --expect-version or --migrations given"
        case .contract: "no --contract given"
        case .assertions: "no --assert given"
        }
    }

    /// `report` with each check skipped for a missing input, or failed for want of an
    /// option, worded with its option, for the text, the JSON and the report file alike.
    static func worded(_ report: VerifyReport) -> VerifyReport {
        var report = report
        report.checks = report.checks.map { check in
            if let input = check.missingInput { return check.summarized(summary(for: input)) }
            if let remedy = check.remedy { return check.summarized(check.summary + RemedyWording.suffix(for: remedy)) }
            return check
        }
        return report
    }
}
