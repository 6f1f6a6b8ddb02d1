import FileNames
import Foundation

import StewardBase
#if canImport(Glibc)
import Glibc
import ArchiveKit
#endif

/// The databases of a fleet run: the paths in the order given, each file once.
///
/// Two spellings of one file (a symbolic link, a hard link, `./a.db` and `a.db`) are one
/// database: identity is the device and inode that `stat` finds, following links. A path
/// that cannot be stat'ed (missing, unreadable directory) keeps its place, identified by
/// its absolute spelling, so that its own run reports why.
public struct DatabaseList: Sendable {
    /// Distinct databases, first spelling kept, in the order given.
    public let paths: [String]
    /// How many paths were dropped as a second spelling of an earlier one.
    public let duplicateCount: Int

    public init(paths given: [String]) {
        var seenFiles = Set<FileIdentity>()
        var seenNames = Set<String>()
        var kept: [String] = []
        var duplicates = 0
        for path in given {
            var info = stat()
            let isNew: Bool
            if stat(FileName.cString(path), &info) == 0 {
                isNew = seenFiles.insert(FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))).inserted
            } else {
                isNew = seenNames.insert(Self.absolute(path)).inserted
            }
            if isNew { kept.append(path) } else { duplicates += 1 }
        }
        paths = kept
        duplicateCount = duplicates
    }

    /// The databases of shard `shard`, with their position in `paths`: the i-th database
    /// (from 0) belongs to shard (i mod N) + 1, so the N shards cover the list exactly once
    /// and every host that reads the same list agrees without talking to the others.
    public func selection(_ shard: Shard?) -> [String] {
        guard let shard else { return paths }
        return paths.enumerated().compactMap { index, path in
            index % shard.count == shard.index - 1 ? path : nil
        }
    }

    /// Paths from a `--dbs-from` file: one a line (a trailing `\r` is part of the name, as
    /// the shell would see it), or NUL-separated (`find -print0`). Empty entries are skipped.
    /// Names are bytes (`FileNames`): one that is not UTF-8 is the file `--db` would open.
    public static func parse(_ bytes: [UInt8], nullSeparated: Bool) -> [String] {
        let separator: UInt8 = nullSeparated ? 0 : UInt8(ascii: "\n")
        return bytes.split(separator: separator, omittingEmptySubsequences: true).map { FileName.decode($0) }
    }

    /// Reads a `--dbs-from` list; `-` is standard input. The list is read as a stream, to
    /// its end, so a pipe, a FIFO or a process substitution (`<(find …)`, `/dev/fd/63`)
    /// is a list like a file.
    public static func read(from source: String, nullSeparated: Bool) throws -> [String] {
        let bytes = try readStream(source, missing: "the database list \(source) does not exist",
                                   unreadable: "cannot read the database list \(source)")
        let paths = parse(bytes, nullSeparated: nullSeparated)
        if !nullSeparated, paths.contains(where: { $0.utf8.contains(0) }) {
            throw StewardError(.badInput, "the database list \(source) contains a NUL byte", remedy: .nulSeparatedList)
        }
        return paths
    }

    /// Every byte of `source` (`-` is standard input), read as a stream to its end; a
    /// source that does not exist is 66 with `missing`, one that cannot be read 66 with
    /// `unreadable` and the system's reason.
    static func readStream(_ source: String, missing: @autoclosure () -> String, unreadable: @autoclosure () -> String) throws -> [UInt8] {
        do {
            return source == "-" ? try readAll(descriptor: STDIN_FILENO) : try readAll(path: source)
        } catch let error as POSIXError where error.code == .ENOENT {
            throw StewardError(.notFound, missing())
        } catch let error as POSIXError {
            throw StewardError(.notFound, "\(unreadable()): \(SystemCall.message(error.code.rawValue))")
        }
    }

    /// Every byte of the file at `path` (a name that need not be UTF-8), read to its end.
    ///
    /// - Throws: `POSIXError` of open(2) or read(2).
    static func readAll(path: String) throws -> [UInt8] {
        let descriptor = open(FileName.cString(path), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        // Read-only: close() has nothing to report that matters here.
        defer { close(descriptor) }
        return try readAll(descriptor: descriptor)
    }

    /// Every byte `descriptor` gives until its end: no stat, no map, so a stream works.
    ///
    /// - Throws: `POSIXError` of read(2) (`EISDIR` for a directory).
    static func readAll(descriptor: Int32) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: buffer[0..<count])
        }
    }

    /// `path` made absolute against the current directory, without resolving links: the
    /// spelling a user would recognise.
    public static func absolute(_ path: String) -> String {
        let joined = path.hasPrefix("/") ? path : Paths.join(Paths.currentDirectory(), path)
        var parts: [Substring] = []
        for part in joined.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    private struct FileIdentity: Hashable {
        let device: UInt64
        let inode: UInt64
    }
}

/// The first 12 hex digits of the SHA-256 of a database's absolute path: a fleet laid out
/// as `/srv/*/app.db` gives every bundle the same stem, and the tag keeps them apart. The
/// path's bytes are hashed (`FileNames`), as the system has them.
public enum PathTag {
    public static func of(_ path: String) throws -> String {
        do {
            return String(try SHA256Hasher.hex(of: FileName.bytes(DatabaseList.absolute(path))).prefix(12))
        } catch {
            throw StewardError(.internal, "cannot hash the path of \(path): \(error)")
        }
    }
}

/// `--shard K/N`: the K-th of N deterministic shares of a database list (K from 1).
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]),
              parts.allSatisfy({ $0.allSatisfy { ("0"..."9").contains($0) } }),
              count >= 1, count <= 1_000_000, (1...count).contains(index)
        else { return nil }
        self.index = index
        self.count = count
    }

    public var description: String { "\(index)/\(count)" }
}
