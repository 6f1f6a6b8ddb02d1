import CSQLite

/// A prepared statement (`sqlite3_stmt*`): prepared in the initializer, finalized in `deinit`.
///
/// Bind values, `step()` until it returns `false`, then `reset()` to run it again.
public final class Statement {
    /// The raw `sqlite3_stmt*` handle. Only SQLiteKit uses it.
    public let sqliteStatement: OpaquePointer
    /// The connection the statement belongs to; kept alive by the statement.
    public let connection: Connection

    /// Prepares exactly one statement.
    init(connection: Connection, sql: String) throws {
        var handle: OpaquePointer?
        var remainder = ""
        let rc = sql.withCString { start -> Int32 in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v2(connection.sqliteConnection, start, -1, &handle, &tail)
            if let tail { remainder = String(cString: tail) }
            return rc
        }
        guard rc == SQLITE_OK else {
            sqlite3_finalize(handle)
            throw SQLiteError.current(on: connection.sqliteConnection, code: rc, sql: sql, duringPreparation: true)
        }
        guard let handle else {
            throw SQLiteError(extendedCode: SQLITE_MISUSE, message: "no statement in the SQL text", sql: sql, duringPreparation: true)
        }
        // A second statement would be silently ignored by sqlite3_prepare_v2.
        if !Statement.isBlank(remainder) {
            sqlite3_finalize(handle)
            throw SQLiteError(
                extendedCode: SQLITE_MISUSE,
                message: "more than one statement in the SQL text; use execute(sql:)",
                sql: sql, duringPreparation: true)
        }
        self.sqliteStatement = handle
        self.connection = connection
    }

    init(connection: Connection, preparedHandle: OpaquePointer) {
        self.sqliteStatement = preparedHandle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(sqliteStatement)
    }

    /// The SQL text of the statement as prepared.
    public var sql: String {
        guard let text = sqlite3_sql(sqliteStatement) else { return "" }
        return String(cString: text)
    }

    /// Whether the statement makes no direct change to the database file.
    public var isReadOnly: Bool { sqlite3_stmt_readonly(sqliteStatement) != 0 }

    // MARK: - Binding

    /// Binds `value` to the parameter at `index` (1-based). Text is bound as UTF-8 and
    /// copied by SQLite (SQLITE_TRANSIENT).
    /// - Throws: `SQLiteError`; `.range` for an index the statement does not have.
    public func bind(_ value: SQLiteValue, at index: Int) throws {
        let position = Int32(index)
        let rc: Int32
        switch value {
        case .null:
            rc = sqlite3_bind_null(sqliteStatement, position)
        case .integer(let integer):
            rc = sqlite3_bind_int64(sqliteStatement, position, integer)
        case .real(let real):
            rc = sqlite3_bind_double(sqliteStatement, position, real)
        case .text(let text):
            rc = sqlite3_bind_text64(
                sqliteStatement, position, text, UInt64(text.utf8.count),
                steward_sqlite_transient(), UInt8(SQLITE_UTF8))
        case .blob(let bytes):
            rc = bytes.withUnsafeBytes { buffer in
                // A zero-length blob is still a blob, not NULL.
                guard let base = buffer.baseAddress else {
                    return sqlite3_bind_zeroblob(sqliteStatement, position, 0)
                }
                return sqlite3_bind_blob64(
                    sqliteStatement, position, base, UInt64(buffer.count), steward_sqlite_transient())
            }
        }
        try check(rc)
    }

    /// Binds values to parameters 1, 2, … in order.
    /// - Throws: `SQLiteError`; `.range` when there are more values than parameters.
    public func bind(_ values: [SQLiteValue]) throws {
        for (offset, value) in values.enumerated() {
            try bind(value, at: offset + 1)
        }
    }

    /// Binds `value` to a named parameter such as `:title`.
    /// - Throws: `SQLiteError`; `.range` for a name the statement does not have.
    public func bind(_ value: SQLiteValue, named name: String) throws {
        let index = sqlite3_bind_parameter_index(sqliteStatement, name)
        guard index > 0 else {
            throw SQLiteError(extendedCode: SQLITE_RANGE, message: "no parameter named \(name)", sql: sql)
        }
        try bind(value, at: Int(index))
    }

    /// The number of parameters the statement takes.
    public var parameterCount: Int { Int(sqlite3_bind_parameter_count(sqliteStatement)) }

    /// Sets every parameter back to NULL.
    public func clearBindings() {
        sqlite3_clear_bindings(sqliteStatement)
    }

    // MARK: - Running

    /// Runs the statement to its next row. Returns `true` when a row is available,
    /// `false` when the statement is done; throws on any other result.
    /// - Throws: `SQLiteError` for any result but a row or the end (`isBusy` for a lock,
    ///   `.constraint` codes for a violated constraint, `.interrupt` when interrupted).
    @discardableResult
    public func step() throws -> Bool {
        let rc = sqlite3_step(sqliteStatement)
        switch rc {
        case SQLITE_ROW:
            return true
        case SQLITE_DONE:
            return false
        default:
            // Reset so that the statement can be stepped again after a busy error.
            sqlite3_reset(sqliteStatement)
            throw SQLiteError.current(on: connection.sqliteConnection, code: rc, sql: sql)
        }
    }

