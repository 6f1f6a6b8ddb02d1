import Foundation
import FileNames

import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// The directory a restore publishes, `--into DIR`: it must not exist or be an empty
/// directory. Everything is made in a staging directory beside it, on the same file
/// system, that takes its name in one rename at the very end (docs/design-notes.md, "Temporary workspaces").
///
/// The staging directory is `tree` inside a workspace named
/// `.<DIR's name>.steward-restore-<pid>-XXXXXX` (see `TemporaryWorkspace`): hidden, on
/// the same file system as DIR, and locked for as long as its run lives, so a later run
/// can tell a killed run's leftovers from a live one's. The lock file stays in the
/// workspace when the tree is renamed to DIR.
final class RestoreTarget {
    static let stagingMarker = ".steward-restore-"

    /// DIR as the user gave it, and without trailing slashes for system calls.
    let path: String
    let trimmedPath: String
    /// The directory that holds DIR, and DIR's last component.
    let parent: String
    let name: String
    /// Whether DIR existed (empty) when the run started.
    let existed: Bool

    init(path: String) throws {
        let trimmed = Paths.trimmingTrailingSlashes(path)
        let name = Paths.fileName(of: trimmed)
        guard !name.isEmpty, name != "/", name != ".", name != ".." else {
            throw StewardError(.cannotCreate, "cannot restore into \(path): give a directory to create, such as restored")
        }
        self.path = path
        self.trimmedPath = trimmed
        self.name = name
        self.parent = Paths.directoryOrCurrent(of: trimmed)

        var info = stat()
        if lstat(FileName.cString(trimmed), &info) == 0 {
            guard (info.st_mode & S_IFMT) != S_IFLNK else {
                throw StewardError(.cannotCreate, "\(path) is a symbolic link; restore into a new or empty directory")
            }
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw StewardError(.cannotCreate, "\(path) exists and is not a directory; restore into a new or empty directory")
            }
            guard try Self.isEmptyDirectory(trimmed) else {
                throw StewardError(.cannotCreate, "\(path) is not empty; restore never replaces files")
            }
            existed = true
        } else {
            let code = errno
            guard code == ENOENT else {
                throw StewardError(.cannotCreate, "cannot use \(path): \(SystemCall.message(code))")
            }
            var parentInfo = stat()
            guard stat(FileName.cString(self.parent), &parentInfo) == 0, (parentInfo.st_mode & S_IFMT) == S_IFDIR else {
                throw StewardError(.cannotCreate, "cannot create \(path): its parent directory \(self.parent) does not exist")
            }
            existed = false
        }
    }

    static func isEmptyDirectory(_ path: String) throws -> Bool {
        guard let directory = opendir(FileName.cString(path)) else {
            throw StewardError(.cannotCreate, "cannot read the directory \(path): \(SystemCall.message(errno))")
        }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = Paths.name(of: entry)
            if name != "." && name != ".." { return false }
        }
        return true
    }

    // MARK: - Staging

    /// Makes this run's workspace beside DIR and the staging directory in it, private
    /// to the user (0700).
    func createStaging() throws -> StagingDirectory {
        // Long names are cut (on a character boundary) so that the workspace's name stays
        // within NAME_MAX.
        var visible = ""
        for character in name {
            guard visible.utf8.count + character.utf8.count <= 64 else { break }
            visible.append(character)
        }
        let workspace = try TemporaryWorkspace(in: parent, prefix: ".\(visible)\(Self.stagingMarker)")
        let staging = workspace.file(StagingDirectory.treeName)
        guard mkdir(FileName.cString(staging), 0o700) == 0 else {
            let code = errno
            workspace.remove()
            throw StewardError(SystemCall.outputKind(code), "cannot create a directory in \(parent): \(SystemCall.message(code))")
        }
        do {
            return try StagingDirectory(path: staging, workspace: workspace)
        } catch {
            workspace.remove()
            throw error
        }
    }

    /// Removes the workspaces that killed runs (`kill -9`, a crash, a power cut) left,
    /// for any target in the same parent: those of this user whose lock nobody holds.
    /// Returns the names removed.
    func removeStaleStaging() -> [String] {
        TemporaryWorkspace.removeStale(in: parent, prefix: ".") { $0.contains(Self.stagingMarker) }
    }

    // MARK: - Publishing

    /// Gives the staging directory DIR's name, then makes the new name durable. When DIR
    /// did not exist the rename fails rather than replace anything that appeared since;
    /// when it was an empty directory, rename(2) replaces it only while it is still empty.
    func publish(_ staging: StagingDirectory) throws {
        var code: Int32 = -1
        if !existed {
            code = LinuxCalls.renameNoReplace(staging.path, to: trimmedPath) == 0 ? 0 : errno
        }
        // Where the kernel or the file system cannot renameat2 (ENOSYS, EINVAL), a plain
        // rename, as when DIR existed: of a directory, it can replace only an empty
        // directory that appeared since (never a file, ENOTDIR, or a filled one,
        // ENOTEMPTY), so nothing anyone wrote is lost.
        if code == -1 || code == ENOSYS || code == EINVAL {
            code = rename(FileName.cString(staging.path), FileName.cString(trimmedPath)) == 0 ? 0 : errno
        }
        guard code == 0 else {
            if code == EEXIST || code == ENOTEMPTY || code == ENOTDIR {
                throw StewardError(.cannotCreate, "\(path) appeared or was filled during the restore; nothing was replaced")
            }
            throw StewardError(SystemCall.outputKind(code), "cannot publish \(path): \(SystemCall.message(code))")
        }
        try DirectoryTree.sync(parent)
    }
}

