import ArgumentKit
import Foundation
import StewardCore

/// `steward report`: summarise every report Steward writes (fleet NDJSON, `--json`
/// objects, `--report` files), each command's results apart, and write the handover
/// files for them.
struct ReportCommand: StewardCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Summarise the reports of Steward's runs: NDJSON lines, --json objects and --report files.",
        discussion: """
            Reads every report Steward writes: the NDJSON lines 'migrate', 'verify', 'backup' and \
            'restore --check-only' print with --json over many databases or bundles (the shards of one run \
            concatenated, or runs one after another), the object a run over one prints with --json, and the \
            files --report writes, in any mix. Each command's results are kept apart; a database with more \
            than one result of one command counts by its last. Prints the counts per command, outcome and \
            exit status, then each failed database with its command and reason. Exit status: the fleet's, \
            by the rule of a run over many databases (0 when every database succeeded; otherwise the status \
            all failures share, or 1), a run that failed as a whole (a line of kind run: a shard's usage \
            error) counting as a failure; 65 for input that is not a report of Steward's.
            """,
        arguments: [Arg.files.definition],
        options: [CommonOptions.json] + Handover.forReadingReports)

    enum Arg {
        static let files = RepeatedArgument("file", help: "Report files: NDJSON lines, --json objects or --report files ('-': standard input).")
    }

    let files: [String]
    let json: Bool
    let handover: Handover

    init(_ values: ParsedValues) throws(CommandLineError) {
        // The parser refuses a run without a file.
        files = values[Arg.files]
        json = values[CommonOptions.json]
        handover = try Handover(values, inputs: Self.inputs(files), reportFile: false)
    }

    static func inputs(_ files: [String]) -> [ReportFile.Input] {
        files.filter { $0 != "-" }.map { .init("the report \($0)", path: $0) }
    }

    func run(on terminal: Terminal) throws -> Int32 {
        let report = try FleetReport.read(files, keepingReports: !handover.isEmpty)
        if !handover.isEmpty { try handover.write(report: report, inputs: Self.inputs(files)) }
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
        if report.commands.count > 1 {
            for results in report.commands {
                let outcomes = results.outcomes.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                lines.append("  \(results.command.padding(toLength: 10, withPad: " ", startingAt: 0))\(results.succeeded) succeeded, \(results.failed) failed"
                             + (outcomes.isEmpty ? "" : " (\(outcomes))"))
            }
        }
        if !report.exitCodes.isEmpty {
            lines.append("Failures    by exit status: "
                         + report.exitCodes.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
            lines.append(ReportOutput.table(report.failures.map { ["\($0.exitCode)", $0.command ?? "", ReportOutput.escaped($0.database.path), ReportOutput.escaped($0.message)] }, indent: 4))
        }
        if !report.runFailures.isEmpty {
            lines.append("Runs failed \(report.runFailures.count), before or outside their databases (which have no lines):")
            lines.append(ReportOutput.table(report.runFailures.map { ["\($0.exitCode)", $0.command, $0.message] }, indent: 4))
        }
        lines.append("Exit status \(report.exitCode)")
        return lines.joined(separator: "\n")
    }
}
