import Foundation

/// Collects per-database results from concurrent jobs into a `FleetSummary`. Memory grows
/// with the number of outcomes and of failures, not of databases.
public final class FleetTally: @unchecked Sendable {
    private let lock = NSLock()
    private var processed = 0
    private var succeeded = 0
    private var outcomes: [String: Int] = [:]
    private var failures: [FleetSummary.Failure] = []
    private var statuses = Set<Int32>()

    public init() {}

    public func record(database: String, outcome: String, exitCode: Int32, message: String?) {
        lock.lock()
        defer { lock.unlock() }
        processed += 1
        outcomes[outcome, default: 0] += 1
        if exitCode == 0 {
            succeeded += 1
        } else {
            statuses.insert(exitCode)
            failures.append(.init(database: database, exitCode: exitCode, message: message ?? outcome))
        }
    }

    /// Done, failed: for a progress line.
    public var counts: (processed: Int, failed: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (processed, failures.count)
    }

    public var hasFailures: Bool { counts.failed > 0 }

    public func summary(
        command: String, listed: Int, duplicates: Int, shard: Shard?, selected: Int, interrupted: Bool,
        totalSeconds: Double
    ) -> FleetSummary {
        lock.lock()
        defer { lock.unlock() }
        var exitCode = FleetSummary.exitCode(of: statuses)
        // Databases never started are not failures, but a run cut short by a signal must
        // not look complete.
        if interrupted { exitCode = 130 }
        return FleetSummary(
            command: command, listed: listed, duplicates: duplicates, shard: shard?.description,
            selected: selected, processed: processed, succeeded: succeeded, outcomes: outcomes,
            failures: failures, exitCode: exitCode, totalSeconds: totalSeconds)
    }
}
