import FileNames
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// errno values turned into Steward's failure kinds, and small loops around system calls
/// that may be interrupted or do part of the work.
package enum SystemCall {
    /// Runs `body`, then closes `descriptor`, which is closed also when `body` throws.
    /// Some file systems (NFS) report a failed write-back only at the close: after a
    /// `body` that succeeded, a failed close is 74 with `failure` and the system's reason.
    package static func closing<T>(_ descriptor: Int32, failure: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
        let result: T
        do {
            result = try body()
        } catch {
            close(descriptor)
            throw error
        }
        guard close(descriptor) == 0 else {
            throw StewardError(.inputOutput, "\(failure()): \(message(errno))")
        }
        return result
    }

    package static func message(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// The kind for a failure to create or write an output file: 73 when the file cannot
    /// be made there at all (permissions, read-only, missing), 74 when writing failed.
    package static func outputKind(_ code: Int32) -> StewardError.Kind {
        switch code {
        case EACCES, EPERM, EROFS, EEXIST, ENOENT, ENOTDIR, ENAMETOOLONG, ELOOP, EISDIR:
            return .cannotCreate
        default:
            return .inputOutput
        }
    }

    /// Writes the whole buffer, retrying after EINTR and short writes. Returns 0 or errno.
    /// With `offset`, writes there (pwrite(2)) and leaves the file position alone.
    package static func writeAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer, at offset: off_t? = nil) -> Int32 {
        guard var base = buffer.baseAddress else { return 0 }
        var remaining = buffer.count
        while remaining > 0 {
            let done = off_t(buffer.count - remaining)
            let written = offset.map { pwrite(descriptor, base, remaining, $0 + done) } ?? write(descriptor, base, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            // write(2) returns 0 only for a zero-length request; guard against a loop anyway.
            if written == 0 { return EIO }
            base += written
            remaining -= written
        }
        return 0
    }

    /// Reads up to `buffer.count` bytes, retrying after EINTR. Returns the count (0 at the
    /// end of the file) or -errno.
    package static func readSome(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var filled = 0
        while filled < buffer.count {
            let count = read(descriptor, base + filled, buffer.count - filled)
            if count < 0 {
                if errno == EINTR { continue }
                return -Int(errno)
            }
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// fsync, retrying after EINTR. Returns 0 or errno.
    package static func sync(_ descriptor: Int32) -> Int32 {
        while fsync(descriptor) != 0 {
            if errno == EINTR { continue }
            return errno
        }
        return 0
    }
}
