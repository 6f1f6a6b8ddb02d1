import Foundation
import FileNames
import SQLiteKit

import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// A database file as every command meets it: looked at before SQLite opens it
/// (existence, type, readability, the header), opened read-only without creating anything
/// beside it, and an open or read failure explained the same way by every command.
/// The file descriptor is closed before any SQLite connection opens the file, because
/// closing a descriptor drops every POSIX lock the process holds on that file.
struct DatabaseFile {
    let path: String
    let size: Int64
    /// The first 100 bytes, fewer for a short file.
    let headerBytes: [UInt8]

    /// The `stat` of `path` (links followed) when it is a regular file: 66 naming it
    /// `missing` when it does not exist, 65 for a directory or any other kind of file.
    static func regularFile(_ path: String, missing: String = "no such file") throws -> stat {
        let info = try Paths.status(of: path, missing: { StewardError(.notFound, "\(path): \(missing)") },
                                         failed: { StewardError(.notFound, "cannot read \(path): \($0)") })
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw StewardError(.badInput, "not a SQLite database: \(path) is a directory")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw StewardError(.badInput, "not a SQLite database: \(path) is not a regular file")
        }
        return info
    }

    init(path: String) throws {
        let info = try Self.regularFile(path)
        let descriptor = Glibc.open(FileName.cString(path), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StewardError(.notFound, "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: DatabaseHeader.size)
        var filled = 0
        while filled < buffer.count {
            let count = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return read(descriptor, base + filled, raw.count - filled)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw StewardError(.inputOutput, "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            filled += count
        }
        self.path = path
        self.size = Int64(info.st_size)
        self.headerBytes = Array(buffer.prefix(filled))
    }

    /// The header read from `headerBytes`; a file that does not start with one is refused
    /// as bad input.
    func header() throws -> DatabaseHeader {
        do {
            return try DatabaseHeader(bytes: headerBytes)
        } catch let problem as DatabaseHeader.Problem {
            throw StewardError.notADatabase(path, "\(problem)")
        }
    }

    /// SQLite would take a zero-length file for an empty database; given to Steward it is
    /// almost always a wrong path or a file cut to nothing, and every command says so
    /// alike (only `migrate --create` takes it for a new database).
    static func emptyFile(_ path: String) -> StewardError {
        StewardError(.badInput, "not a SQLite database: \(path) is empty (0 bytes)")
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(FileName.cString(path), &info) == 0
    }

    /// A `file:` URI for `path` with the given query, percent-encoding what URIs reserve.
    static func uri(for path: String, query: String) -> String {
        let absolute = path.hasPrefix("/") ? path : Paths.currentDirectory() + "/" + path
        var encoded = ""
        for byte in FileName.bytes(absolute) {
            let character = Character(Unicode.Scalar(byte))
            if byte < 0x80, character.isLetter || character.isNumber || "/-._~".contains(character) {
                encoded.append(character)
            } else {
                encoded += String(format: "%%%02X", byte)
            }
        }
        return "file:\(encoded)?\(query)"
    }

    /// How to open a database read-only without creating anything beside it.
    ///
    /// A read-only connection to a WAL database creates `-wal` and `-shm` when they are
    /// missing, so such a database is read `immutable` (the main file alone, no locks):
    /// when the `-wal` is absent nothing is lost; when only the `-shm` is absent the
    /// `-wal` cannot be read without creating it, and `warning` says so.
    static func readOnlyMode(path: String, header: DatabaseHeader?) throws -> (immutable: Bool, warning: String?) {
        guard header?.isWAL == true else { return (false, nil) }
        if !exists(path + "-wal") { return (true, nil) }
        if !exists(path + "-shm") {
            // Reading the -wal would create the -shm; reading without it would show a
            // state without the commits it holds. Neither is acceptable: say why.
            if isLockedByAnotherProcess(path) {
                throw StewardError(
                    .busy,
                    "\(path) is in use: a WAL database without a -shm file, locked by another process (exclusive locking mode); try again when it is closed")
            }
            throw StewardError(
                .badInput,
                "\(path) has a -wal file without its -shm: a writer stopped without cleaning up, and its commits can be "
                    + "read only through a read-write connection that recovers them, which Steward does not open here; "
                    + "for example: sqlite3 '\(path)' 'PRAGMA quick_check'")
        }
        return (false, nil)
    }

    /// Whether another process holds one of SQLite's locks on the database file (the lock
    /// bytes at 1 GiB, https://www.sqlite.org/lockingv3.html). Asked with F_GETLK before
    /// this process opens the file with SQLite, so that closing the descriptor drops no
    /// lock of ours.
    static func isLockedByAnotherProcess(_ path: String) -> Bool {
        let descriptor = Glibc.open(FileName.cString(path), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0x4000_0000  // PENDING_BYTE; RESERVED and the SHARED range follow
        lock.l_len = 512
        guard fcntl(descriptor, F_GETLK, &lock) == 0 else { return false }
        return lock.l_type != Int16(F_UNLCK)
    }

    enum Access {
        case readOnly, readWrite
    }

    /// Opens a database through a `file:` URI, never creating it. `parameters` are added
    /// to the URI: `&immutable=1` reads the main file without locks and without creating
    /// `-wal` or `-shm`; `&nolock=1` takes no locks, for a private file that a plain
    /// descriptor reads at the same time (closing it would drop POSIX locks). A symbolic
    /// link at `path` is refused unless `followLinks`: Steward's own files are never links.
    /// `oneThread`: the connection never leaves the thread that opens it (`.noMutex`).
    static func open(path: String, _ access: Access, parameters: String = "", followLinks: Bool = false, oneThread: Bool = false) throws -> Connection {
        var mode: Connection.OpenMode = access == .readWrite ? [.readWrite, .uri] : [.readOnly, .uri]
        if !followLinks { mode.insert(.noFollow) }
        if oneThread { mode.insert(.noMutex) }
        let query = (access == .readWrite ? "mode=rw" : "mode=ro") + parameters
        return try Connection(path: uri(for: path, query: query), mode: mode)
    }

    /// Opens a user's database read-only (links followed); `immutable` as in `open(path:_:parameters:followLinks:)`.
    static func open(path: String, immutable: Bool, oneThread: Bool = false) throws -> Connection {
        try open(path: path, .readOnly, parameters: immutable ? "&immutable=1" : "", followLinks: true, oneThread: oneThread)
    }

    /// Opens a database read-only without creating anything beside it: immutable when
    /// it is in WAL mode and its `-wal` is absent (nothing but the main file holds data).
    ///
    /// `waits` is the run's allowance for waiting on other connections' locks (none: no waiting).
    static func openReadOnly(path: String, header: DatabaseHeader?, waits: LockWaits? = nil) throws -> Connection {
        let connection = try open(path: path, immutable: try readOnlyMode(path: path, header: header).immutable)
        waits?.attach(to: connection)
        _ = try connection.integer(sql: "SELECT count(*) FROM sqlite_schema")
        return connection
    }

    /// Turns an SQLite error met while reading a file into a Steward error.
    static func explain(_ error: SQLiteError, path: String) -> StewardError {
        SQLiteErrorMapping(path: path, role: .database).error(for: error)
    }
}
