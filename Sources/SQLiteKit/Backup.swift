import CSQLite

/// An online backup from one connection's database into another's
/// (https://www.sqlite.org/backup.html).
///
/// Call `step(pages:)` until it returns `true`, then `finish()`. SQLITE_BUSY and
/// SQLITE_LOCKED are thrown as `SQLiteError` with `isBusy`; the caller decides
/// whether to wait and step again.
public final class Backup {
    /// The raw `sqlite3_backup*` handle. Only SQLiteKit uses it.
    public let sqliteBackup: OpaquePointer
    public let source: Connection
    public let destination: Connection
    private var isFinished = false

    /// Starts an online backup of `sourceName` in `source` into `destinationName` in `destination`.
    ///
    /// - Throws: `SQLiteError` when SQLite cannot start the backup (for example with a
    ///   transaction open on the destination).
    public init(from source: Connection, to destination: Connection,
                sourceName: String = "main", destinationName: String = "main") throws {
        guard let handle = sqlite3_backup_init(
            destination.sqliteConnection, destinationName, source.sqliteConnection, sourceName)
        else {
            // > If an error occurs within sqlite3_backup_init(), then NULL is returned and an
            // > error code and error message are stored in the destination database connection.
            throw SQLiteError.current(on: destination.sqliteConnection, code: sqlite3_errcode(destination.sqliteConnection))
        }
        self.sqliteBackup = handle
        self.source = source
        self.destination = destination
    }

    deinit {
        if !isFinished { sqlite3_backup_finish(sqliteBackup) }
    }

    /// Copies up to `pages` pages (-1 for all). Returns `true` when every page is copied.
    /// - Throws: `SQLiteError` for anything but progress or the end: `isBusy` when the source
    ///   or the destination is locked (step again later), others when the backup failed.
    public func step(pages: Int32) throws -> Bool {
        let rc = sqlite3_backup_step(sqliteBackup, pages)
        switch rc {
        case SQLITE_DONE: return true
        case SQLITE_OK: return false
        default: throw SQLiteError.current(on: destination.sqliteConnection, code: rc)
        }
    }

    /// Pages still to copy after the last step.
    public var remainingPages: Int { Int(sqlite3_backup_remaining(sqliteBackup)) }

    /// Pages in the source database as of the last step.
    public var totalPages: Int { Int(sqlite3_backup_pagecount(sqliteBackup)) }

    /// Releases the backup; throws the error of the backup as a whole, if any.
    /// - Throws: `SQLiteError`: the first error any step met.
    public func finish() throws {
        guard !isFinished else { return }
        isFinished = true
        let rc = sqlite3_backup_finish(sqliteBackup)
        guard rc == SQLITE_OK else { throw SQLiteError.current(on: destination.sqliteConnection, code: rc) }
    }
}

extension Connection {
    /// Copies this connection's whole `main` database into `destination` in one step.
    /// - Throws: `SQLiteError` from starting, stepping or finishing the backup.
    public func backup(to destination: Connection) throws {
        let backup = try Backup(from: self, to: destination)
        _ = try backup.step(pages: -1)
        try backup.finish()
    }
}
