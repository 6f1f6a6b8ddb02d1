import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// Copies one open file into another: in the kernel with copy_file_range(2) where the
/// system has it, with read and write otherwise.
enum FileCopy {
    /// The most one copy_file_range call copies; `isCancelled` is asked between calls.
    static let chunkBytes = 64 << 20

    /// Copies from the current offsets to the end of `source`. Returns 0 or errno.
    /// `copied` hears the bytes copied so far after each chunk.
    static func copy(from source: Int32, to target: Int32, isCancelled: () -> Bool,
                     copied report: (Int) -> Void = { _ in }) -> Int32 {
        var total = 0
        do {
            while true {
                if isCancelled() { return EINTR }
                let copied = LinuxCalls.copyFileRange(from: source, to: target, count: chunkBytes)
                if copied > 0 {
                    total += copied
                    report(total)
                    continue
                }
                if copied == 0 { return 0 }
                let code = errno
                if code == EINTR { continue }
                // Across file systems before Linux 5.3, or not supported at all: fall back.
                guard code == EXDEV || code == ENOSYS || code == EOPNOTSUPP || code == EINVAL else { return code }
                break
            }
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
        defer { buffer.deallocate() }
        while true {
            if isCancelled() { return EINTR }
            let count = SystemCall.readSome(source, buffer)
            if count < 0 { return Int32(-count) }
            if count == 0 { return 0 }
            let code = SystemCall.writeAll(target, UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            if code != 0 { return code }
            total += count
            report(total)
        }
    }
}
