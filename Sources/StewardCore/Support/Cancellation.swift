import Foundation

/// A flag that a signal handler sets and long-running work polls (between statements,
/// from SQLite's progress and busy handlers).
public final class Cancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false
    private var signalName: String?

    public init() {}

    public var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelled
    }

    /// The signal that cancelled the work, for the message (`SIGINT`).
    public var reason: String? {
        lock.lock()
        defer { lock.unlock() }
        return signalName
    }

    public func cancel(reason: String) {
        lock.lock()
        cancelled = true
        if signalName == nil { signalName = reason }
        lock.unlock()
    }
}
