import SQLiteKit

/// Which of SQLite's messages output may quote: decided by the message's shape, the same
/// in every command (design notes, "SQLite's messages in output").
///
/// SQLite formats some messages with a value it was given while running a statement:
/// `JSON path error near '…'` quotes the path (often a column's value), FTS5 and FTS3/4
/// quote the MATCH query (`fts5: syntax error near "…"`, `unknown special query: …`,
/// `malformed MATCH expression: […]`, and even `no such column: X` for a query's `X:`
/// column filter), `RAISE()` and an extension's function or virtual table say whatever
/// their author wrote. Others name only what the schema or the statement's own SQL holds:
/// `no such table: main.ticket`, `error in view open_ticket: …`,
/// `foreign key mismatch - "a" referencing "b"`, `UNIQUE constraint failed: t.c`,
/// `CHECK constraint failed: <its name or expression>`, `near "x": syntax error` of the
/// SQL being compiled. The formats were read from the strings of SQLite 3.40.1 (Debian's
/// libsqlite3.so.0: every `%s`, `%q`, `%T` and `%.*s`) and its sources (fts5_expr.c,
/// fts3_expr.c, json.c, vdbe.c, alter.c, fkey.c, insert.c).
///
/// A message is shown when it is SQLite's generic text for its code, when it has one of
/// the shapes below that carry names only, or when SQLite failed while compiling (then
/// it can quote only the SQL and the schema) and it is not one of the shapes that carry
/// values. Anything else, whatever is new in a later SQLite, is hidden: the code's
/// generic text and the result code are shown instead.
public enum SQLiteMessage {
    /// What a message can hold.
    public enum Shape: Sendable, Equatable {
        /// SQLite's generic text for the result code (`sqlite3_errstr`).
        case generic
        /// Names from the schema or from the statement's own SQL, or a fixed text.
        case names
        /// A shape that quotes a value given to a running statement: never shown.
        case values
        /// Not known to carry names only: not shown.
        case unknown
    }

    /// The shape of `error`'s message.
    public static func shape(of error: SQLiteError) -> Shape {
        shape(of: error.message, code: error.extendedCode, duringPreparation: error.duringPreparation)
    }

    public static func shape(of message: String, code: ResultCode, duringPreparation: Bool) -> Shape {
        // Written by a trigger's RAISE(), an application's or extension's function, or a
        // virtual table: the author's text, which may hold anything.
        if code == .constraintTrigger || code == .constraintFunction || code == .constraintVirtualTable { return .values }
        if carriesValues(message) { return .values }
        if message == code.genericMessage || message == code.primaryResultCode.genericMessage { return .generic }
        if duringPreparation { return .names }
        if fixedTexts.contains(message) { return .names }
        if let inner = innerMessage(ofSchemaError: message) {
            // The schema's own SQL, compiled again (ALTER TABLE, a view or trigger).
            return carriesValues(inner) ? .values : .names
        }
        if code.primaryResultCode == .constraint, namesConstraint(message, code: code) { return .names }
        if namesOnly(message) { return .names }
        return .unknown
    }

    /// Whether output may quote `error`'s message.
    public static func canShow(_ error: SQLiteError) -> Bool {
        switch shape(of: error) {
        case .generic, .names: return true
        case .values, .unknown: return false
        }
    }

    /// Any error as a message may show it: an `SQLiteError` through the shape rule, others
    /// as they describe themselves (an `SQLiteError`'s own description quotes SQLite's
    /// message and the SQL).
    public static func text(of error: any Error) -> String {
        if let error = error as? SQLiteError { return error.messageAndCode }
        return "\(error)"
    }

    // MARK: - Shapes

