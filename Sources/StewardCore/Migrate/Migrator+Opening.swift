import Foundation
import FileNames
import SQLiteKit

import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// How the run reaches the database: opening or creating it, the one read transaction of
/// what it asks before writing, the handlers on its connection, and SQLite's errors as the
/// run reports them.
extension Migrator {
    // MARK: - Opening

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

    /// `--dry-run` copies the whole database into memory: a file larger than the memory
    /// available is refused before the copy, rather than failing (or swapping) half way.
    func checkMemory(for source: Connection) throws {
        let bytes: Int64
        do {
            // Through the connection, so a WAL database counts the pages still in its -wal.
            bytes = try source.integer(sql: "PRAGMA page_count") * source.integer(sql: "PRAGMA page_size")
        } catch let error as SQLiteError {
            throw readFailure(error)
        }
        guard let available = AvailableMemory.bytes, bytes > available else { return }
        throw StewardError(
            .inputOutput,
            "a dry run keeps a whole copy of the database in memory, and \(options.databasePath) "
                + "(\(AvailableMemory.megabytes(bytes)) MB) is larger than the memory available "
                + "(\(AvailableMemory.megabytes(available)) MB); dry-run on a smaller copy or migrate a copy of the file instead")
    }

    // MARK: - The run's connection

    /// `body` inside one read transaction on `connection`, ended (nothing was written)
    /// however `body` ends.
    func readTransaction<T>(on connection: Connection, _ body: () throws -> T) throws -> T {
        do {
            try connection.execute(sql: "BEGIN")
        } catch let error as SQLiteError {
            throw readFailure(error)
        }
        defer { connection.rollbackIfNeeded() }
        return try body()
    }

    /// On `connection`: `--timeout`'s lock waits, the cancellation, and the live indicator of
    /// an FTS5 rebuild or check (`currentWork`), polled by SQLite's progress handler.
    func installHandlers(on connection: Connection) {
        let cancellation = self.cancellation
        lockWaits.attach(to: connection)
        let progress = self.progress
        let currentWork = self.currentWork
        var started = Date()
        var lastTick = Date()
        connection.setProgressHandler(instructions: 10_000) {
            if cancellation.isCancelled { return false }
            if let (phase, table, isNew) = currentWork.next() {
                let now = Date()
                if isNew { started = now }
                if now.timeIntervalSince(lastTick) >= 0.2 {
                    lastTick = now
                    progress(.working(phase: phase, table: table, seconds: now.timeIntervalSince(started)))
                }
            }
            return true
        }
    }

    // MARK: - SQLite's errors

    /// `body`, with an SQLite error in it said as an error on the migrated database.
    func sqlite<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw explain(error, waitingForLock: false)
        }
    }

    /// An error on the database inside the run: busy means the run gave up after its timeout.
    func explain(_ error: SQLiteError, waitingForLock: Bool, context: String? = nil) -> StewardError {
        SQLiteErrorMapping(path: options.databasePath, role: .migratedDatabase, cancellation: cancellation,
                           interruptedDetail: "; nothing changed", lockTimeout: options.timeout, context: context).error(for: error)
    }
}

/// The memory the kernel says can be allocated without swapping (`MemAvailable`).
enum AvailableMemory {
    /// In bytes, or nil when it cannot be read (not Linux, no /proc).
    static var bytes: Int64? {
        if let override = TestHooks.availableMemoryBytes { return override }
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            let fields = line.split(separator: " ")
            guard fields.count >= 2, let kilobytes = Int64(fields[1]) else { return nil }
            return kilobytes * 1024
        }
        return nil
    }

    static func megabytes(_ bytes: Int64) -> String {
        String(format: "%.1f", Double(bytes) / 1_000_000)
    }
}
