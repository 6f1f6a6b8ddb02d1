import Foundation
import Synchronization

/// Collects per-database results from concurrent jobs into a `FleetSummary`. Memory grows
/// with the number of outcomes and of failures, not of databases.
public final class FleetTally: Sendable {
    private struct State {
        var processed = 0
        var succeeded = 0
        var outcomes: [String: Int] = [:]
        var failures: [FleetSummary.Failure] = []
        var statuses = Set<Int32>()
    }

    private let state = Mutex(State())

    public init() {}

    public func record(database: String, outcome: String, exitCode: Int32, message: String?) {
        state.withLock { state in
            state.processed += 1
            state.outcomes[outcome, default: 0] += 1
            if exitCode == 0 {
                state.succeeded += 1
            } else {
                state.statuses.insert(exitCode)
                state.failures.append(.init(database: database, exitCode: exitCode, message: message ?? outcome))
            }
        }
    }

    /// Done, failed: for a progress line.
    public var counts: (processed: Int, failed: Int) {
        state.withLock { ($0.processed, $0.failures.count) }
    }

    public var hasFailures: Bool { counts.failed > 0 }

    public func summary(
        command: String, listed: Int, duplicates: Int, shard: Shard?, selected: Int, interrupted: Bool,
        totalSeconds: Double
    ) -> FleetSummary {
        state.withLock { state in
            var exitCode = FleetSummary.exitCode(of: state.statuses)
            // Databases never started are not failures, but a run cut short by a signal must
            // not look complete.
            if interrupted { exitCode = 130 }
            return FleetSummary(
                command: command, listed: listed, duplicates: duplicates, shard: shard?.description,
                selected: selected, processed: state.processed, succeeded: state.succeeded, outcomes: state.outcomes,
                failures: state.failures, exitCode: exitCode, totalSeconds: totalSeconds)
        }
    }
}
