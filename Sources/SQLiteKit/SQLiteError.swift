import CSQLite
import Foundation

/// An error returned by SQLite: the extended result code, SQLite's message and,
/// when known, the SQL that was running. Bound values are never part of it.
///
/// Printed like `SQLite error 19: NOT NULL constraint failed: ticket.title - while executing 'INSERT …'`.
public struct SQLiteError: Error, LocalizedError, CustomStringConvertible, Sendable, Equatable {
    /// The extended result code (https://www.sqlite.org/rescode.html).
    public let extendedCode: ResultCode
    /// SQLite's own message (`sqlite3_errmsg`), or the generic text of the code. It can
    /// quote a value the statement was given (a JSON path, an FTS5 query): StewardCore
    /// prints it only through `SQLiteMessage` (`shownMessage`).
    public let message: String
    /// The SQL being prepared or run, if any.
    public let sql: String?
    /// Whether `sqlite3_prepare_v2` failed: SQLite was compiling the SQL (and the schema it
    /// names), not running it, so the message can quote only those, never a row.
    public let duringPreparation: Bool

    /// An error of the given code; without a message, SQLite's generic text of the code.
    public init(extendedCode: ResultCode, message: String? = nil, sql: String? = nil, duringPreparation: Bool = false) {
        self.extendedCode = extendedCode
        self.message = message ?? extendedCode.genericMessage
        self.sql = sql
        self.duringPreparation = duringPreparation
    }

    /// Raw codes come only from the C calls inside SQLiteKit.
    init(extendedCode: Int32, message: String? = nil, sql: String? = nil, duringPreparation: Bool = false) {
        self.init(extendedCode: ResultCode(rawValue: extendedCode), message: message, sql: sql, duringPreparation: duringPreparation)
    }

    /// The primary result code (the low 8 bits of the extended code).
    public var code: ResultCode { extendedCode.primaryResultCode }

    /// SQLITE_BUSY or SQLITE_LOCKED: another connection holds a lock.
    public var isBusy: Bool { code == .busy || code == .locked }

    /// SQLITE_INTERRUPT: `sqlite3_interrupt` or a progress handler stopped the statement.
    public var isInterrupt: Bool { code == .interrupt }

    /// SQLITE_NOTADB: the file is not a database (or its header is damaged).
    public var isNotADatabase: Bool { code == .notADatabase }

    /// SQLITE_CORRUPT: the database (or an FTS index, as SQLITE_CORRUPT_VTAB) is damaged.
    public var isCorrupt: Bool { code == .corrupt }

    /// SQLITE_FULL or SQLITE_IOERR: the disk is full or a read/write failed.
    public var isInputOutput: Bool { code == .full || code == .ioError }

    public var description: String {
        var text = "SQLite error \(extendedCode): \(message)"
        if let sql {
            text += " - while executing '\(sql.trimmingCharacters(in: .whitespacesAndNewlines))'"
        }
        return text
    }

    public var errorDescription: String? { description }

    /// The error currently recorded on a connection handle.
    static func current(on sqliteConnection: OpaquePointer?, code: Int32, sql: String? = nil, duringPreparation: Bool = false) -> SQLiteError {
        guard let sqliteConnection else {
            return SQLiteError(extendedCode: code, sql: sql, duringPreparation: duringPreparation)
        }
        let extended = sqlite3_extended_errcode(sqliteConnection)
        // The handle's error may belong to an earlier call when the code we got
        // came from elsewhere (sqlite3_backup_finish, for one); keep the code we got.
        let useExtended = (extended & 0xFF) == (code & 0xFF)
        return SQLiteError(
            extendedCode: useExtended ? extended : code,
            message: useExtended ? String(cString: sqlite3_errmsg(sqliteConnection)) : nil,
            sql: sql,
            duringPreparation: duringPreparation
        )
    }
}
