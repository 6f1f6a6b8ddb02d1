import CSQLite

extension Connection {
    /// The first column of the first row, or nil when there is no row.
    /// - Throws: `SQLiteError` when the SQL cannot be prepared, bound or run.
    public func scalar(sql: String, bindings: [SQLiteValue] = []) throws -> SQLiteValue? {
        let statement = try prepare(sql: sql)
        try statement.bind(bindings)
        guard try statement.step() else { return nil }
        return statement.value(at: 0)
    }

    /// The first column of the first row as an integer (NULL and no row are errors).
    /// - Throws: `SQLiteError`; `.mismatch` when there is no row or the value is NULL.
    public func integer(sql: String, bindings: [SQLiteValue] = []) throws -> Int64 {
        let statement = try prepare(sql: sql)
        try statement.bind(bindings)
        guard try statement.step(), !statement.isNull(at: 0) else {
            throw SQLiteError(extendedCode: SQLITE_MISMATCH, message: "expected an integer result", sql: sql)
        }
        return statement.int64(at: 0)
    }

    /// Every row of a query as arrays of values.
    /// - Throws: `SQLiteError` when the SQL cannot be prepared, bound or run.
    public func rows(sql: String, bindings: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        let statement = try prepare(sql: sql)
        try statement.bind(bindings)
        return try statement.allRows()
    }

    /// Calls `body` for every row of a query, with the statement positioned on the row.
    /// - Throws: `SQLiteError` when the SQL cannot be prepared, bound or run; what `body`
    ///   throws, unchanged.
    public func forEachRow(sql: String, bindings: [SQLiteValue] = [], _ body: (Statement) throws -> Void) throws {
        let statement = try prepare(sql: sql)
        try statement.bind(bindings)
        while try statement.step() {
            try body(statement)
        }
    }

    // MARK: - Transactions

    public enum TransactionKind: String, Sendable {
        case deferred = "DEFERRED"
        case immediate = "IMMEDIATE"
        case exclusive = "EXCLUSIVE"
    }

    /// Runs `body` inside a transaction: commits when it returns, rolls back when it throws.
    /// - Throws: `SQLiteError` from `BEGIN` or `COMMIT`; what `body` throws, unchanged, after
    ///   the rollback.
    public func transaction<T>(_ kind: TransactionKind = .deferred, _ body: () throws -> T) throws -> T {
        try execute(sql: "BEGIN \(kind.rawValue)")
        do {
            let result = try body()
            try execute(sql: "COMMIT")
            return result
        } catch {
            rollbackIfNeeded()
            throw error
        }
    }

    /// Rolls back an open transaction; does nothing in autocommit mode.
    public func rollbackIfNeeded() {
        guard !isAutocommit else { return }
        // A failed ROLLBACK leaves nothing more to do; the connection will close it.
        _ = try? execute(sql: "ROLLBACK")
    }

    // MARK: - Pragmas

    /// `PRAGMA user_version`: a signed 32-bit integer the application owns.
    /// - Throws: `SQLiteError` when the pragma cannot run (for example `.notADatabase`).
    public func userVersion() throws -> Int32 {
        Int32(truncatingIfNeeded: try integer(sql: "PRAGMA user_version"))
    }

    /// Sets `PRAGMA user_version`, in the current transaction if one is open.
    ///
    /// - Throws: `SQLiteError`; `isBusy` when another connection holds a lock.
    public func setUserVersion(_ version: Int32) throws {
        try execute(sql: "PRAGMA user_version = \(version)")
    }

    /// `PRAGMA journal_mode` of `main`, lower-cased (`delete`, `wal`, …).
    /// - Throws: `SQLiteError` when the pragma cannot run.
    public func journalMode() throws -> String {
        try scalar(sql: "PRAGMA journal_mode")?.textValue?.lowercased() ?? ""
    }

    /// Sets the journal mode and returns the mode SQLite reports afterwards.
    /// - Throws: `SQLiteError`: `.misuse` for a mode SQLite does not know, others when the
    ///   pragma cannot run (`isBusy` when the change needs a lock another connection holds).
    @discardableResult
    public func setJournalMode(_ mode: String) throws -> String {
        let allowed: Set<String> = ["delete", "truncate", "persist", "memory", "wal", "off"]
        guard allowed.contains(mode.lowercased()) else {
            throw SQLiteError(extendedCode: SQLITE_MISUSE, message: "unknown journal mode \(mode)")
        }
        return try scalar(sql: "PRAGMA journal_mode = \(mode)")?.textValue?.lowercased() ?? ""
    }

    /// `PRAGMA integrity_check` (or `quick_check`): the problems found, or `["ok"]`.
    /// - Throws: `SQLiteError` when the check cannot run at all (a damaged file often makes
    ///   it throw `.corrupt` rather than report).
    public func integrityCheck(quick: Bool = false, maximumErrors: Int = 100) throws -> [String] {
        let pragma = quick ? "quick_check" : "integrity_check"
        return try rows(sql: "PRAGMA \(pragma)(\(maximumErrors))").map { row in
            row.first?.textValue ?? ""
        }
    }

    /// One row of `PRAGMA foreign_key_check`: the child table, the parent table and
    /// the constraint index. The rowid is deliberately not kept (it identifies customer rows).
    public struct ForeignKeyViolation: Sendable, Hashable, Codable {
        public let table: String
        public let parent: String
        public let constraint: Int
    }

    /// Every foreign key violation in the database.
    /// - Throws: `SQLiteError` when the pragma cannot run.
    public func foreignKeyViolations() throws -> [ForeignKeyViolation] {
        var result: [ForeignKeyViolation] = []
        try forEachRow(sql: "PRAGMA foreign_key_check") { row in
            result.append(ForeignKeyViolation(
                table: row.text(at: 0) ?? "", parent: row.text(at: 2) ?? "", constraint: row.int(at: 3)))
        }
        return result
    }

    /// Quotes a name as an SQL identifier: `ticket "x"` → `"ticket ""x"""`.
    public static func quote(identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Quotes text as an SQL string literal.
    public static func quote(literal: String) -> String {
        "'" + literal.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
