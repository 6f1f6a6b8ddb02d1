import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A lower scheduling priority for the payload's compression, which can use every core
/// while the checks beside it cannot: `integrity_check` and the content digests each run
/// on one thread. At an equal share, the compression's three threads (the reader and
/// zstd's two workers on two cores) took most of the CPU, finished first, and the checks
/// then ran alone on one core with the other idle (design notes, "Performance
/// (issue 14)"). Behind the snapshot's kernel copy, the copy gets the larger share too,
/// so the source is held for less time.
///
/// On Linux the nice value belongs to the thread, and threads it creates start with it:
/// set before the compressor exists, it covers zstd's workers as well.
package enum BackgroundPriority {
    /// Added to the nice value of the compressing thread. At 5 a thread's share is about
    /// a third of a thread at the default; 5, 10 and 19 measured the same on the 1 GiB
    /// benchmark, and the smallest keeps the most of its share against other processes.
    static let compressionNiceIncrement: Int32 = 5

    /// Lowers the calling thread's priority by `compressionNiceIncrement`. Only ever
    /// lowers it (which needs no privilege); when that fails, the thread runs on as it was.
    package static func lowerForCompression() {
        errno = 0
        let current = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        guard !(current == -1 && errno != 0) else { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, min(19, current + compressionNiceIncrement))
    }
}
