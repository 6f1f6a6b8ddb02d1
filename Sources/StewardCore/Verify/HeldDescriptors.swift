import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Descriptors of the checked database opened outside SQLite, closed only when every
/// connection to it is closed: closing any descriptor of a file drops all of this
/// process's POSIX locks on it, SQLite's included.
final class HeldDescriptors: @unchecked Sendable {
    private let lock = NSLock()
    private var descriptors: [Int32] = []

    func hold(_ descriptor: Int32) {
        lock.lock()
        descriptors.append(descriptor)
        lock.unlock()
    }

    /// Read-only descriptors: close() has nothing to report that matters.
    func closeAll() {
        lock.lock()
        defer { lock.unlock() }
        for descriptor in descriptors { close(descriptor) }
        descriptors = []
    }
}
