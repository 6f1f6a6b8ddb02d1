import StewardBase

/// What one database check found: the one result of the checks that verify, backup and
/// restore share (`DatabaseChecks`). Each command renders it in its own report, under the
/// names and words that report has always used.
///
/// Nothing in it is row data: SQLite's integrity messages name tables, indexes, pages and
/// rowids; foreign-key counts name tables; FTS5's messages name the table and the damage.
package struct Check: Sendable, Equatable {
    package enum Status: Sendable, Equatable {
        case ok, failed
    }

    package let name: CheckName
    package let status: Status
    /// One line on what was found.
    package let detail: String
    /// One line per problem found.
    package var problems: [String] = []
    /// How a passing check looked where it could not look as usual (a contentless FTS4
    /// table read through fts4aux); shown as details.
    package var notes: [String] = []
    /// What the check counted, by subject: the problems `integrity_check` found,
    /// violations per `child → parent` table pair.
    package var counts: [String: Int] = [:]
    /// The `user_version` read, and the one it was held against (version check).
    package var userVersion: Int32?
    package var expectedUserVersion: Int32?
    /// The FTS5 tables checked, and the full-text tables (FTS5, FTS4 or FTS3) whose check
    /// failed, in name order (full-text check).
    package var fts5Tables: [String] = []
    package var failedFTS5Tables: [String] = []
    /// The FTS3 and FTS4 tables checked, in name order (full-text check).
    package var fts4Tables: [String] = []
    /// Whether a failure is a module that is not loaded (schema-objects check): an
    /// extension's, which loading it would give.
    package var missingModule = false

    /// For integrity: the pragma stopped on damage after the findings in `problems`.
    package var stopped: String?

    package init(
        name: CheckName, status: Status, detail: String, problems: [String] = [], notes: [String] = [],
        counts: [String: Int] = [:], userVersion: Int32? = nil, expectedUserVersion: Int32? = nil,
        fts5Tables: [String] = [], failedFTS5Tables: [String] = [], fts4Tables: [String] = [], missingModule: Bool = false,
        stopped: String? = nil
    ) {
        self.name = name
        self.status = status
        self.detail = detail
        self.problems = problems
        self.notes = notes
        self.counts = counts
        self.userVersion = userVersion
        self.expectedUserVersion = expectedUserVersion
        self.fts5Tables = fts5Tables
        self.failedFTS5Tables = failedFTS5Tables
        self.fts4Tables = fts4Tables
        self.missingModule = missingModule
        self.stopped = stopped
    }

    package var passed: Bool { status != .failed }

    /// The lines a report shows for the problems: integrity_check's split into one line
    /// per finding (`IntegrityMessages`), with where it stopped; the others as they are.
    package var shownProblems: [String] {
        guard name == .integrity else { return problems }
        return IntegrityMessages.lines(problems) + (stopped.map { [$0] } ?? [])
    }

    /// The lines a report gives under the check's one line: the problems as shown, then
    /// the notes.
    package var reportedDetails: [String] { shownProblems + notes }

    /// The counts as `a → b: 3, c → d: 1`, in subject order.
    package var countsSummary: String {
        counts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
    }

    /// The sum of the counts (all foreign-key violations).
    package var total: Int { counts.values.reduce(0, +) }
}

extension Check {
    /// A check a command words itself (verify's own checks): whether it passed, its one
    /// line, and the lines under it.
    package init(_ name: CheckName, passed: Bool, _ detail: String, _ details: [String] = []) {
        self.init(name: name, status: passed ? .ok : .failed, detail: detail, notes: details)
    }
}

/// A shared check (`DatabaseChecks`) as backup and restore word it in their reports: one
/// wording for both, so that a bundle's checks read the same at either end.
extension CheckResult {
    /// `recorded`: a failure that `backup --as-is` records in the bundle instead of
    /// refusing it, and says so. `versionsFrom`: where the expected `user_version` comes
    /// from, as the summary names it ("the source", "the manifest").
    package init(_ check: Check, durationSeconds: Double, recorded: Bool = false, versionsFrom: String) {
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
