import ArgumentKit
import StewardCore
import StewardBase

/// A command that runs one StewardCore `StewardOperation`. The shared `run(on:)` does once what
/// every such command needs: a fleet run when many databases are given, the signal trap
/// (SIGINT and SIGTERM become the operation's cancellation, 130), progress on stderr
/// unless `--quiet` (a live line is cleared however the run ends), and the report as
/// JSON or text on stdout. A command supplies its operation's options, its progress and
/// text rendering, and its exit-status rule.
protocol OperationCommand: StewardCommand {
    associatedtype Work: StewardOperation

    var output: OutputOptions { get }
    var operationOptions: Work.Options { get }

    /// Whether progress may be a live line on stderr (redrawn with `\r`), which is then
    /// cleared at the end; only when stderr is a terminal. Default: false.
    static var drawsLiveProgress: Bool { get }

    /// Whether SIGINT and SIGTERM are trapped and turned into the cancellation. Default:
    /// true; an operation that never polls it leaves them to their default action.
    var trapsSignals: Bool { get }

    /// What progress prints; not called with `--quiet`. `live`: a live line may be drawn.
    func progress(on terminal: Terminal, live: Bool) -> @Sendable (Work.Event) -> Void

    /// The report as text, for stdout.
    static func render(_ report: Work.Report) -> String

    /// The exit status a report means. Default: 0.
    func exitStatus(of report: Work.Report) -> Int32

    /// Puts the report where it goes. Default: `printReport`.
    func deliver(_ report: Work.Report, status: Int32, on terminal: Terminal) throws
}

/// A command that can run over many databases (`FleetRun`).
protocol FleetCommand {
    /// Nil for a run over one database.
    var fleet: FleetOptions? { get }
    /// One database's run.
    func fleetItem() throws -> FleetRun.Work
}

extension OperationCommand {
    var json: Bool { output.json }

    static var drawsLiveProgress: Bool { false }

    var trapsSignals: Bool { true }

    func progress(on terminal: Terminal, live: Bool) -> @Sendable (Work.Event) -> Void {
        { _ in }
    }

    func exitStatus(of report: Work.Report) -> Int32 {
        ExitCode.success
    }

    func deliver(_ report: Work.Report, status: Int32, on terminal: Terminal) throws {
        try printReport(report, status: status, on: terminal)
    }

    func run(on terminal: Terminal) throws -> Int32 {
        try runOperation(on: terminal)
    }

    /// The JSON object (report and envelope) or the text, on stdout.
    func printReport(_ report: Work.Report, status: Int32, on terminal: Terminal) throws {
        terminal.print(output.json
            ? try ReportOutput.json(report, command: Self.configuration.commandName, exitCode: status)
            : Self.render(report))
    }

    /// The shared run; a command that overrides `run(on:)` to prepare something ends here.
    func runOperation(on terminal: Terminal) throws -> Int32 {
        if let command = self as? any FleetCommand, let fleet = command.fleet {
            return try FleetRun(command: Self.configuration.commandName, fleet: fleet, json: output.json, quiet: output.quiet)
                .run(on: terminal, try command.fleetItem())
        }
        let live = Self.drawsLiveProgress && terminal.isErrorInteractive && !output.quiet
        let silent: @Sendable (Work.Event) -> Void = { _ in }
        let progress = output.quiet ? silent : self.progress(on: terminal, live: live)
        let options = operationOptions
        let report: Work.Report
        if trapsSignals {
            report = try SignalTrap.run(clearingProgressOn: live ? terminal : nil) { cancellation in
                try Work(options: options, cancellation: cancellation, progress: progress).run()
            }
        } else {
            report = try Work(options: options, cancellation: Cancellation(), progress: progress).run()
        }
        let status = exitStatus(of: report)
        try deliver(report, status: status, on: terminal)
        return status
    }
}
