import Foundation
import SQLiteKit
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The one lock-wait policy of every command: `--timeout` is the time one database's run
/// may spend waiting for other connections' locks, in all. Every connection the run opens
/// (`attach(to:)`) and every retry of its own (`sqlite3_backup_step`, the replacement's
/// lock) draw on the same allowance, so `--timeout` bounds the whole run's waiting, not
/// each wait; a cancelled run stops waiting at once.
final class LockWaits: Sendable {
    let timeout: Double
    private let cancellation: Cancellation
    private let waited = Mutex<Double>(0)
    /// The database a wait is shown for (`LockWaitBoard`), nil for none.
    private let database: String?
    private let board: LockWaitBoard

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
        waited.withLock { $0 }
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
        let remaining = timeout - secondsWaited
        guard remaining > 0 else { return false }
        let pause = min(remaining, 0.05, 0.002 * Double(attempt + 1))
        let start = DispatchTime.now().uptimeNanoseconds
        usleep(useconds_t(pause * 1_000_000))
        let slept = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let total = waited.withLock { waited in
            waited += slept
            return waited
        }
        if let database {
            board.note(ObjectIdentifier(self), database: database, waitedSeconds: total, timeoutSeconds: timeout)
        }
        return true
    }
}
