import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The time a backup may spend waiting for other connections' locks, in all: SQLite's
/// busy handler and the retries of `sqlite3_backup_step` draw on the same allowance, so
/// that `--timeout` bounds the whole run's waiting, not each wait.
final class LockWaits: Sendable {
    let timeout: Double
    private let cancellation: Cancellation
    private let waited = Mutex<Double>(0)

    init(timeout: Double, cancellation: Cancellation) {
        self.timeout = timeout
        self.cancellation = cancellation
    }

    var secondsWaited: Double {
        waited.withLock { $0 }
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
        waited.withLock { $0 += slept }
        return true
    }
}
