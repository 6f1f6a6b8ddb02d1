import Foundation
import Synchronization

/// Work that runs on a thread of its own from the moment it is made, while the caller
/// goes on with something else: the checks of a restored database, the hash of a copy,
/// the compression of a payload. A thread rather than a task: each of them blocks in
/// SQLite, libarchive or `read(2)` for seconds, which must not hold one of the few
/// threads of Swift's cooperative pool.
///
/// `wait()` blocks until the body has returned, then returns its value or rethrows its
/// error, as often as it is called and from any thread. `cancel()` sets the flag the body
/// is given; a body that polls it stops early, and its result is then whatever it
/// returns or throws. Whoever owns files the body reads waits for it before removing
/// them.
package final class BackgroundWork<Value: Sendable>: Sendable {
    private let outcome = Mutex<Result<Value, any Error>?>(nil)
    private let finished = DispatchSemaphore(value: 0)
    private let stop = Cancellation()

    /// Starts `body` on a new thread; it is given the flag that `cancel()` sets.
    package init(_ body: @escaping @Sendable (_ stop: Cancellation) throws -> Value) {
        Thread.detachNewThread { [self] in
            let result = Result { try body(stop) }
            outcome.withLock { $0 = result }
            finished.signal()
        }
    }

    /// Asks the body to stop early: its result is not needed any more.
    package func cancel() {
        stop.cancel(reason: "not needed")
    }

    /// Waits for the body to return; returns its value or rethrows what it threw.
    package func wait() throws -> Value {
        finished.wait()
        // Let the next waiter through at once: the semaphore stays open from now on.
        finished.signal()
        guard let result = outcome.withLock({ $0 }) else {
            throw StewardError(.internal, "a background thread ended without a result")
        }
        return try result.get()
    }
}
