import Foundation
import SQLiteKit
import Synchronization

import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// The one lock-wait policy of every command: `--timeout` is the time one database's run
/// may spend waiting for other connections' locks, in all. Every connection the run opens
/// (`attach(to:)`) and every retry of its own (`sqlite3_backup_step`, the replacement's
/// lock) draw on the same allowance, so `--timeout` bounds the whole run's waiting, not
/// each wait; a cancelled run stops waiting at once.
///
/// The allowance is wall time: while several connections of the run wait at once (verify
/// checks the original while it copies), the time counts once. Summing each connection's
/// pauses spent a 2 s allowance in about 1 s with two waiting side by side.
final class LockWaits: Sendable {
    let timeout: Double
    private let cancellation: Cancellation
    private let spent = Mutex(Spent())
    /// The database a wait is shown for (`LockWaitBoard`), nil for none.
    private let database: String?
    private let board: LockWaitBoard

    /// The time during which at least one pause was under way: the ended stretches, and
    /// the one going on since `since` while `pausing` pauses overlap.
    private struct Spent {
        var ended: Double = 0
        var pausing = 0
        var since: UInt64 = 0

        func seconds(at now: UInt64) -> Double {
            ended + (pausing > 0 ? Double(now &- since) / 1e9 : 0)
        }
    }

    init(timeout: Double, cancellation: Cancellation, database: String? = nil, board: LockWaitBoard = .shared) {
        self.timeout = timeout
        self.cancellation = cancellation
        self.database = database
        self.board = board
    }

    deinit {
        if database != nil { board.remove(ObjectIdentifier(self)) }
    }

    var secondsWaited: Double {
        let now = DispatchTime.now().uptimeNanoseconds
        return spent.withLock { $0.seconds(at: now) }
    }

    /// Lets `connection` wait for other connections' locks on this allowance (SQLite's
    /// busy handler; it replaces any busy timeout).
    func attach(to connection: Connection) {
        connection.setBusyHandler { [self] attempt in pause(attempt: attempt) }
    }

    /// Sleeps briefly (longer as `attempt` grows, at most 50 ms) and returns true, or
    /// returns false at once when the allowance is spent or the run was cancelled.
    func pause(attempt: Int) -> Bool {
        if cancellation.isCancelled { return false }
        let remaining: Double? = spent.withLock { spent in
            let now = DispatchTime.now().uptimeNanoseconds
            let remaining = timeout - spent.seconds(at: now)
            guard remaining > 0 else { return nil }
            if spent.pausing == 0 { spent.since = now }
            spent.pausing += 1
            return remaining
        }
        guard let remaining else { return false }
        usleep(useconds_t(min(remaining, 0.05, 0.002 * Double(attempt + 1)) * 1_000_000))
        let total = spent.withLock { spent in
            let now = DispatchTime.now().uptimeNanoseconds
            spent.pausing -= 1
            if spent.pausing == 0 { spent.ended += Double(now &- spent.since) / 1e9 }
            return spent.seconds(at: now)
        }
        if let database {
            board.note(ObjectIdentifier(self), database: database, waitedSeconds: total, timeoutSeconds: timeout)
        }
        return true
    }
}

/// How long an operation waits for other connections' locks before it gives up with
/// `StewardError.Kind.busy` (75): the default of `--timeout` in every command that waits.
/// How the time is spent still differs by operation (docs/design-notes.md).
public enum LockWait {
    public static let defaultSeconds: Double = 30
}
