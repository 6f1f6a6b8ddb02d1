import Foundation
import StewardCore

/// What a fleet run's list names, and so its items' lines' `kind`: databases, or the
/// bundles of restore's drills.
enum FleetItemKind: String, Sendable {
    case database
    case bundle
}

/// One line of a fleet run's NDJSON: exactly the object a single run of the command
/// prints (its report and the envelope, `ReportOutput.Envelope`), with `kind` added:
/// `database` on a database's line, which also says its `outcome`, `summary` on the
/// last line, and `run` on the one line of a run that failed as a whole.
/// schema/steward.schema.json describes every line.
struct FleetEnvelope<Report: Encodable>: Encodable {
    let report: Report
    let envelope: ReportOutput.Envelope
    let kind: String
    /// `migrated`, `current`, `passed`, `backed-up`, `failed` …; nil on the summary.
    let outcome: String?

    private enum Keys: String, CodingKey {
        case kind, outcome
    }

    /// A database's line (`kind` `database`), or a bundle's in a restore drill (`bundle`).
    init(report: Report, command: String, exitCode: Int32, outcome: String, kind: FleetItemKind) {
        self.report = report
        self.envelope = ReportOutput.Envelope(command: command, exitCode: exitCode)
        self.kind = kind.rawValue
        self.outcome = outcome
    }

    /// The summary line: `failed` when any database failed (a run that finished is not
    /// itself an error, whatever its databases' statuses).
    init(summary: Report, command: String, exitCode: Int32) {
        self.report = summary
        self.envelope = ReportOutput.Envelope(
            command: command, exitCode: exitCode, status: .summing(exitCode: exitCode))
        self.kind = "summary"
        self.outcome = nil
    }

    /// The line of a run that failed as a whole, before or outside its databases (a usage
    /// error, a list that cannot be read): the failure object with `kind` `run`, so that
    /// `steward report` reads the output of a shard that never started.
    init(runFailure: Report, command: String, exitCode: Int32) {
        self.report = runFailure
        self.envelope = ReportOutput.Envelope(command: command, exitCode: exitCode)
        self.kind = "run"
        self.outcome = nil
    }

    func encode(to encoder: any Encoder) throws {
        try report.encode(to: encoder)
        try envelope.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(outcome, forKey: .outcome)
    }

    /// One line of JSON.
    func line() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return ReportOutput.escapingControlCharacters(String(decoding: try encoder.encode(self), as: UTF8.self))
    }
}

/// The report part of the line of a database whose run failed with an error rather than
/// a report: what a single run prints on failure (`error`), and the database.
struct FleetFailureLine: Encodable {
    /// A bundle as listed: a bundle that could not be read has no size to report.
    struct ListedBundle: Encodable {
        let path: String
    }

    /// The database (migrate, verify, backup), or
    let database: DatabaseReference?
    /// the bundle of a restore drill; exactly one of the two.
    let bundle: ListedBundle?
    let error: ReportOutput.Failure.Detail
}
