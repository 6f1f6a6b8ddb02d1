import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Another live process that holds an exclusive `flock` on a file, as a running Steward
/// holds its workspace's lock. One process (a shell that becomes `sleep`) opens, locks and
/// keeps the file, so stopping it lets the lock go.
public final class LockHolder {
    /// `flock(1)` from util-linux.
    public static let isAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/flock")

    private let process = Process()

    public var processIdentifier: Int32 { process.processIdentifier }

    /// Starts the process and returns once it holds the lock on `path` (created if missing).
    public init(locking path: String) throws {
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exec 9>>\"$1\" && /usr/bin/flock -x 9 && exec sleep 600", "sh", path]
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && process.isRunning {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            if descriptor >= 0 {
                let free = flock(descriptor, LOCK_EX | LOCK_NB) == 0
                close(descriptor)
                if !free { return }
            }
            usleep(10_000)
        }
        release()
        throw CocoaError(.fileLocking)
    }

    deinit {
        release()
    }

    /// Stops the process, and with it the lock.
    public func release() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
