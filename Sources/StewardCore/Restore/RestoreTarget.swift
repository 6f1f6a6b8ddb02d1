import Foundation
import FileNames

#if canImport(Glibc)
import Glibc
#endif

/// The directory a restore publishes, `--into DIR`: it must not exist or be an empty
/// directory. Everything is made in a staging directory beside it, on the same file
/// system, that takes its name in one rename at the very end (field notes §3 and §4).
///
/// A staging directory is named `.<DIR's name>.steward-restore-<pid>-<random>`: hidden,
/// and it tells a later run whether its owner is still alive.
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

    /// Makes this run's staging directory beside DIR, private to the user (0700).
    func createStaging() throws -> StagingDirectory {
        let token = "\(getpid())-\(String(format: "%08x", UInt32.random(in: .min ... .max)))"
        // Long names are cut (on a character boundary) so that the staging name stays
        // within NAME_MAX; the marker and token after it are what later runs parse.
        var visible = ""
        for character in name {
            guard visible.utf8.count + character.utf8.count <= 64 else { break }
            visible.append(character)
        }
        let staging = Paths.join(parent, ".\(visible)\(Self.stagingMarker)\(token)")
        guard mkdir(FileName.cString(staging), 0o700) == 0 else {
            let code = errno
            throw StewardError(SystemCall.outputKind(code), "cannot create a directory in \(parent): \(SystemCall.message(code))")
        }
        do {
            return try StagingDirectory(path: staging)
        } catch {
            _ = DirectoryTree.remove(staging)
            throw error
        }
    }

    /// Removes staging directories left by runs that no longer exist (after `kill -9`, a
    /// crash or a power cut): directories owned by this user whose process is not alive,
    /// for any target in the same parent. Returns the names removed.
    func removeStaleStaging() -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return [] }
        var removed: [String] = []
        for name in names.sorted() {
            guard let pid = Self.ownerProcess(ofStaging: name), !OutputDirectory.isAlive(pid) else { continue }
            let full = Paths.join(parent, name)
            var info = stat()
            guard lstat(FileName.cString(full), &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == geteuid() else { continue }
            if DirectoryTree.remove(full) { removed.append(name) }
        }
        return removed
    }

    /// The process id in a staging directory's name, or nil when the name is not one.
    static func ownerProcess(ofStaging name: String) -> pid_t? {
        guard name.hasPrefix("."), let marker = name.range(of: stagingMarker, options: .backwards) else { return nil }
        let rest = name[marker.upperBound...]
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, rest.dropFirst(digits.count).first == "-", rest.count > digits.count + 1,
              let pid = pid_t(digits), pid > 0
        else { return nil }
        return pid
    }

    // MARK: - Publishing

    /// Gives the staging directory DIR's name, then makes the new name durable. When DIR
    /// did not exist the rename fails rather than replace anything that appeared since;
    /// when it was an empty directory, rename(2) replaces it only while it is still empty.
    func publish(_ staging: StagingDirectory) throws {
        let code: Int32
        if !existed, let renameNoReplace = OutputDirectory.renameNoReplace {
            code = renameNoReplace(AT_FDCWD, FileName.cString(staging.path), AT_FDCWD, FileName.cString(trimmedPath), OutputDirectory.renameNoReplaceFlag) == 0 ? 0 : errno
        } else {
            code = rename(FileName.cString(staging.path), FileName.cString(trimmedPath)) == 0 ? 0 : errno
        }
        guard code == 0 else {
            if code == EEXIST || code == ENOTEMPTY || code == ENOTDIR {
                throw StewardError(.cannotCreate, "\(path) appeared or was filled during the restore; nothing was replaced")
            }
            throw StewardError(SystemCall.outputKind(code), "cannot publish \(path): \(SystemCall.message(code))")
        }
        staging.markPublished()
        try DirectoryTree.sync(parent)
    }
}