    /// Shapes that quote what a running statement was given.
    private static func carriesValues(_ message: String) -> Bool {
        valuePrefixes.contains { message.hasPrefix($0) }
            || message.wholeMatch(of: #/fts5: missing row [0-9-]+ from content table .*/#) != nil
    }

    /// Every message that begins so quotes a value. `bad JSON path:` is the 3.45 wording
    /// of the JSON path error; `parse error in` covers FTS5's rank function and options.
    package static let valuePrefixes = [
        "JSON path error near ", "bad JSON path:",
        "fts5: syntax error near ", "unknown special query: ", "malformed MATCH expression: ",
        "unrecognized matchinfo", "parse error in ", "expected integer, got ",
    ]

    /// Messages without a placeholder that Steward's runs meet (SQLite's and SQLiteKit's).
    package static let fixedTexts: Set<String> = [
        "malformed JSON", "JSON cannot hold BLOB values", "json_object() labels must be TEXT",
        "FOREIGN KEY constraint failed", "integer overflow", "unterminated string",
        "too many levels of trigger recursion", "incomplete input", "not authorized",
        "cannot start a transaction within a transaction", "cannot commit - no transaction is active",
        "cannot rollback - no transaction is active", "cannot VACUUM from within a transaction",
        "cannot change into wal mode from within a transaction",
        "cannot change out of wal mode from within a transaction",
        "cannot add a NOT NULL column with default value NULL", "Cannot add a PRIMARY KEY column",
        "Cannot add a UNIQUE column", "Cannot add a column with non-constant default", "cannot add a STORED column",
        "safety level may not be changed inside a transaction",
        "temporary storage cannot be changed from within a transaction",
        "no statement in the SQL text", "more than one statement in the SQL text; use execute(sql:)",
        "expected an integer result", "an empty database image",
    ]

    /// `error in view v: …`, `error in trigger t after rename: …`: SQLite compiled the
    /// schema's SQL again; the message after the colon is about that SQL.
    private static func innerMessage(ofSchemaError message: String) -> String? {
        guard let match = message.prefixMatch(of: #/error in (?:view|trigger|index|table) .+?(?: after (?:rename|drop column))?: /#)
        else { return nil }
        return String(message[match.range.upperBound...])
    }

    /// A constraint's message names the constraint (its columns, its name or its CHECK
    /// expression, all from the schema), not the row that broke it.
    private static func namesConstraint(_ message: String, code: ResultCode) -> Bool {
        let prefixes = [
            "UNIQUE constraint failed: ", "NOT NULL constraint failed: ", "CHECK constraint failed: ",
            "PRIMARY KEY constraint failed: ",
        ]
        if prefixes.contains(where: { message.hasPrefix($0) }) { return true }
        // STRICT tables name the value's type and the column, not the value.
        return message.wholeMatch(of: #/cannot store [A-Z]+ value in [A-Z]+ column \S+/#) != nil
    }

    /// Messages whose placeholders take names from the schema or the SQL being run, at
    /// any step of a statement. `no such column:` and `no such function:` are not among
    /// them: FTS5 says so of a MATCH query's column filter and rank function, so they are
    /// shown only from compiling.
    private static func namesOnly(_ message: String) -> Bool {
        let prefixes = [
            "no such table: ", "no such index: ", "no such trigger: ", "no such view: ", "no such module: ",
            "no such collation sequence: ", "no such database: ", "no such fts5 table: ",
            "foreign key mismatch - ", "unsafe use of ", "malformed database schema (", "vtable constructor failed: ",
            "database table is locked: ", "database schema is locked: ", "there is already ", "duplicate column name: ",
            "cannot modify ", "cannot drop column ", "generated column loop on ", "cannot INSERT into generated column ",
            "cannot UPDATE generated column ", "no parameter named ", "unknown journal mode ", "no such tokenizer: ",
        ]
        if prefixes.contains(where: { message.hasPrefix($0) }) { return true }
        let shapes: [Regex<Substring>] = [
            #/(?:table|index|view|trigger) \S+ already exists/#,
            #/table \S+ may not be (?:modified|altered|dropped|indexed)/#,
            #/table \S+ has [0-9]+ columns but [0-9]+ values were supplied/#,
            #/table \S+ has no column named \S+/#,
            #/view \S+ is circularly defined/#,
            #/access to \S+ is prohibited/#,
            #/invalid fts5 file format \(found [0-9]+, expected [0-9]+\) - run 'rebuild'/#,
        ]
        return shapes.contains { message.wholeMatch(of: $0) != nil }
    }
}

extension SQLiteError {
    /// SQLITE_NOMEM: reported as a resource failure (74), not as bad input.
    package var isOutOfMemory: Bool { code == .noMemory }

    /// SQLite's message where its shape may be shown (`SQLiteMessage`); otherwise the
    /// code's generic text, the code, and why SQLite's own message is not shown.
    /// A tokenizer this SQLite lacks is named, with where the table can be checked
    /// (`MissingTokenizer`).
    public var shownMessage: String {
        SQLiteMessage.canShow(self) ? MissingTokenizer.explained(message) ?? message : hiddenMessage
    }

    /// `shownMessage` with the extended result code, as every message that quotes an error
    /// from SQLite ends: `disk I/O error (SQLite error 266)`.
    public var messageAndCode: String {
        SQLiteMessage.canShow(self) ? "\(MissingTokenizer.explained(message) ?? message) (SQLite error \(extendedCode))" : hiddenMessage
    }

    private var hiddenMessage: String {
        "\(extendedCode.genericMessage) (SQLite error \(extendedCode); "
            + "SQLite's own message is not shown, as it can quote row data)"
    }
}
