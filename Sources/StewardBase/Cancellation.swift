import Foundation
import Synchronization

/// A flag that a signal handler sets and long-running work polls (between statements,
/// from SQLite's progress and busy handlers).
public final class Cancellation: Sendable {
    private struct State {
        var cancelled = false
        var signalName: String?
    }

    private let state = Mutex(State())
    /// The name of the signal a handler recorded, nil before one arrived: a signal
    /// handler may not take the lock, so it records the signal where this polls it.
    private let signalled: (@Sendable () -> String?)?

    public init() {
        signalled = nil
    }

    /// A cancellation that is also cancelled once `signalled` names a signal.
    public init(signalled: @escaping @Sendable () -> String?) {
        self.signalled = signalled
    }

    public var isCancelled: Bool {
        if signalled?() != nil { return true }
        return state.withLock { $0.cancelled }
    }

    /// The signal that cancelled the work, for the message (`SIGINT`).
    public var reason: String? {
        state.withLock { $0.signalName } ?? signalled?()
    }

    public func cancel(reason: String) {
        state.withLock { state in
            state.cancelled = true
            if state.signalName == nil { state.signalName = reason }
        }
    }
}
