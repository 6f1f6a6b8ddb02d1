import Foundation
import Synchronization

/// What this process is waiting on now: each run's `LockWaits` notes its database while
/// it waits for another connection's lock, so that a live progress line can name it
/// ("waiting on a lock: /srv/a/app.db (12 s of 30 s)") instead of a time left that stands
/// still. Only the live line reads it; nothing is decided by it.
public final class LockWaitBoard: Sendable {
    /// The board of this process.
    public static let shared = LockWaitBoard()

    /// One database being waited on.
    public struct Wait: Sendable, Equatable {
        public let database: String
        /// Of the run's allowance (`--timeout`), spent so far.
        public let waitedSeconds: Double
        public let timeoutSeconds: Double
    }

    private struct Entry {
        let database: String
        var waitedSeconds: Double
        let timeoutSeconds: Double
        /// When the last pause ended (uptime nanoseconds).
        var lastPause: UInt64
    }

    /// A pause lasts at most 50 ms (`LockWaits.pause`): an entry not refreshed for this
    /// long belongs to a wait that is over (the lock was granted or the run gave up).
    static let staleAfterNanoseconds: UInt64 = 250_000_000

    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    init() {}

    /// `owner` (one run's allowance) has waited `waitedSeconds` in all, and goes on waiting.
    func note(_ owner: ObjectIdentifier, database: String, waitedSeconds: Double, timeoutSeconds: Double) {
        let now = DispatchTime.now().uptimeNanoseconds
        entries.withLock { entries in
            entries[owner] = Entry(database: database, waitedSeconds: waitedSeconds, timeoutSeconds: timeoutSeconds, lastPause: now)
        }
    }

    /// `owner`'s run is over.
    func remove(_ owner: ObjectIdentifier) {
        _ = entries.withLock { $0.removeValue(forKey: owner) }
    }

    /// The databases waited on now, the longest wait first.
    public func current() -> [Wait] {
        let now = DispatchTime.now().uptimeNanoseconds
        return entries.withLock { entries in
            entries.values
                .filter { now &- $0.lastPause < Self.staleAfterNanoseconds }
                .map { Wait(database: $0.database, waitedSeconds: $0.waitedSeconds, timeoutSeconds: $0.timeoutSeconds) }
                .sorted { ($0.waitedSeconds, $0.database) > ($1.waitedSeconds, $1.database) }
        }
    }
}
