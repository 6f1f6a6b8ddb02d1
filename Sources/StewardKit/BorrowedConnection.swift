import Foundation
import SQLiteKit
import StewardBase
import StewardChecks

/// An application's own SQLite connection, borrowed for Steward's checks in the app's
/// test target: the search contract, the FTS5 checks and a backup's proof, through the
/// connection, the SQLite and the tokenizers the app really uses.
///
/// ```swift
/// let steward = try BorrowedConnection(sqliteConnection: db.sqliteConnection)  // GRDB
/// let report = try steward.check(contractAt: "ticket-search.contract.json")
/// #expect(report.passed, "\(report.failedChecks)")
/// ```
///
/// Steward never closes the connection, and leaves it as it found it: every check runs in
/// a transaction that is rolled back, and every setting it changes (`query_only`, for the
/// FTS5 integrity-check, which is an INSERT) is set back, whatever happens. Use it from the
/// thread (or the queue's closure) that owns the connection, outside any transaction.
///
/// The handle must come from the SQLite StewardKit links: on Apple platforms the system's
/// (GRDB, SQLite.swift and FMDB use it by default; a build against SQLCipher or a SQLite of
/// its own is another library, and its handles cannot be used here).
public final class BorrowedConnection {
    let connection: Connection

    /// Borrows `sqliteConnection`, a `sqlite3 *`: GRDB's `db.sqliteConnection`,
    /// SQLite.swift's `connection.handle`, FMDB's `database.sqliteHandle`.
    public init(sqliteConnection: OpaquePointer) {
        connection = Connection(borrowing: sqliteConnection)
    }

    /// The version of the SQLite the app's connection runs.
    public var sqliteVersion: String { SQLiteLibrary.version }

    /// Runs `body` inside `BEGIN … ROLLBACK` with the connection's settings read before and
    /// set back after, on every path. Refuses a connection inside a transaction: Steward
    /// could not roll back its own work without ending the app's.
    func borrowed<T>(_ body: () throws -> T) throws -> T {
        guard connection.isAutocommit else {
            throw StewardError(.usage, "the app's connection is inside a transaction: run Steward's checks outside it, so that they can roll back their own work without ending the app's")
        }
        let settings = try ConnectionSettings(of: connection)
        defer {
            connection.rollbackIfNeeded()
            _ = try? settings.restore(on: connection)
        }
        if settings.values["query_only"] != 0 {
            try connection.execute(sql: "PRAGMA query_only = OFF")
        }
        try connection.execute(sql: "BEGIN")
        return try body()
    }
}
