import Foundation
import SQLiteKit
import StewardBase
import Synchronization

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

/// Descriptors of a database opened outside SQLite, closed only when every connection to
/// it is closed: closing any descriptor of a file drops all of this process's POSIX locks
/// on it, SQLite's included (verify's checks; backup's kernel copy inside a migration's
/// write transaction).
final class HeldDescriptors: Sendable {
    private let descriptors = Mutex<[Int32]>([])

    func hold(_ descriptor: Int32) {
        descriptors.withLock { $0.append(descriptor) }
    }

    /// Read-only descriptors: close() has nothing to report that matters.
    func closeAll() {
        descriptors.withLock { held in
            for descriptor in held { close(descriptor) }
            held = []
        }
    }
}