/// This run's staging directory. Files are made inside it only, relative to a descriptor
/// of the directory itself, exclusively and without following links. Restore's checks
/// read it from threads of their own.
final class StagingDirectory: Sendable {
    static let treeName = "tree"

    let path: String
    private let descriptor: Int32
    private let workspace: TemporaryWorkspace

    init(path: String, workspace: TemporaryWorkspace) throws {
        let descriptor = open(FileName.cString(path), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StewardError(.cannotCreate, "cannot open the staging directory \(path): \(SystemCall.message(errno))")
        }
        self.path = path
        self.descriptor = descriptor
        self.workspace = workspace
    }

    deinit {
        // A directory descriptor has nothing to flush.
        close(descriptor)
    }

    func file(_ relative: String) -> String {
        Paths.join(path, relative)
    }

    /// Creates `relative` (a valid entry name, `data/NAME` at most) for writing; makes
    /// its directory first if needed. Never opens an existing file or follows a link.
    func createFile(_ relative: String, permissions: mode_t = 0o600) throws -> Int32 {
        let components = relative.split(separator: "/").map(String.init)
        guard let last = components.last, components.count <= 2 else {
            throw StewardError(.internal, "cannot create \(relative) in the staging directory")
        }
        var directory = descriptor
        var opened: Int32?
        defer { if let opened { close(opened) } }
        if components.count == 2 {
            let sub = components[0]
            if mkdirat(descriptor, sub, 0o700) != 0 && errno != EEXIST {
                throw creationFailure(errno)
            }
            let child = openat(descriptor, FileName.cString(sub), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard child >= 0 else { throw creationFailure(errno) }
            opened = child
            directory = child
        }
        let file = openat(directory, FileName.cString(last), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, permissions)
        guard file >= 0 else { throw creationFailure(errno) }
        return file
    }

    /// Writes a small file whole and syncs it.
    func writeFile(_ relative: String, contents: [UInt8]) throws {
        let file = try createFile(relative)
        let code = contents.withUnsafeBytes { SystemCall.writeAll(file, $0) }
        let synced = code == 0 ? SystemCall.sync(file) : code
        let closed = close(file) == 0 ? 0 : errno
        let failure = synced != 0 ? synced : closed
        guard failure == 0 else {
            throw StewardError(.inputOutput, "cannot write \(relative) in \(path): \(SystemCall.message(failure))")
        }
    }

    /// The names inside the directory and its subdirectories, as `data/NAME`, sorted.
    func contents() -> [String] {
        DirectoryTree.list(path).sorted()
    }

    /// Makes the directory's entries (and those of its subdirectories) durable.
    func sync() throws {
        for directory in [path] + DirectoryTree.subdirectories(path) {
            try DirectoryTree.sync(directory)
        }
    }

    /// Removes the workspace: with the staging directory and everything in it, unless it
    /// was published (renamed out of it).
    func removeUnlessPublished() {
        workspace.remove()
    }

    private func creationFailure(_ code: Int32) -> StewardError {
        StewardError(SystemCall.outputKind(code), "cannot create files in \(path): \(SystemCall.message(code))")
    }
}
