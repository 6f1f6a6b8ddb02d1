import Foundation
import FileNames

import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// Removal, listing and syncing of small directory trees that Steward made itself, never
/// following a symbolic link out of them.
package enum DirectoryTree {
    static let maximumDepth = 8

    /// Removes `path` and, if it is a directory (not a link to one), everything in it.
    /// Returns whether it is gone.
    @discardableResult
    package static func remove(_ path: String) -> Bool {
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
        return Paths.names(reading: directory)
    }

    /// Files and directories under `path`, as relative paths.
    package static func list(_ path: String, prefix: String = "", depth: Int = 0) -> [String] {
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

    package static func subdirectories(_ path: String) -> [String] {
        list(path).compactMap { relative in
            let full = Paths.join(path, relative)
            var info = stat()
            return lstat(FileName.cString(full), &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR ? full : nil
        }
    }

    /// fsync of a directory, so that names created or renamed in it survive a crash.
    package static func sync(_ path: String) throws {
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
