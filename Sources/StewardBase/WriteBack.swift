#if canImport(Glibc)
import Glibc
#endif

/// Starts the kernel's write-back of a file being written, a window at a time
/// (sync_file_range(2), `LinuxCalls.startWriteBack`), so that the disk works while the
/// file is still being produced and the fsync before publishing has little left to do.
/// Used for the files that are published: restore's payload and, written in place,
/// backup's bundle; never for a temporary that is thrown away (its write-back would be
/// a disk write for nothing).
package struct WriteBack {
    static let window: Int64 = 8 << 20

    /// Where the range not yet handed to the kernel starts.
    private(set) var start: Int64
    private var isOn = true

    package init(from offset: Int64 = 0) {
        start = offset
    }

    /// The file now holds data up to `end`: once a window has filled (or, with `final`,
    /// whatever is left), its write-back starts. Returns the errno of a failed write-back
    /// (EIO, ENOSPC, EDQUOT), which is a failed write; any other failure only means the
    /// kernel will not take the hint, and the final fsync does the work then.
    package mutating func advance(_ descriptor: Int32, to end: Int64, final: Bool = false) -> Int32? {
        guard isOn, end > start, final || end - start >= Self.window else { return nil }
        defer { start = end }
        guard LinuxCalls.startWriteBack(descriptor, offset: start, count: end - start) == 0 else {
            let code = errno
            if code == EIO || code == ENOSPC || code == EDQUOT { return code }
            isOn = false
            return nil
        }
        return nil
    }
}
