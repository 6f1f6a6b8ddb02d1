import Dispatch
import Foundation
import StewardCore
import Synchronization
import StewardBase

/// A command run over many databases: the list, its shard, a bounded pool of jobs, one
/// result line per database as it finishes (text, or NDJSON with `--json`), a summary
/// last, and the exit status of them all (`FleetSummary.exitCode(of:)`).
struct FleetRun {
    /// What one database's run produced.
    struct Item: Sendable {
        let outcome: String
        let exitCode: Int32
        /// The NDJSON line.
        let json: String
        /// The text after the path on the database's line.
        let detail: String
        /// Why the database failed, for the summary.
        let message: String?
        /// Its part of the handover files.
        let handover: Handover.Item
    }

    /// One database's run: its path and the run's cancellation in, its line out.
    typealias Work = @Sendable (_ path: String, _ cancellation: Cancellation) throws -> Item

    let command: String
    let kind: FleetItemKind
    let fleet: FleetOptions
    let json: Bool
    let quiet: Bool
    /// The handover files asked for, and what each item reads (which none may replace).
    var handover: Handover = .none
    var inputs: @Sendable (String) -> [ReportFile.Input] = { _ in [] }

    func run(on terminal: Terminal, _ work: @escaping Work) throws -> Int32 {
        let start = DispatchTime.now()
        let given = try fleet.givenPaths()
        let list = DatabaseList(paths: given)
        let selected = list.selection(fleet.shard)
        let inputs = handover.isEmpty ? [] : selected.flatMap(self.inputs)
        for (option, path) in handover.files {
            if let conflict = ReportFile.conflict(path: path, inputs: inputs) {
                throw StewardError(.usage, "'--\(option) \(path)' \(conflict); a report never replaces an input")
            }
        }
        // Each item's part of the handover files, in the list's order.
        let recorded = Mutex<[Int: Item]>([:])
        let recording = !handover.isEmpty
        let tally = FleetTally()
        let live = terminal.isErrorInteractive && !quiet
        let output = Output(terminal: terminal, live: live, total: selected.count, start: start)
        let command = self.command
        let kind = self.kind
        let json = self.json
        let failFast = fleet.failFast

        let interrupted = try SignalTrap.run(clearingProgressOn: live ? terminal : nil) { cancellation in
            // While a database waits for a lock nothing finishes: the live line is redrawn
            // on its own, so that it can say what is waited on.
            let ticker = live ? output.startTicking(tally: tally) : nil
            defer { ticker?.stop() }
            JobPool.run(
                count: selected.count, width: fleet.jobs,
                shouldStart: { !cancellation.isCancelled && !(failFast && tally.hasFailures) },
                job: { index in
                    let path = selected[index]
                    let item = Self.item(for: path, command: command, kind: kind, cancellation: cancellation, work)
                    tally.record(database: path, outcome: item.outcome, exitCode: item.exitCode, message: item.message)
                    if recording { recorded.withLock { $0[index] = item } }
                    output.emit(json ? item.json : Self.line(path: path, item: item), tally: tally)
                })
            return cancellation.isCancelled
        }
        let summary = tally.summary(
            command: command, listed: given.count, duplicates: list.duplicateCount, shard: fleet.shard,
            selected: selected.count, interrupted: interrupted, totalSeconds: (Self.seconds(since: start) * 1000).rounded() / 1000)
        let summaryLine = try FleetEnvelope(summary: summary, command: command, exitCode: summary.exitCode).line()
        if recording {
            let items = recorded.withLock { items in items.sorted { $0.key < $1.key }.map(\.value) }
            try handover.write(command: command, items: items.map(\.handover),
                               jsonLines: (items.map(\.json) + [summaryLine]).joined(separator: "\n") + "\n",
                               fleet: summary, inputs: inputs)
        }
        terminal.print(json ? summaryLine : Self.render(summary, kind: kind))
        return summary.exitCode
    }

    /// Runs one database, turning a thrown error into its failure line.
    private static func item(
        for path: String, command: String, kind itemKind: FleetItemKind, cancellation: Cancellation,
        _ work: (String, Cancellation) throws -> Item
    ) -> Item {
        let kind: String
        let message: String
        let status: Int32
        do {
            return try work(path, cancellation)
        } catch let error as StewardError {
            (kind, message, status) = (error.kind.rawValue, RemedyWording.message(of: error), ExitCode.for(error.kind))
        } catch {
            (kind, message, status) = (StewardError.Kind.internal.rawValue, SQLiteMessage.text(of: error), ExitCode.software)
        }
        let line = switch itemKind {
        case .bundle: FleetFailureLine(database: nil, bundle: .init(path: path), error: .init(kind: kind, message: message))
        case .database: FleetFailureLine(database: DatabaseReference(path: path), bundle: nil, error: .init(kind: kind, message: message))
        }
        let json = (try? FleetEnvelope(report: line, command: command, exitCode: status, outcome: "failed", kind: itemKind).line())
            ?? "{\"kind\":\"\(itemKind.rawValue)\",\"status\":\"error\",\"exitCode\":\(status)}"
        return Item(outcome: "failed", exitCode: status, json: json, detail: message, message: message,
                    handover: .failure(path, command: command, exitCode: status, message: message))
    }

