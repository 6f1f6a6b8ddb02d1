import Foundation
import FileNames

#if canImport(Glibc)
import Glibc
#endif

/// The directory a backup writes into: the temporary names this run owns, the stale ones
/// that killed runs left behind, and publishing a finished file under its final name
/// without ever replacing one (field notes §3).
///
/// Every temporary name is `.steward-tmp-<pid>-<random><suffix>`: hidden, never a
/// `*.tar.zst`, and it tells a later run whether its owner is still alive.
final class OutputDirectory {
    static let temporaryPrefix = ".steward-tmp-"

    /// The directory as the user gave it.
    let path: String
    /// `<pid>-<random>`, shared by all temporaries of this run.
    let token: String
    private var temporaries: [String] = []

    init(path: String) throws {
        var info = stat()
        guard stat(FileName.cString(path), &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR {
                throw StewardError(.cannotCreate, "the output directory \(path) does not exist")
            }
            throw StewardError(.cannotCreate, "cannot use the output directory \(path): \(SystemCall.message(code))")
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw StewardError(.cannotCreate, "the output directory \(path) is not a directory")
        }
        self.path = path
        self.token = "\(getpid())-\(String(format: "%08x", UInt32.random(in: .min ... .max)))"
    }

    func file(_ name: String) -> String {
        Paths.join(path, name)
    }

    func temporaryPath(suffix: String) -> String {
        file(Self.temporaryPrefix + token + suffix)
    }

    /// Creates a new temporary file (never an existing one) and returns its descriptor.
    /// `sideSuffixes` name files something else may create beside it (SQLite's journal),
    /// removed with it.
    func createTemporary(suffix: String, permissions: mode_t, sideSuffixes: [String] = []) throws -> (path: String, descriptor: Int32) {
        let path = temporaryPath(suffix: suffix)
        let descriptor = open(FileName.cString(path), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard descriptor >= 0 else {
            let code = errno
            throw StewardError(SystemCall.outputKind(code), "cannot create files in \(self.path): \(SystemCall.message(code))")
        }
        temporaries.append(path)
        temporaries.append(contentsOf: sideSuffixes.map { path + $0 })
        return (path, descriptor)
    }

    /// Removes every temporary of this run that still exists.
    func removeTemporaries() {
        for path in temporaries {
            // ENOENT is the usual case for side files that were never made; nothing else
            // can be done about a failure here, on a path that is already failing.
            unlink(FileName.cString(path))
        }
        temporaries.removeAll()
    }

    /// Forgets a temporary that was removed or published.
    func release(_ path: String) {
        temporaries.removeAll { $0 == path }
    }

    // MARK: - Stale temporaries

    /// Removes temporaries left by runs that no longer exist (after `kill -9`, a crash or
    /// a power cut): regular files owned by this user whose process id is not alive.
    /// A run that is still going keeps its files. Returns the names removed.
    func removeStaleTemporaries() -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return [] }
        var removed: [String] = []
        for name in names.sorted() where name.hasPrefix(Self.temporaryPrefix) {
            guard let pid = Self.ownerProcess(ofTemporary: name), !Self.isAlive(pid) else { continue }
            let full = file(name)
            var info = stat()
            guard lstat(FileName.cString(full), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == geteuid() else { continue }
            if unlink(FileName.cString(full)) == 0 { removed.append(name) }
        }
        return removed
    }

    /// The process id in a temporary name, or nil when the name is not one of ours.
    static func ownerProcess(ofTemporary name: String) -> pid_t? {
        guard name.hasPrefix(temporaryPrefix) else { return nil }
        let rest = name.dropFirst(temporaryPrefix.count)
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, rest.dropFirst(digits.count).first == "-", let pid = pid_t(digits), pid > 0 else {
            return nil
        }
        return pid
    }

    /// Whether a process with this id exists (EPERM: it exists, but belongs to someone else).
    static func isAlive(_ pid: pid_t) -> Bool {
        if pid == getpid() { return true }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    // MARK: - Publishing

    /// Gives `temporary` the name `name` in this directory, failing with 73 when a file of
    /// that name exists: it is never replaced. The directory itself is not synced here.
    /// `useRename: false` takes the hard-link path that serves when renameat2 is missing.
    func publish(_ temporary: String, as name: String, useRename: Bool = true) throws {
        let target = file(name)
        if useRename, let renameNoReplace = Self.renameNoReplace {
            if renameNoReplace(AT_FDCWD, FileName.cString(temporary), AT_FDCWD, FileName.cString(target), Self.renameNoReplaceFlag) == 0 {
                release(temporary)
                return
            }
            let code = errno
            // EINVAL: this file system cannot rename without replacing; try a hard link.
            guard code == EINVAL || code == ENOSYS else { throw publishFailure(code, target: target) }
        }
        // link() fails with EEXIST instead of replacing; the temporary name goes afterwards.
        guard link(FileName.cString(temporary), FileName.cString(target)) == 0 else { throw publishFailure(errno, target: target) }
        if unlink(FileName.cString(temporary)) == 0 { release(temporary) }
    }

    /// Makes the directory's entries (the new name) durable.
    func sync() throws {
        let descriptor = open(FileName.cString(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StewardError(.inputOutput, "cannot open \(path) to sync it: \(SystemCall.message(errno))")
        }
        defer { close(descriptor) }
        let code = SystemCall.sync(descriptor)
        // Some file systems cannot sync a directory at all (EINVAL); their renames are
        // as durable as they get.
        guard code == 0 || code == EINVAL else {
            throw StewardError(.inputOutput, "cannot sync the directory \(path): \(SystemCall.message(code))")
        }
    }

    private func publishFailure(_ code: Int32, target: String) -> StewardError {
        if code == EEXIST {
            return StewardError(.cannotCreate, "\(target) already exists; a backup never replaces a file")
        }
        return StewardError(SystemCall.outputKind(code), "cannot publish \(target): \(SystemCall.message(code))")
    }

    /// RENAME_NOREPLACE from <linux/fs.h>.
    static let renameNoReplaceFlag: UInt32 = 1

    typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32

    /// glibc's renameat2 (2.28 and later). Swift's Glibc module leaves out GNU-only
    /// declarations, so it is looked up at run time; without it, link() does the job.
    static let renameNoReplace: RenameAt2? = {
        guard let symbol = dlsym(nil, "renameat2") else { return nil }
        return unsafeBitCast(symbol, to: RenameAt2.self)
    }()
}
