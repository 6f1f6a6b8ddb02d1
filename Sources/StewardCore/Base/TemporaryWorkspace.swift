import Foundation
import FileNames
import Synchronization

import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// A private directory (0700) for one run's temporary files: verify's copy, backup's
/// snapshot and partial bundle, restore's staging tree. They hold customer data, so a
/// run that was killed (`kill -9`, a crash, a power cut) must not leave them for good,
/// and a run that is still going must never lose them to another run's clean-up.
///
/// Liveness is a lock, not a process id: the directory holds a lock file that its run
/// holds with `flock` from before anyone can see it until the directory is gone. A later
/// run removes workspaces of the same user whose lock it can take. A process id would
/// not do: a process in another PID namespace sharing the directory has other ids, and a
/// dead run's id can belong to a new process. The kernel drops the lock when its holder
/// dies, however it dies.
///
/// The name is `<prefix><pid>-XXXXXX`. The process id only tells people which run made
/// it; nothing decides by it.
final class TemporaryWorkspace: Sendable {
    static let lockName = ".lock"
    /// A workspace without a lock file is one whose run was killed between making the
    /// directory and placing its lock (or one of an older Steward); only one older than
    /// this is taken for stale.
    static let unlockedGraceSeconds: Double = 3600

    let path: String
    /// The descriptor that holds the lock; nil once the workspace is removed.
    private let lockDescriptor: Mutex<Int32?>

    /// Makes `base/<prefix><pid>-XXXXXX` and locks it. Throws 73 or 74 (by errno) with
    /// `base` named; callers that need another message catch it.
    init(in base: String, prefix: String) throws {
        var template = FileName.cString(Paths.join(base, "\(prefix)\(getpid())-XXXXXX"))
        guard let made = template.withUnsafeMutableBufferPointer({ buffer in buffer.baseAddress.flatMap { mkdtemp($0) } })
        else {
            let code = errno
            throw StewardError(SystemCall.outputKind(code), "cannot create a directory in \(base): \(SystemCall.message(code))")
        }
        let path = FileName.decode(UnsafeRawBufferPointer(start: made, count: strlen(made)))
        // The lock is taken on a file of another name and only then renamed to `.lock`,
        // so no other run can find `.lock` unlocked while this one is alive.
        let pending = Paths.join(path, Self.lockName + ".new")
        let descriptor = open(FileName.cString(pending), O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0o600)
        var code: Int32 = 0
        if descriptor < 0 {
            code = errno
        } else if flock(descriptor, LOCK_EX) != 0 || rename(FileName.cString(pending), FileName.cString(Paths.join(path, Self.lockName))) != 0 {
            code = errno
            close(descriptor)
        }
        guard code == 0 else {
            DirectoryTree.remove(path)
            throw StewardError(SystemCall.outputKind(code), "cannot lock the directory \(path): \(SystemCall.message(code))")
        }
        self.path = path
        self.lockDescriptor = Mutex(descriptor)
    }

    deinit {
        if let descriptor = lockDescriptor.withLock({ $0 }) { close(descriptor) }
    }

    var name: String { Paths.fileName(of: path) }

    func file(_ name: String) -> String {
        Paths.join(path, name)
    }

    /// Removes the directory and everything left in it, then lets the lock go (in this
    /// order, so that no other run sees it unlocked while it still exists).
    func remove() {
        let held = lockDescriptor.withLock { descriptor in
            defer { descriptor = nil }
            return descriptor
        }
        guard let held else { return }
        DirectoryTree.remove(path)
        close(held)
    }

    // MARK: - Leftovers of killed runs

    /// Removes the workspaces in `base` whose names start with `prefix` (and pass
    /// `matches`), that are directories owned by this user, and whose lock nobody holds.
    /// Never follows a symbolic link. Returns the names removed, sorted.
    @discardableResult
    static func removeStale(in base: String, prefix: String, matches: (String) -> Bool = { _ in true }) -> [String] {
        guard let names = try? Paths.names(in: base) else { return [] }
        var removed: [String] = []
        for name in names.sorted() where name.hasPrefix(prefix) && matches(name) {
            if removeIfStale(Paths.join(base, name)) { removed.append(name) }
        }
        return removed
    }

    /// The prefixes of Steward's workspaces under TMPDIR: verify's copy, `restore
    /// --check-only`'s staging, `restore -`'s spooled bundle, `backup --out -`'s
    /// temporaries and an encrypted backup's plaintext. Each holds customer data.
    static let temporaryDirectoryPrefixes = [
        verifyCopyPrefix, checkOnlyPrefix, standardInputPrefix, backupTemporaryPrefix, backupPlaintextPrefix,
    ]
    static let verifyCopyPrefix = "steward-verify-"
    static let checkOnlyPrefix = "steward-check-"
    static let standardInputPrefix = "steward-stdin-"
    /// A backup's temporaries in its output directory, or under TMPDIR for `--out -`.
    static let backupTemporaryPrefix = ".steward-tmp-"
    /// An encrypted backup's plaintext.
    static let backupPlaintextPrefix = ".steward-backup-"

    /// Removes the workspaces of every prefix in `temporaryDirectoryPrefixes` under TMPDIR
    /// whose lock nobody holds: called by every command that puts one there, so that a
    /// killed run's leftovers go at the next run of any of them. Returns the names removed.
    @discardableResult
    static func removeStaleInTemporaryDirectory() -> [String] {
        removeStale(in: FileManager.default.temporaryDirectory.path, prefix: "") { name in
            temporaryDirectoryPrefixes.contains { name.hasPrefix($0) }
        }
    }

    /// Removes one workspace if nobody holds its lock; returns whether it did.
    static func removeIfStale(_ path: String) -> Bool {
        var info = stat()
        guard lstat(FileName.cString(path), &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == geteuid() else { return false }
        let descriptor = open(FileName.cString(Paths.join(path, lockName)), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            guard errno == ENOENT else { return false }
            let age = Date().timeIntervalSince1970 - Double(info.st_mtim.tv_sec)
            return age > unlockedGraceSeconds && DirectoryTree.remove(path)
        }
        defer { close(descriptor) }
        // Held while removing, so that two clean-ups never race over the same directory.
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return false }
        return DirectoryTree.remove(path)
    }
}
