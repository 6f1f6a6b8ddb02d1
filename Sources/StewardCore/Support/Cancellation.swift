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

    public init() {}

    public var isCancelled: Bool {
        state.withLock { $0.cancelled }
    }

    /// The signal that cancelled the work, for the message (`SIGINT`).
    public var reason: String? {
        state.withLock { $0.signalName }
    }

    public func cancel(reason: String) {
        state.withLock { state in
            state.cancelled = true
            if state.signalName == nil { state.signalName = reason }
        }
    }
}