/// This run's staging directory. Files are made inside it only, relative to a descriptor
/// of the directory itself, exclusively and without following links.
final class StagingDirectory {
    let path: String
    private let descriptor: Int32
    private var isPublished = false

    init(path: String) throws {
        let descriptor = open(FileName.cString(path), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StewardError(.cannotCreate, "cannot open the staging directory \(path): \(SystemCall.message(errno))")
        }
        self.path = path
        self.descriptor = descriptor
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

    func markPublished() {
        isPublished = true
    }

    /// Removes the staging directory and everything in it, unless it was published.
    func removeUnlessPublished() {
        guard !isPublished else { return }
        _ = DirectoryTree.remove(path)
    }

    private func creationFailure(_ code: Int32) -> StewardError {
        StewardError(SystemCall.outputKind(code), "cannot create files in \(path): \(SystemCall.message(code))")
    }
}

/// Removal, listing and syncing of small directory trees that Steward made itself, never
/// following a symbolic link out of them.
enum DirectoryTree {
    static let maximumDepth = 8

    /// Removes `path` and, if it is a directory (not a link to one), everything in it.
    /// Returns whether it is gone.
    @discardableResult
    static func remove(_ path: String) -> Bool {
        var info = stat()
        guard lstat(FileName.cString(path), &info) == 0 else { return errno == ENOENT }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { return unlink(FileName.cString(path)) == 0 }
        let descriptor = open(FileName.cString(path), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        removeContents(of: descriptor, depth: 0)
        close(descriptor)
        return rmdir(FileName.cString(path)) == 0
    }

    private static func removeContents(of descriptor: Int32, depth: Int) {
        for name in names(in: descriptor) {
            if unlinkat(descriptor, FileName.cString(name), 0) == 0 { continue }
            // Linux says EISDIR for a directory; anything else cannot be helped here.
            guard errno == EISDIR, depth < maximumDepth else { continue }
            let child = openat(descriptor, FileName.cString(name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard child >= 0 else { continue }
            removeContents(of: child, depth: depth + 1)
            close(child)
            unlinkat(descriptor, FileName.cString(name), AT_REMOVEDIR)
        }
    }

    /// The names in a directory, read before anything in it changes.
    private static func names(in descriptor: Int32) -> [String] {
        // fdopendir takes over the descriptor it is given, so it gets a copy.
        let copy = dup(descriptor)
        guard copy >= 0 else { return [] }
        guard let directory = fdopendir(copy) else {
            close(copy)
            return []
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = Paths.name(of: entry)
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Files and directories under `path`, as relative paths.
    static func list(_ path: String, prefix: String = "", depth: Int = 0) -> [String] {
        let descriptor = open(FileName.cString(path), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var result: [String] = []
        for name in names(in: descriptor) {
            let relative = prefix + name
            result.append(relative)
            var info = stat()
            let full = Paths.join(path, name)
            if depth < maximumDepth, lstat(FileName.cString(full), &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
                result += list(full, prefix: relative + "/", depth: depth + 1)
            }
        }
        return result
    }

    static func subdirectories(_ path: String) -> [String] {
        list(path).compactMap { relative in
            let full = Paths.join(path, relative)
            var info = stat()
            return lstat(FileName.cString(full), &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR ? full : nil
        }
    }

    /// fsync of a directory, so that names created or renamed in it survive a crash.
    static func sync(_ path: String) throws {
        let descriptor = open(FileName.cString(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StewardError(.inputOutput, "cannot open \(path) to sync it: \(SystemCall.message(errno))")
        }
        defer { close(descriptor) }
        let code = SystemCall.sync(descriptor)
        // Some file systems cannot sync a directory at all (EINVAL); their renames are as
        // durable as they get.
        guard code == 0 || code == EINVAL else {
            throw StewardError(.inputOutput, "cannot sync the directory \(path): \(SystemCall.message(code))")
        }
    }
}
