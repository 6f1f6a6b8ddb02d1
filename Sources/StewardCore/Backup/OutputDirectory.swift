import Foundation
import FileNames

#if canImport(Glibc)
import Glibc
#endif

/// The directory a backup writes into: the temporaries of this run, those that killed
/// runs left behind, and publishing a finished file under its final name without ever
/// replacing one (docs/design-notes.md, "Temporary workspaces").
///
/// This run's temporaries live in one hidden workspace directory,
/// `.steward-tmp-<pid>-XXXXXX` (see `TemporaryWorkspace`): never a `*.tar.zst`, on the
/// same file system as the bundle's final name, and locked for as long as the run lives.
final class OutputDirectory {
    static let temporaryPrefix = ".steward-tmp-"

    /// The directory as the user gave it.
    let path: String
    private var workspace: TemporaryWorkspace?

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
    }

    deinit {
        workspace?.remove()
    }

    func file(_ name: String) -> String {
        Paths.join(path, name)
    }

    /// This run's workspace, made on first use.
    private func temporaryDirectory() throws -> TemporaryWorkspace {
        if let workspace { return workspace }
        let made = try TemporaryWorkspace(in: path, prefix: Self.temporaryPrefix)
        workspace = made
        return made
    }

    /// Creates a new temporary file (never an existing one) and returns its descriptor.
    /// Files something else creates beside it (SQLite's journal) go with the workspace.
    func createTemporary(suffix: String, permissions: mode_t) throws -> (path: String, descriptor: Int32) {
        let path = try temporaryDirectory().file("backup" + suffix)
        let descriptor = open(FileName.cString(path), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, permissions)
        guard descriptor >= 0 else {
            let code = errno
            throw StewardError(SystemCall.outputKind(code), "cannot create files in \(self.path): \(SystemCall.message(code))")
        }
        return (path, descriptor)
    }

    /// Removes this run's workspace and every temporary still in it.
    func removeTemporaries() {
        workspace?.remove()
        workspace = nil
    }

    // MARK: - Stale temporaries

    /// Removes the workspaces of runs that were killed (`kill -9`, a crash, a power cut)
    /// and their files: those of this user whose lock nobody holds. A run that is still
    /// going holds its lock and keeps them. Returns the names removed.
    func removeStaleTemporaries() -> [String] {
        TemporaryWorkspace.removeStale(in: path, prefix: Self.temporaryPrefix)
    }

    // MARK: - Publishing

    /// Gives `temporary` the name `name` in this directory, failing with 73 when a file of
    /// that name exists: it is never replaced. The directory itself is not synced here.
    /// `useRename: false` takes the hard-link path that serves where the kernel or the file
    /// system cannot renameat2 (ENOSYS, EINVAL).
    func publish(_ temporary: String, as name: String, useRename: Bool = true) throws {
        let target = file(name)
        if useRename {
            if LinuxCalls.renameNoReplace(temporary, to: target) == 0 { return }
            let code = errno
            // EINVAL: this file system cannot rename without replacing; try a hard link.
            guard code == EINVAL || code == ENOSYS else { throw publishFailure(code, target: target) }
        }
        // link() fails with EEXIST instead of replacing; the temporary name goes afterwards.
        guard link(FileName.cString(temporary), FileName.cString(target)) == 0 else { throw publishFailure(errno, target: target) }
        unlink(FileName.cString(temporary))
    }

    /// Makes the directory's entries (the new name) durable.
    func sync() throws {
        try DirectoryTree.sync(path)
    }

    private func publishFailure(_ code: Int32, target: String) -> StewardError {
        if code == EEXIST {
            return StewardError(.cannotCreate, "\(target) already exists; a backup never replaces a file")
        }
        return StewardError(SystemCall.outputKind(code), "cannot publish \(target): \(SystemCall.message(code))")
    }
}