    /// `ok     migrated   /srv/a/app.db  1 → 3 …` or `error  exit 65    /srv/b/app.db  …`.
    static func line(path: String, item: Item) -> String {
        let status = item.exitCode == 0 ? "ok" : "FAIL"
        let outcome = item.exitCode == 0 ? item.outcome : "exit \(item.exitCode)"
        return "\(status.padding(toLength: 5, withPad: " ", startingAt: 0))"
            + "\(outcome.padding(toLength: 14, withPad: " ", startingAt: 0))\(path)  \(item.detail)"
    }

    static func render(_ summary: FleetSummary, kind: FleetItemKind) -> String {
        var lines: [String] = []
        var databases = "\(summary.listed) listed"
        if summary.duplicates > 0 { databases += ", \(summary.duplicates) duplicate\(summary.duplicates == 1 ? "" : "s") skipped" }
        if let shard = summary.shard { databases += ", shard \(shard): \(summary.selected)" }
        lines.append((kind == .bundle ? "Bundles     " : "Databases   ") + databases)
        let outcomes = summary.outcomes.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        lines.append("Result      \(summary.succeeded) succeeded, \(summary.failed) failed"
                     + (outcomes.isEmpty ? "" : " (\(outcomes))")
                     + (summary.notStarted > 0 ? ", \(summary.notStarted) not started" : ""))
        if !summary.exitCodes.isEmpty {
            let codes = summary.exitCodes.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
            lines.append("Failures    by exit status: \(codes)")
            // Each failed database again, at the end where a long run's output is read:
            // status, path and reason (a message of the run, which carries no row data).
            lines.append(ReportOutput.table(summary.failures.map { ["\($0.exitCode)", $0.database.path, $0.message] }, indent: 4))
        }
        lines.append("Exit status \(summary.exitCode)")
        lines.append("Time        \(ReportOutput.seconds(summary.totalSeconds))")
        return lines.joined(separator: "\n")
    }

    static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }

    /// Writes result lines from the jobs one at a time, and on a terminal keeps a live
    /// line on stderr (done/total, failed, rate, and the time left, or what is waited on)
    /// below them.
    private final class Output: Sendable {
        /// Held while a result line and the live line are written, so that lines from
        /// two jobs never interleave.
        private let writing = Mutex(())
        private let terminal: Terminal
        private let live: Bool
        private let total: Int
        private let start: DispatchTime
        private let board: LockWaitBoard

        init(terminal: Terminal, live: Bool, total: Int, start: DispatchTime, board: LockWaitBoard = .shared) {
            self.terminal = terminal
            self.live = live
            self.total = total
            self.start = start
            self.board = board
        }

        func emit(_ line: String, tally: FleetTally) {
            writing.withLock { _ in
                if live { terminal.progress("\r\u{1B}[2K") }
                terminal.print(line)
                if live { drawLiveLine(tally: tally) }
            }
        }

        /// Redraws the live line twice a second until the ticker is stopped.
        func startTicking(tally: FleetTally) -> Ticker {
            let ticker = Ticker()
            let thread = Thread { [self] in
                while !ticker.waitForStop(seconds: 0.5) {
                    writing.withLock { _ in
                        terminal.progress("\r\u{1B}[2K")
                        drawLiveLine(tally: tally)
                    }
                }
                ticker.finished.signal()
            }
            thread.start()
            return ticker
        }

        /// Called with `writing` held.
        private func drawLiveLine(tally: FleetTally) {
            let (done, failed) = tally.counts
            let elapsed = FleetRun.seconds(since: start)
            let rate = elapsed > 0 ? Double(done) / elapsed : 0
            var text = String(format: "%d/%d done, %d failed, %.1f/s", done, total, failed, rate)
            let waits = board.current()
            if let first = waits.first {
                text += ", waiting on a lock: \(ReportOutput.escaped(first.database))"
                    + String(format: " (%.0f s of %.0f s)", first.waitedSeconds, first.timeoutSeconds)
                if waits.count > 1 { text += " and \(waits.count - 1) more" }
            } else if rate > 0 {
                text += String(format: ", %.0f s left", Double(total - done) / rate)
            }
            terminal.progress(text)
        }
    }

    /// Stops the live line's redrawing thread, and waits until it has stopped.
    final class Ticker: Sendable {
        private let stopping = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)

        /// True once `stop()` was called; otherwise after `seconds`, false.
        func waitForStop(seconds: Double) -> Bool {
            stopping.wait(timeout: .now() + seconds) == .success
        }

        func stop() {
            stopping.signal()
            finished.wait()
        }
    }
}
