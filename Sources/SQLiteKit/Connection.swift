import CSQLite
import FileNames
import Foundation

/// One SQLite database connection (`sqlite3*`).
///
/// The connection is closed when the last reference goes away. Statements keep their
/// connection alive, so every statement is finalized before `sqlite3_close_v2` runs.
/// Not thread-safe: use a connection from one thread at a time.
public final class Connection {
    /// How to open the database file.
    public struct OpenMode: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let readOnly = OpenMode(rawValue: SQLITE_OPEN_READONLY)
        public static let readWrite = OpenMode(rawValue: SQLITE_OPEN_READWRITE)
        public static let create = OpenMode(rawValue: SQLITE_OPEN_CREATE)
        /// Interpret the path as a `file:` URI (https://www.sqlite.org/uri.html).
        public static let uri = OpenMode(rawValue: SQLITE_OPEN_URI)
        /// Refuse to follow a symbolic link as the database path.
        public static let noFollow = OpenMode(rawValue: SQLITE_OPEN_NOFOLLOW)
        public static let memory = OpenMode(rawValue: SQLITE_OPEN_MEMORY)
        /// No mutex around each call on this connection (SQLite's multi-thread mode for it):
        /// for a connection only ever used from one thread, whose per-row and per-column
        /// calls would otherwise each take and release it (`sqlite3_interrupt` stays safe
        /// from any thread).
        public static let noMutex = OpenMode(rawValue: SQLITE_OPEN_NOMUTEX)
    }

    /// The raw `sqlite3*` handle. Only SQLiteKit uses it.
    public let sqliteConnection: OpaquePointer
    /// The path or URI the connection was opened with.
    public let path: String
    /// The overlay an overlaid `main` reads through (`overlaying(_:)`). A stored property
    /// is released only after `deinit`'s body, so after `sqlite3_close_v2`: the overlay
    /// outlives every use SQLite makes of it.
    var overlay: FileOverlay?
    /// The observer `setAuthorizer(_:)` installed, held while SQLite may call it (like
    /// `overlay`, released only after `deinit` has removed the callback).
    var authorizerBox: CallbackBox<(AuthorizerEvent) -> Void>?
    /// Whether this connection opened the handle, and so closes it (false: borrowed).
    private let ownsHandle: Bool

    /// Opens (and with `.create`, creates) a database.
    ///
    /// - Parameters:
    ///   - path: a file path, `:memory:`, or a `file:` URI together with `.uri`.
    ///   - mode: `.readWrite` plus `.create` by default.
    /// - Throws: `SQLiteError` when SQLite cannot open the file (`.cantOpen` codes, for
    ///   example for a missing file without `.create`).
    ///   - vfs: the name of a registered VFS; SQLite's default when nil.
    public init(path: String, mode: OpenMode = [.readWrite, .create], vfs: String? = nil) throws {
        var handle: OpaquePointer?
        // Extended result codes make errors precise (SQLITE_CORRUPT_VTAB and the like).
        let flags = mode.rawValue | SQLITE_OPEN_EXRESCODE
        // The path's own bytes, which need not be UTF-8 (FileNames).
        let rc = sqlite3_open_v2(FileName.cString(path), &handle, flags, vfs)
        guard rc == SQLITE_OK, let handle else {
            let error = SQLiteError.current(on: handle, code: rc)
            // > Whether or not an error occurs when it is opened, resources associated
            // > with the database connection handle should be released by passing it
            // > to sqlite3_close() when it is no longer required.
            sqlite3_close_v2(handle)
            throw error
        }
        self.sqliteConnection = handle
        self.path = path
        self.ownsHandle = true
        sqlite3_extended_result_codes(handle, 1)
    }

    /// Another library's connection, borrowed (an application's: GRDB's
    /// `db.sqliteConnection`, SQLite.swift's `handle`, FMDB's `sqliteHandle`). It is never
    /// closed here, and nothing of it is set: not its result-code mode, nor its busy,
    /// progress or authorizer callbacks, not even on `deinit`. Every statement prepared on
    /// it is finalized when released, as on a connection of our own.
    ///
    /// The handle must come from the SQLite this module links (on Apple platforms, the
    /// system's): a handle of another SQLite build cannot be used through these calls.
    public init(borrowing handle: OpaquePointer) {
        self.sqliteConnection = handle
        self.path = sqlite3_db_filename(handle, "main").map { String(cString: $0) } ?? ""
        self.ownsHandle = false
    }

    /// An in-memory database, private to this connection.
    /// - Throws: `SQLiteError` when SQLite cannot allocate the database.
    public static func inMemory() throws -> Connection {
        try Connection(path: ":memory:")
    }

    deinit {
        // A borrowed handle keeps its owner's callbacks, and stays open.
        guard ownsHandle else { return }
        // The handlers' boxes, stored properties, are released after this.
        sqlite3_progress_handler(sqliteConnection, 0, nil, nil)
        sqlite3_busy_handler(sqliteConnection, nil, nil)
        sqlite3_set_authorizer(sqliteConnection, nil, nil)
        sqlite3_close_v2(sqliteConnection)
    }

    // MARK: - Statements

    /// Prepares one statement. Throws if `sql` holds more than whitespace and comments after it.
    /// - Throws: `SQLiteError` when the SQL does not compile (`.error` for a syntax error or an
    ///   unknown name), or holds no statement (`.misuse`).
    public func prepare(sql: String) throws -> Statement {
        try Statement(connection: self, sql: sql)
    }

    /// Runs every statement in `sql`, one after another, discarding rows.
    /// - Throws: `SQLiteError` of the first statement that fails, with the whole `sql`.
    public func execute(sql: String) throws {
        do {
            try forEachStatement(in: sql) { statement, _ in
                while try statement.step() {}
            }
        } catch let failure as StatementPreparationError {
            throw SQLiteError(extendedCode: failure.error.extendedCode, message: failure.error.message, sql: sql, duringPreparation: true)
        }
    }

    /// Runs one statement with bound values, discarding rows.
    /// - Throws: `SQLiteError` when the statement cannot be prepared, bound or run.
    public func execute(sql: String, bindings: [SQLiteValue]) throws {
        let statement = try prepare(sql: sql)
        try statement.bind(bindings)
        while try statement.step() {}
    }

    /// Prepares the statements of `sql` one by one with the tail pointer of
    /// `sqlite3_prepare_v2` and hands each to `body` with its byte offset in the UTF-8 text
    /// (where its text begins, leading whitespace and comments included).
    ///
    /// A statement that cannot be prepared throws `StatementPreparationError` with the
    /// offset of the failing token; errors thrown by `body` pass through unchanged.
    ///
    /// A statement is prepared only after the previous one has been handed over, so
    /// `body` may run it and later statements can refer to what it created.
    /// - Throws: `StatementPreparationError` for a statement that does not compile; what `body`
    ///   throws, unchanged.
    public func forEachStatement(
        in sql: String,
        _ body: (Statement, _ byteOffset: Int) throws -> Void
    ) throws {
        var utf8 = Array(sql.utf8)
        utf8.append(0)
        try utf8.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            try base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { start in
                var cursor = start
                let end = start + (buffer.count - 1)
                while cursor < end {
                    var handle: OpaquePointer?
                    var tail: UnsafePointer<CChar>?
                    let rc = sqlite3_prepare_v2(sqliteConnection, cursor, Int32(end - cursor), &handle, &tail)
                    guard rc == SQLITE_OK else {
                        // sqlite3_error_offset (3.38+) points at the failing token, if known.
                        let errorOffset = Int(sqlite3_error_offset(sqliteConnection))
                        let error = SQLiteError.current(on: sqliteConnection, code: rc, duringPreparation: true)
                        sqlite3_finalize(handle)
                        let statementOffset = cursor - start
                        if errorOffset >= 0 {
                            throw StatementPreparationError(
                                byteOffset: statementOffset + errorOffset, statementOffset: statementOffset, error: error)
                        }
                        // No token to point at: point at the statement's first token, past
                        // the whitespace and comments that precede it.
                        var scanner = SQLScanner(String(decoding: UnsafeRawBufferPointer(start: cursor, count: end - cursor), as: UTF8.self))
                        throw StatementPreparationError(
                            byteOffset: statementOffset + scanner.offsetOfNextToken(), statementOffset: statementOffset, error: error)
                    }
                    let offset = cursor - start
                    guard let next = tail, next > cursor else {
                        sqlite3_finalize(handle)
                        break
                    }
                    cursor = next
                    // Only whitespace or comments: nothing to run.
                    guard let handle else { continue }
                    let statement = Statement(connection: self, preparedHandle: handle)
                    try body(statement, offset)
                }
            }
        }
    }

    /// Why `forEachStatement(in:_:)` could not prepare a statement, and where.
    public struct StatementPreparationError: Error, CustomStringConvertible {
        /// Byte offset in the UTF-8 text of the failing token, or of the statement.
        public let byteOffset: Int
        /// Byte offset where the failing statement's text begins, after the previous one
        /// (leading whitespace and comments included, as for statements that prepare).
        public let statementOffset: Int
        public let error: SQLiteError
        public var description: String { error.description }
    }

    // MARK: - Facts

    /// The rowid of the most recent successful INSERT on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(sqliteConnection) }

    /// Puts back the rowid `lastInsertRowID` gives (a borrowed connection's, after
    /// Steward's own inserts were rolled back).
    public func setLastInsertRowID(_ rowID: Int64) {
        sqlite3_set_last_insert_rowid(sqliteConnection, rowID)
    }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(sqliteConnection)) }

    /// Whether the connection is outside any transaction (autocommit mode).
    public var isAutocommit: Bool { sqlite3_get_autocommit(sqliteConnection) != 0 }

    /// Whether the `main` database was opened read-only.
    public var isReadOnly: Bool { sqlite3_db_readonly(sqliteConnection, "main") == 1 }

    /// The file name of the `main` database as SQLite resolved it, or nil for memory.
    public var fileName: String? {
        guard let name = sqlite3_db_filename(sqliteConnection, "main") else { return nil }
        let text = String(cString: name)
        return text.isEmpty ? nil : text
    }

    /// Whether the `main` database file was unlinked or renamed since it was opened
    /// (`SQLITE_FCNTL_HAS_MOVED`): the connection then works on a file nobody can find.
    /// - Throws: `SQLiteError` when the file control is not answered (`.notFound` for a VFS
    ///   that does not know it).
    public func hasMoved() throws -> Bool {
        var moved: Int32 = 0
        let rc = sqlite3_file_control(sqliteConnection, "main", SQLITE_FCNTL_HAS_MOVED, &moved)
        guard rc == SQLITE_OK else { throw SQLiteError.current(on: sqliteConnection, code: rc) }
        return moved != 0
    }

    // MARK: - Behaviour

    /// Sets how long SQLite retries on SQLITE_BUSY before giving up.
    public func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(sqliteConnection, milliseconds)
    }

    /// Sets a boolean `sqlite3_db_config` option (for example `SQLITE_DBCONFIG_DEFENSIVE`).
    /// - Throws: `SQLiteError` when SQLite does not know the option.
    public func setConfiguration(_ option: Int32, enabled: Bool) throws {
        var current: Int32 = 0
        let rc = steward_sqlite_db_config_flag(sqliteConnection, option, enabled ? 1 : 0, &current)
        guard rc == SQLITE_OK else { throw SQLiteError.current(on: sqliteConnection, code: rc) }
    }

    /// Hardens a connection that reads a file from elsewhere
    /// (https://www.sqlite.org/security.html): defensive mode, no extension loading, cell
    /// size checks, no memory mapping.
    ///
    /// The schema is trusted (`SQLITE_DBCONFIG_TRUSTED_SCHEMA` on) by default, and that is
    /// safe only because no extension can be loaded on this connection, which `harden`
    /// makes sure of itself: the functions and virtual tables a schema can then use are
    /// SQLite's own. Those that could do harm from a schema (`fts3_tokenizer`, `dbstat`,
    /// `sqlite_dbpage`, `load_extension`) are `SQLITE_DIRECTONLY`, which SQLite refuses in
    /// triggers, views, indexes, CHECK constraints and generated columns whatever this
    /// setting. With the schema untrusted, SQLite 3.40 also refuses every function not
    /// marked innocuous, and it does not mark its JSON functions so: a healthy schema
    /// with an index on `json_extract()`, a view using `->>` or `CHECK(json_valid(…))`
    /// could not even be read. A function cannot be marked innocuous from outside, so an
    /// allow-list is not possible on 3.40.
    ///
    /// Should extensions ever be loaded, `trustingSchema: false` is the posture: then only
    /// innocuous functions may appear in the schema.
    /// - Throws: `SQLiteError` when an option or a pragma cannot be set.
    public func harden(trustingSchema: Bool = true) throws {
        try setConfiguration(SQLITE_DBCONFIG_DEFENSIVE, enabled: true)
        try setConfiguration(SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, enabled: false)
        try setConfiguration(SQLITE_DBCONFIG_TRUSTED_SCHEMA, enabled: trustingSchema)
        try execute(sql: "PRAGMA cell_size_check = ON; PRAGMA mmap_size = 0")
    }

    /// Makes a read-write connection unable to change the database: `PRAGMA query_only`
    /// refuses every write, and `SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE` keeps the last
    /// connection to a WAL database from copying the WAL into the main file as it closes.
    ///
    /// For checks that only a read-write connection makes: on SQLite 3.40 a connection
    /// that opened the file read-only does not parse CHECK constraints, so its
    /// `integrity_check` cannot report a row that violates one.
    /// - Throws: `SQLiteError` when the option or the pragma cannot be set.
    public func makeQueryOnly() throws {
        try setConfiguration(SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, enabled: true)
        try execute(sql: "PRAGMA query_only = ON")
    }

    /// Whether extension loading is on (`SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION`).
    public var isExtensionLoadingEnabled: Bool {
        configuration(SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION)
    }

    /// Whether the schema is trusted (`SQLITE_DBCONFIG_TRUSTED_SCHEMA`).
    public var isSchemaTrusted: Bool {
        configuration(SQLITE_DBCONFIG_TRUSTED_SCHEMA)
    }

    /// Whether defensive mode is on (`SQLITE_DBCONFIG_DEFENSIVE`).
    public var isDefensive: Bool {
        configuration(SQLITE_DBCONFIG_DEFENSIVE)
    }

    private func configuration(_ option: Int32) -> Bool {
        var current: Int32 = 0
        // -1 asks for the current value without changing it.
        return steward_sqlite_db_config_flag(sqliteConnection, option, -1, &current) == SQLITE_OK && current != 0
    }

    /// Whether SQLite serializes calls on this connection with a mutex of its own (false
    /// for a connection opened `.noMutex`).
    public var isSerialized: Bool {
        sqlite3_db_mutex(sqliteConnection) != nil
    }

    /// Makes any running statement on this connection stop with SQLITE_INTERRUPT.
    /// Safe to call from another thread.
    public func interrupt() {
        sqlite3_interrupt(sqliteConnection)
    }

    // MARK: - Busy handling

    private var busyBox: CallbackBox<(Int) -> Bool>?

    /// Calls `handler` with the number of earlier calls each time a lock is busy
    /// (`sqlite3_busy_handler`); returning `true` retries, `false` gives up with
    /// SQLITE_BUSY. The handler should sleep briefly before returning `true`.
    /// Replaces any busy timeout. Pass `nil` to remove it.
    public func setBusyHandler(_ handler: ((Int) -> Bool)?) {
        sqlite3_busy_handler(sqliteConnection, nil, nil)
        busyBox = handler.map(CallbackBox.init)
        guard let busyBox else { return }
        sqlite3_busy_handler(sqliteConnection, { context, count in
            guard let handler = CallbackBox<(Int) -> Bool>.handler(context) else { return 0 }
            return handler(Int(count)) ? 1 : 0
        }, busyBox.context)
    }

    // MARK: - Progress

    private var progressBox: CallbackBox<() -> Bool>?

    /// Calls `handler` about every `instructions` virtual-machine steps while a statement
    /// runs (`sqlite3_progress_handler`). Returning `false` interrupts the statement.
    /// Pass `nil` to remove the handler.
    public func setProgressHandler(instructions: Int32, _ handler: (() -> Bool)?) {
        sqlite3_progress_handler(sqliteConnection, 0, nil, nil)
        progressBox = handler.map(CallbackBox.init)
        guard let progressBox else { return }
        sqlite3_progress_handler(sqliteConnection, instructions, { context in
            guard let handler = CallbackBox<() -> Bool>.handler(context) else { return 0 }
            return handler() ? 0 : 1
        }, progressBox.context)
    }
}
