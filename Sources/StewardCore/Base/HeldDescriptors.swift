import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

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
