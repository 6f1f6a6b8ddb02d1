#if canImport(Glibc)
import Glibc
#endif

/// Copies one open file into another: in the kernel with copy_file_range(2) where the
/// system has it, with read and write otherwise.
enum FileCopy {
    /// Copies from the current offsets to the end of `source`. Returns 0 or errno.
    static func copy(from source: Int32, to target: Int32, isCancelled: () -> Bool) -> Int32 {
        do {
            while true {
                if isCancelled() { return EINTR }
                let copied = LinuxCalls.copyFileRange(from: source, to: target, count: 64 << 20)
                if copied > 0 { continue }
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
        }
    }
}
