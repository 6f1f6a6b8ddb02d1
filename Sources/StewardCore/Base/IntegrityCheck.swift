import Foundation
import SQLiteKit
import FileNames

#if canImport(Glibc)
import Glibc
#endif

/// `PRAGMA integrity_check` as the sqlite3 command-line tool runs it, so that Steward
/// reports at least what the CLI reports on the same file: on a read-write connection.
///
/// On SQLite 3.40 a connection that opened the file read-only (`mode=ro`, and
/// `immutable=1`, which opens read-only too) never parses CHECK constraints: they are
/// kept only for a writable b-tree. Its integrity_check then passes a row that violates
/// one, as written by a migration that ran `PRAGMA ignore_check_constraints = ON`. The
/// connection here is read-write but query-only, and does not checkpoint as it closes
/// (`Connection.makeQueryOnly`): it never writes the file.
enum IntegrityCheck {
    /// SQLite opened the file read-only although read-write was asked for (permissions, a
    /// read-only file system): CHECK constraints would not be checked.
    struct NotWritable: Error {
        let path: String
    }

    /// Opens `path` read-write (never creating it), with `extensions` loaded, hardened and
    /// query-only, and reads its schema. `parameters` are added to the URI (`nolock=1` for
    /// a private file that a plain descriptor reads at the same time, which would drop
    /// POSIX locks). The extensions are the run's `--load-extension`s: integrity_check
    /// needs every collation an index uses ("no such collation sequence" otherwise).
    static func open(
        path: String, parameters: String = "", followLinks: Bool = false, loadingExtensions extensions: [String], waits: LockWaits? = nil,
        isCancelled: @escaping () -> Bool
    ) throws -> Connection {
        let connection = try DatabaseFile.open(path: path, .readWrite, parameters: parameters, followLinks: followLinks)
        try connection.harden(loadingExtensions: extensions)
        try connection.makeQueryOnly()
        waits?.attach(to: connection)
        connection.setProgressHandler(instructions: 100_000) { !isCancelled() }
        _ = try connection.integer(sql: "SELECT count(*) FROM sqlite_schema")
        guard !connection.isReadOnly else { throw NotWritable(path: path) }
        return connection
    }

    /// Whether `verify` may check the original file in place on a read-write connection:
    /// only when nothing SQLite does on opening it for reading can change the file or
    /// create one beside it. Otherwise the check runs on verify's private copy.
    ///
    /// - a WAL database needs its `-wal` and `-shm`, both writable: without the `-wal` it
    ///   is read `immutable`, and a read-write connection would create `-wal` and `-shm`;
    /// - a non-empty `-journal` beside a rollback-journal database may be hot, and a
    ///   read-write connection would roll it back into the file (a read-only one refuses
    ///   it, and verify then stops with 65);
    /// - the file must be writable by this user on a writable file system, or SQLite
    ///   silently opens it read-only, and CHECK constraints go unchecked.
    /// - an empty file (no header) or a rollback-journal database with a `-wal` beside it:
    ///   a read-write connection may open or delete that `-wal`.
    static func canCheckInPlace(path: String, header: DatabaseHeader?) -> Bool {
        guard let header else { return false }
        if header.isWAL {
            for suffix in ["-wal", "-shm"] where access(FileName.cString(path + suffix), W_OK) != 0 { return false }
        } else {
            var info = stat()
            if stat(FileName.cString(path + "-journal"), &info) == 0, info.st_size > 0 { return false }
            if DatabaseFile.exists(path + "-wal") { return false }
        }
        guard access(FileName.cString(path), W_OK) == 0 else { return false }
        var system = statvfs()
        if statvfs(FileName.cString(path), &system) == 0, system.f_flag & UInt(ST_RDONLY) != 0 { return false }
        return true
    }
}
