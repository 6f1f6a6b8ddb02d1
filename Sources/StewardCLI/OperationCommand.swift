import ArgumentKit
import StewardBase
import StewardCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A command that runs one StewardCore `StewardOperation`. The shared `run(on:)` does once what
/// every such command needs: a fleet run when many databases are given, the signal trap
/// (SIGINT and SIGTERM become the operation's cancellation, 130), progress on stderr
/// unless `--quiet` (a live line is cleared however the run ends), and the report as
/// JSON or text on stdout. A command supplies its operation's options, its progress and
/// text rendering, its wording and its exit-status rule, which a fleet run's items share.
protocol OperationCommand: StewardCommand {
    associatedtype Work: StewardOperation

    /// The operation's options, validated, and how the command runs it.
    var invocation: Invocation<Work> { get }

    /// Whether progress may be a live line on stderr (redrawn with `\r`), which is then
    /// cleared at the end; only when stderr is a terminal. Default: false.
    static var drawsLiveProgress: Bool { get }

    /// Whether SIGINT and SIGTERM are trapped and turned into the cancellation. Default:
    /// true; an operation that never polls it leaves them to their default action.
    var trapsSignals: Bool { get }

    /// What progress prints; not called with `--quiet`. `live`: a live line may be drawn.
    func progress(on terminal: Terminal, live: Bool) -> @Sendable (Work.Event) -> Void

    /// The report as the user reads it, in text and JSON alike, alone or as one item of a
    /// fleet: where the core says why, the command line names the option. Default: as it is.
    static func worded(_ report: Work.Report) -> Work.Report

    /// The report as text, for stdout.
    static func render(_ report: Work.Report) -> String

    /// The exit status a report means, alone or as one item of a fleet. Default: 0.
    static func exitStatus(of report: Work.Report) -> Int32

    /// Puts the report of a single run where it goes. Default: `printReport`.
    func deliver(_ report: Work.Report, status: Int32, on terminal: Terminal) throws

    /// Writes the handover files of a single run (`Handover`), from its report or from
    /// the error that ended it. Default: none asked for.
    func recordHandover(_ outcome: Result<(report: Work.Report, status: Int32), StewardError>) throws
}

/// A command that can run over many databases (`FleetRun`): each item runs the same
/// operation, wording and exit rule as a single run; only its output is one line
/// instead of the whole report. The items run on the job pool's threads, which call
/// the command's and its operation's static members.
protocol FleetCommand: OperationCommand, SendableMetatype where Work: SendableMetatype {
    /// What the list names. Default: databases.
    static var itemKind: FleetItemKind { get }
    /// The options every item starts from, prepared once for the whole run. Default:
    /// `options`.
    func fleetOptions() throws -> Work.Options
    /// The options of the item at `path`.
    static func options(_ options: Work.Options, for path: String) throws -> Work.Options
    /// The item's outcome on its line (`migrated`, `backed-up` …). Default: `passed` or
    /// `failed`, by the exit rule.
    static func outcome(of report: Work.Report) -> String
    /// The text after the item's path on its line, and a failed item's reason in the summary.
    static func fleetDetail(_ report: Work.Report) -> String

    /// What the run reads, which no handover file may replace.
    static func inputs(of options: Work.Options) -> [ReportFile.Input]
    /// The database's or bundle's path the options name.
    static func subject(of options: Work.Options) -> String
    /// One database's or bundle's report in the handover files: its test cases and its
    /// section of the summary.
    static func handoverCases(_ report: Work.Report) -> [JUnit.Case]
    static func handoverSummary(_ report: Work.Report) -> [String]
    static func seconds(of report: Work.Report) -> Double
}

/// A command whose only progress is a live line on stderr, drawn on a terminal and
/// otherwise left out.
protocol LiveProgressCommand: OperationCommand, SendableMetatype {
    /// The live line for `event`, which replaces the one drawn ("" clears it); nil leaves it.
    static func liveLine(for event: Work.Event) -> String?
}

extension LiveProgressCommand {
    static var drawsLiveProgress: Bool { true }

    func progress(on terminal: Terminal, live: Bool) -> @Sendable (Work.Event) -> Void {
        { event in
            guard live, let line = Self.liveLine(for: event) else { return }
            terminal.progress("\r\u{1B}[2K" + line)
        }
    }
}

extension OperationCommand {
    /// The options of the operation, validated.
    var options: Work.Options { invocation.options }
    var output: OutputOptions { invocation.output }
    var json: Bool { output.json }

    static var drawsLiveProgress: Bool { false }

    var trapsSignals: Bool { true }

    func progress(on terminal: Terminal, live: Bool) -> @Sendable (Work.Event) -> Void {
        { _ in }
    }

    static func worded(_ report: Work.Report) -> Work.Report {
        report
    }

    static func exitStatus(of report: Work.Report) -> Int32 {
        ExitCode.success
    }

    func deliver(_ report: Work.Report, status: Int32, on terminal: Terminal) throws {
        try printReport(report, status: status, on: terminal)
    }

    func recordHandover(_ outcome: Result<(report: Work.Report, status: Int32), StewardError>) throws {}

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
            return try command.runFleet(fleet, on: terminal)
        }
        let live = Self.drawsLiveProgress && terminal.isErrorInteractive && !output.quiet
        let silent: @Sendable (Work.Event) -> Void = { _ in }
        let progress = output.quiet ? silent : self.progress(on: terminal, live: live)
        let options = self.options
        let report: Work.Report
        do {
            if trapsSignals {
                report = try SignalTrap.run(clearingProgressOn: live ? terminal : nil) { cancellation in
                    try Work(options: options, cancellation: cancellation, progress: progress).run()
                }
            } else {
                report = try Work(options: options, cancellation: Cancellation(), progress: progress).run()
            }
        } catch let error as StewardError {
            // The handover records the failure too; the run's own error is what it exits with.
            try? recordHandover(.failure(error))
            throw error
        }
        let worded = Self.worded(report)
        let status = Self.exitStatus(of: worded)
        try recordHandover(.success((worded, status)))
        try deliver(worded, status: status, on: terminal)
        return status
    }
}