    /// Makes the statement ready to run again; bindings are kept.
    /// - Throws: `SQLiteError` when SQLite reports an error on reset.
    public func reset() throws {
        try check(sqlite3_reset(sqliteStatement))
    }

    // MARK: - Columns

    public var columnCount: Int { Int(sqlite3_column_count(sqliteStatement)) }

    public func columnName(at index: Int) -> String {
        guard let name = sqlite3_column_name(sqliteStatement, Int32(index)) else { return "" }
        return String(cString: name)
    }

    public func isNull(at index: Int) -> Bool {
        sqlite3_column_type(sqliteStatement, Int32(index)) == SQLITE_NULL
    }

    public func int64(at index: Int) -> Int64 {
        sqlite3_column_int64(sqliteStatement, Int32(index))
    }

    public func int(at index: Int) -> Int {
        Int(sqlite3_column_int64(sqliteStatement, Int32(index)))
    }

    public func double(at index: Int) -> Double {
        sqlite3_column_double(sqliteStatement, Int32(index))
    }

    /// The column as UTF-8 text, or nil when it is NULL.
    public func text(at index: Int) -> String? {
        guard let bytes = sqlite3_column_text(sqliteStatement, Int32(index)) else { return nil }
        let count = Int(sqlite3_column_bytes(sqliteStatement, Int32(index)))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    public func blob(at index: Int) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(sqliteStatement, Int32(index)))
        guard count > 0, let bytes = sqlite3_column_blob(sqliteStatement, Int32(index)) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// The column with its storage class.
    public func value(at index: Int) -> SQLiteValue {
        switch sqlite3_column_type(sqliteStatement, Int32(index)) {
        case SQLITE_INTEGER: return .integer(int64(at: index))
        case SQLITE_FLOAT: return .real(double(at: index))
        case SQLITE_TEXT: return .text(text(at: index) ?? "")
        case SQLITE_BLOB: return .blob(blob(at: index))
        default: return .null
        }
    }

    /// The column encoded as the sqlite3 shell's `.sha3sum` (`sha3_query`) encodes a
    /// value, handed to `body` without copying: `N` for NULL; `I` or `F` and the 8 bytes
    /// of the 64-bit integer or IEEE double, big-endian; `T<n>:` or `B<n>:` and the n
    /// bytes of the text (as stored, UTF-8) or blob.
    public func withHashEncoding(at index: Int, _ body: (UnsafeRawBufferPointer) -> Void) {
        let column = Int32(index)
        // This runs for every value a content digest reads: the tag and length go through
        // a buffer on the stack, not an array or a string (design notes, "Performance": they were a tenth of
        // the digests' time).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            let bytes = UnsafeRawBufferPointer(buffer)
            func tagged(_ tag: UInt8, _ bits: UInt64) {
                buffer[0] = tag
                for shift in 0..<8 { buffer[8 - shift] = UInt8(truncatingIfNeeded: bits >> (8 * UInt64(shift))) }
                body(UnsafeRawBufferPointer(rebasing: bytes[0..<9]))
            }
            func counted(_ tag: UInt8, _ pointer: UnsafeRawPointer?) {
                let count = Int(sqlite3_column_bytes(sqliteStatement, column))
                // `<tag><decimal count>:`, written from the end of the buffer.
                var start = buffer.count - 1
                buffer[start] = UInt8(ascii: ":")
                var rest = count
                repeat {
                    start -= 1
                    buffer[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                } while rest > 0
                start -= 1
                buffer[start] = tag
                body(UnsafeRawBufferPointer(rebasing: bytes[start..<buffer.count]))
                if count > 0, let pointer { body(UnsafeRawBufferPointer(start: pointer, count: count)) }
            }
            switch sqlite3_column_type(sqliteStatement, column) {
            case SQLITE_INTEGER: tagged(UInt8(ascii: "I"), UInt64(bitPattern: sqlite3_column_int64(sqliteStatement, column)))
            case SQLITE_FLOAT: tagged(UInt8(ascii: "F"), sqlite3_column_double(sqliteStatement, column).bitPattern)
            case SQLITE_TEXT: counted(UInt8(ascii: "T"), UnsafeRawPointer(sqlite3_column_text(sqliteStatement, column)))
            case SQLITE_BLOB: counted(UInt8(ascii: "B"), sqlite3_column_blob(sqliteStatement, column))
            default:
                buffer[0] = UInt8(ascii: "N")
                body(UnsafeRawBufferPointer(rebasing: bytes[0..<1]))
            }
        }
    }

    /// Every remaining row as an array of values.
    /// - Throws: `SQLiteError` when a step fails.
    public func allRows() throws -> [[SQLiteValue]] {
        var rows: [[SQLiteValue]] = []
        while try step() {
            rows.append((0..<columnCount).map { value(at: $0) })
        }
        return rows
    }

    // MARK: - Helpers

    private func check(_ rc: Int32) throws {
        guard rc == SQLITE_OK else {
            throw SQLiteError.current(on: connection.sqliteConnection, code: rc, sql: sql)
        }
    }

    static func isBlank(_ text: String) -> Bool {
        // Empty statements (a stray ';') are nothing to run either.
        SQLScanner.tokens(of: text).allSatisfy { $0.kind == .symbol && $0.text == ";" }
    }
}
