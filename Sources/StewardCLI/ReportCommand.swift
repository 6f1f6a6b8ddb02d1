import ArgumentKit
import Foundation
import StewardCore

/// `steward report`: summarise the NDJSON of fleet runs (the shards of one run, or runs
/// one after another).
struct ReportCommand: StewardCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Summarise the NDJSON lines of runs over many databases.",
        discussion: """
            Reads the lines that 'migrate', 'verify' and 'backup' print with --json over many databases \
            (the shards of one run concatenated, or runs one after another) and prints the counts per \
            outcome and exit status and the failed databases with their reasons. A database with more \
            than one line counts by its last. Exit status: the fleet's, by the rule of a run over many \
            databases (0 when every database succeeded; otherwise the status all failures share, or 1), \
            a run that failed as a whole (a line of kind run: a shard's usage error) counting as a failure; \
            65 for a line that is not one of a fleet run.
            """,
        arguments: [Arg.files.definition],
        options: [CommonOptions.json])

    enum Arg {
        static let files = RepeatedArgument("file", help: "NDJSON files ('-': standard input).")
    }

    let files: [String]
    let json: Bool

    init(_ values: ParsedValues) throws(CommandLineError) {
        // The parser refuses a run without a file.
        files = values[Arg.files]
        json = values[CommonOptions.json]
    }

    func run(on terminal: Terminal) throws -> Int32 {
        let report = try FleetReport.read(files)
        // The summary itself was read: a database that failed makes it `failed`, not an error of this run.
        let status = ReportOutput.Envelope.Status.summing(exitCode: report.exitCode)
        terminal.print(json ? try ReportOutput.json(report, command: "report", exitCode: report.exitCode, status: status) : Self.render(report))
        return report.exitCode
    }

    static func render(_ report: FleetReport) -> String {
        var lines: [String] = []
        lines.append("Databases   \(report.databases) from \(report.lines) lines in \(report.files.count) file\(report.files.count == 1 ? "" : "s")"
                     + (report.repeated > 0 ? ", \(report.repeated) with more than one line (the last counts)" : ""))
        let outcomes = report.outcomes.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        lines.append("Result      \(report.succeeded) succeeded, \(report.failed) failed" + (outcomes.isEmpty ? "" : " (\(outcomes))")
                     + (report.notStarted > 0 ? ", \(report.notStarted) not started" : ""))
        if !report.exitCodes.isEmpty {
            lines.append("Failures    by exit status: "
                         + report.exitCodes.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
            lines.append(ReportOutput.table(report.failures.map { ["\($0.exitCode)", $0.database.path, $0.message] }, indent: 4))
        }
        if !report.runFailures.isEmpty {
            lines.append("Runs failed \(report.runFailures.count), before or outside their databases (which have no lines):")
            lines.append(ReportOutput.table(report.runFailures.map { ["\($0.exitCode)", $0.command, $0.message] }, indent: 4))
        }
        lines.append("Exit status \(report.exitCode)")
        return lines.joined(separator: "\n")
    }
}
