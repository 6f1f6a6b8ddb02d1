import FileNames
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Path arithmetic on strings. Foundation's `NSString` path methods trap on some inputs
/// in this toolchain (`deletingLastPathComponent` of a one-character name), and a path a
/// user typed must never crash Steward; these do the little that is needed, plainly.
public enum Paths {
    /// The directory part: `a/b/c` → `a/b`, `/c` → `/`, `c` → `` (the current directory).
    public static func directory(of path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        let directory = String(trimmed[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    /// The directory part, or `.` when the path has none.
    public static func directoryOrCurrent(of path: String) -> String {
        let directory = directory(of: path)
        return directory.isEmpty ? "." : directory
    }

    /// The last component: `a/b/c.db` → `c.db`, `c/` → `c`.
    public static func fileName(of path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// `name` without its last extension: `a.tar.zst` → `a.tar`, `.hidden` stays.
    public static func removingExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// `directory/name`, without doubling a slash; an empty directory gives `name`.
    public static func join(_ directory: String, _ name: String) -> String {
        if directory.isEmpty { return name }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The path without trailing slashes (`/` stays `/`), as system calls want it.
    public static func trimmingTrailingSlashes(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }

    /// The current directory, byte for byte (FileNames): Foundation's decodes it lossily.
    public static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return FileManager.default.currentDirectoryPath }
        return FileName.decode(buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) })
    }

    /// `stat(2)` of `path`, links followed; a path that does not exist (ENOENT, ENOTDIR)
    /// throws `missing()`, any other failure `failed` with the system's reason.
    package static func status(
        of path: String, missing: () -> StewardError, failed: (String) -> StewardError
    ) throws -> stat {
        var info = stat()
        guard stat(FileName.cString(path), &info) == 0 else {
            let code = errno
            throw code == ENOENT || code == ENOTDIR ? missing() : failed(SystemCall.message(code))
        }
        return info
    }

    /// Whether something exists at `path` (a symbolic link is followed).
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(FileName.cString(path), &info) == 0
    }

    /// The names in `directory` (without `.` and `..`), byte for byte: Foundation's
    /// listing decodes names that are not UTF-8 lossily.
    public static func names(in directory: String) throws -> [String] {
        guard let handle = opendir(FileName.cString(directory)) else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        defer { closedir(handle) }
        return names(reading: handle)
    }

    /// The names an open directory stream gives (without `.` and `..`), byte for byte.
    package static func names(reading handle: OpaquePointer) -> [String] {
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = Self.name(of: entry)
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The name of a directory entry from readdir(3), byte for byte.
    public static func name(of entry: UnsafeMutablePointer<dirent>) -> String {
        withUnsafePointer(to: &entry.pointee.d_name) { pointer in
            pointer.withMemoryRebound(to: UInt8.self, capacity: Int(NAME_MAX) + 1) { bytes in
                FileName.decode(UnsafeBufferPointer(start: bytes, count: strlen(UnsafeRawPointer(bytes).assumingMemoryBound(to: CChar.self))))
            }
        }
    }

    /// Whether `path` is a directory (a symbolic link is followed).
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(FileName.cString(path), &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The whole file at `path`, or nil when it cannot be opened or read; what
    /// `FileManager.contents(atPath:)` does, for a path that need not be UTF-8.
    public static func contents(of path: String) -> Data? {
        let descriptor = open(FileName.cString(path), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        // Read-only: close() has nothing to report that matters here.
        defer { close(descriptor) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
        }
    }
}
