import Foundation
import FileNames
import SQLiteKit

#if canImport(Glibc)
import Glibc
#endif

extension Migrator {
    /// An error opening or reading the database before the run, as inspect reports it;
    /// `waited`: busy then means the run gave up after `--timeout`.
    func readFailure(_ error: SQLiteError, waited: Bool = false) -> StewardError {
        SQLiteErrorMapping(path: options.databasePath, role: .database, cancellation: cancellation,
                           interruptedDetail: "; nothing changed", lockTimeout: waited ? options.timeout : nil).error(for: error)
    }

    /// The run's read-write connection: never used by two threads at once (a fleet's
    /// worker opens, migrates and closes its own), so without SQLite's per-connection
    /// mutex, which every call entered (an FTS5 rebuild or check, for one, enters it for
    /// every page it reads or writes through a blob handle).
    static let runMode: Connection.OpenMode = [.readWrite, .noMutex]

    func openExisting(readOnly: Bool) throws -> Connection {
        let path = options.databasePath
        guard DatabaseFile.exists(path) else {
            throw StewardError(.notFound, "\(path): no such database", remedy: .createMissingDatabase)
        }
        // Existence, type and permissions; the header is read only when opening read-only,
        // to choose how. A read-write open leaves the header to SQLite, which reads it under
        // its locks: a plain read could catch another migrator's first commit half written.
        let probe = try DatabaseFile(path: path)
        // A zero-byte file is almost always a wrong path; only a run asked to create takes
        // it as a new database. A -wal beside it with content would hold a database after all.
        if probe.size == 0, Self.sizeOfItem(path + "-wal") == 0, readOnly || !options.create {
            throw StewardError(
                .badInput, "\(path) is an empty file (0 bytes), not a database", remedy: .createFromEmptyFile)
        }
        do {
            if readOnly {
                var header: DatabaseHeader?
                if probe.size > 0 {
                    header = try probe.header()
                }
                return try withExtensions(DatabaseFile.openReadOnly(path: path, header: header, waits: lockWaits))
            }
            let connection = try withExtensions(Connection(path: path, mode: Self.runMode))
            lockWaits.attach(to: connection)
            _ = try connection.integer(sql: "SELECT count(*) FROM sqlite_schema")
            if connection.isReadOnly {
                throw StewardError(.cannotCreate, "cannot write to \(path): the file or its directory is read-only")
            }
            return connection
        } catch let error as SQLiteError {
            throw readFailure(error, waited: true)
        }
    }

    /// Creates the database file exclusively, so that a run knows whether the file is its
    /// own; when another process created it first, opens that one like any existing file.
    func createOrOpen() throws -> (Connection, Bool) {
        let path = options.databasePath
        guard options.create else {
            throw StewardError(.notFound, "\(path): no such database", remedy: .createMissingDatabase)
        }
        let directory = Paths.directory(of: path)
        if !directory.isEmpty, !Paths.isDirectory(directory) {
            throw StewardError(.cannotCreate, "cannot create \(path): the directory \(directory) does not exist")
        }
        let descriptor = Glibc.open(FileName.cString(path), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0o644)
        if descriptor < 0 {
            if errno == EEXIST { return (try openExisting(readOnly: false), false) }
            throw StewardError(.cannotCreate, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        // Closed before SQLite opens the file, so no lock of SQLite's can be dropped by it.
        close(descriptor)
        do {
            let connection = try withExtensions(Connection(path: path, mode: Self.runMode))
            lockWaits.attach(to: connection)
            return (connection, true)
        } catch let error as SQLiteError {
            removeIfStillEmpty()
            throw StewardError(.cannotCreate, "cannot create \(path): \(error.shownMessage)")
        }
    }

    /// The size of what `path` names, not following a link; 0 when there is nothing.
    private static func sizeOfItem(_ path: String) -> Int64 {
        var info = stat()
        return lstat(FileName.cString(path), &info) == 0 ? Int64(info.st_size) : 0
    }

    /// `connection` with the extensions the options name loaded.
    func withExtensions(_ connection: Connection) throws -> Connection {
        for path in options.extensions {
            do {
                try connection.loadExtension(path: path)
            } catch let error as SQLiteError {
                throw StewardError.cannotLoadExtension(path, error)
            }
        }
        return connection
    }
}