extension FleetCommand {
    /// Nil for a run over one database.
    var fleet: FleetOptions? { invocation.fleet }
    /// The handover files asked for (`--report`, `--junit`, `--summary`).
    var handover: Handover { invocation.handover }

    static var itemKind: FleetItemKind { .database }

    func fleetOptions() throws -> Work.Options {
        options
    }

    static func outcome(of report: Work.Report) -> String {
        exitStatus(of: report) == ExitCode.success ? "passed" : "failed"
    }

    func recordHandover(_ outcome: Result<(report: Work.Report, status: Int32), StewardError>) throws {
        guard !handover.isEmpty else { return }
        let command = Self.configuration.commandName
        switch outcome {
        case .success(let (report, status)):
            try handover.write(command: command, item: Self.handoverItem(report, subject: Self.subject(of: options)),
                               json: try ReportOutput.json(report, command: command, exitCode: status), inputs: Self.inputs(of: options))
        case .failure(let error):
            let status = ExitCode.for(error.kind)
            let message = RemedyWording.message(of: error)
            try handover.write(command: command, item: .failure(Self.subject(of: options), command: command, exitCode: status, message: message),
                               json: ReportOutput.failure(command: command, kind: error.kind.rawValue, message: message, exitCode: status),
                               inputs: Self.inputs(of: options))
        }
    }

    /// One report in the handover files.
    static func handoverItem(_ report: Work.Report, subject: String) -> Handover.Item {
        Handover.Item(subject: subject, exitCode: exitStatus(of: report), outcome: outcome(of: report),
                      seconds: seconds(of: report), cases: handoverCases(report), summary: handoverSummary(report))
    }

    /// Every item runs as a single run would, without progress (many items would
    /// interleave it), and prints its line.
    func runFleet(_ fleet: FleetOptions, on terminal: Terminal) throws -> Int32 {
        let prepared = try fleetOptions()
        var run = FleetRun(command: Self.configuration.commandName, kind: Self.itemKind, fleet: fleet, json: output.json, quiet: output.quiet)
        run.handover = handover
        run.inputs = { path in (try? Self.inputs(of: Self.options(prepared, for: path))) ?? [] }
        return try run.run(on: terminal) { path, cancellation in
            let report = try Work(options: Self.options(prepared, for: path), cancellation: cancellation).run()
            return try Self.item(Self.worded(report), path: path)
        }
    }

    /// One item's line: its report with the envelope (NDJSON), or its outcome and detail.
    static func item(_ report: Work.Report, path: String) throws -> FleetRun.Item {
        let status = exitStatus(of: report)
        let outcome = outcome(of: report)
        let detail = fleetDetail(report)
        let envelope = FleetEnvelope(
            report: report, command: configuration.commandName, exitCode: status, outcome: outcome, kind: itemKind)
        return FleetRun.Item(outcome: outcome, exitCode: status, json: try envelope.line(), detail: detail,
                             message: status == ExitCode.success ? nil : detail, handover: handoverItem(report, subject: path))
    }
}

/// Turns SIGINT and SIGTERM into a cancellation that running work polls, so that
/// Steward can roll back and clean up before it exits with status 130.
///
/// A plain `sigaction` handler, not a dispatch signal source: the source started
/// libdispatch's manager thread (epoll, signalfd) in every run, about 0.3 ms of a no-op
/// `migrate` (design notes, "Performance"). The handler only stores the signal's number (a lock-free
/// atomic store is all a handler may safely do); the cancellation reads it. SA_RESTART
/// keeps system calls that the signal interrupts from failing with EINTR.
final class SignalTrap {
    /// A reader of standard output that goes away is then a write error (EPIPE, 74), not
    /// a silent death by SIGPIPE.
    static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// The first SIGINT or SIGTERM since the trap was set, 0 before.
    private static let received = Atomic<Int32>(0)

    let cancellation = Cancellation(signalled: { SignalTrap.name(of: SignalTrap.received.load(ordering: .relaxed)) })
    /// The signal mask before the trap. A parent may start Steward with the signals
    /// blocked (the test runner does); the dispatch source read them anyway (signalfd), so
    /// the trap unblocks them on this thread, which the run's threads inherit.
    private var previousMask = sigset_t()

    init() {
        // Initialised before a handler can read it; a signal of an earlier trap is forgotten.
        Self.received.store(0, ordering: .relaxed)
        for number in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                _ = SignalTrap.received.compareExchange(expected: 0, desired: number, ordering: .relaxed)
            }
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &signals, &previousMask)
    }

    static func name(of number: Int32) -> String? {
        switch number {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        default: return nil
        }
    }

    /// Runs `body` with SIGINT and SIGTERM turned into the cancellation it is given. When
    /// `terminal` is set (a live progress line is shown there), the line is cleared
    /// however the body ends, so that a report or an error starts on a clean line.
    static func run<Result>(clearingProgressOn terminal: Terminal?, _ body: (Cancellation) throws -> Result) throws -> Result {
        let trap = SignalTrap()
        defer { terminal?.progress("\r\u{1B}[2K") }
        return try withExtendedLifetime(trap) { try body(trap.cancellation) }
    }

    deinit {
        pthread_sigmask(SIG_SETMASK, &previousMask, nil)
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
