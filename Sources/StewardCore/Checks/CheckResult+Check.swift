/// A shared check (`DatabaseChecks`) as backup and restore word it in their reports: one
/// wording for both, so that a bundle's checks read the same at either end.
extension CheckResult {
    /// `recorded`: a failure that `backup --as-is` records in the bundle instead of
    /// refusing it, and says so. `versionsFrom`: where the expected `user_version` comes
    /// from, as the summary names it ("the source", "the manifest").
    init(_ check: Check, durationSeconds: Double, recorded: Bool = false, versionsFrom: String) {
        let wording = check.wording(recorded: recorded ? " (recorded)" : "", versionsFrom: versionsFrom)
        self.init(name: check.name, status: check.passed ? .pass : .fail, summary: wording.summary,
                  durationSeconds: durationSeconds, details: wording.details)
        if check.missingModule { remedy = .loadExtension }
    }
}

extension Check {
    fileprivate func wording(recorded: String, versionsFrom: String) -> (summary: String, details: [String]) {
        switch name {
        case .integrity:
            guard !passed else { return ("ok", []) }
            let lines = shownProblems
            return ("\(lines.count) problem\(lines.count == 1 ? "" : "s") found\(recorded)", lines)
        case .foreignKeys:
            guard !passed else { return ("no violations", []) }
            return ("\(total) violation\(total == 1 ? "" : "s")\(recorded): \(countsSummary)", [])
        case .version:
            let value = userVersion ?? 0
            guard !passed else { return ("\(value), as in \(versionsFrom)", []) }
            return ("\(value), \(versionsFrom) says \(expectedUserVersion ?? 0)", [])
        case .ftsSync:
            return (passed ? detail : "\(detail)\(recorded)", problems + notes)
        default:
            return (detail, problems + notes)
        }
    }
}
