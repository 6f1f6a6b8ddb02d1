import Foundation
import SQLiteKit
import StewardBase

/// Told about each statement of a migration while it runs: after it is prepared (so
/// SQLite's authorizer has reported what it touches) and before it is stepped, then after.
protocol StatementObserver: AnyObject {
    func willRun(location: String) throws
    func didRun() throws
}

/// Runs one migration file statement by statement, with SQLite splitting the text
/// (`sqlite3_prepare_v2` and its tail pointer), and names file and line on failure.
struct MigrationScript {
    /// A `-- steward: rebuild-fts NAME` comment.
    struct Directive: Equatable {
        let table: String
        let line: Int
    }

    let migration: DialectMigration
    let directives: [Directive]
    /// The `-- steward: allow KIND NAME` comments of the up part (`MigrationGuard`).
    let allowances: [MigrationAllowance]
    /// Lower-cased names of the virtual tables the file creates.
    let createdVirtualTables: Set<String>
    private let lines: SourceLines

    /// What runs is the migration's up part (`upSQL`).
    init(_ migration: DialectMigration) throws {
        self.migration = migration
        self.lines = SourceLines(migration.upSQL)
        (self.directives, self.allowances) = try Self.comments(in: migration)
        self.createdVirtualTables = Self.createdVirtualTables(in: migration.upSQL)
    }

    /// One script per migration of a set in any layout, in the set's order. `migrate` and
    /// the search contract both run these.
    static func scripts(for set: DialectSet) throws -> [MigrationScript] {
        try set.migrations.map(MigrationScript.init)
    }

    /// Reads the `-- steward:` comments of a migration: rebuild directives and allowances.
    static func comments(in migration: DialectMigration) throws -> ([Directive], [MigrationAllowance]) {
        var result: [Directive] = []
        var allowances: [MigrationAllowance] = []
        // Split on LF scalars, as SQLite's offsets are counted into lines: "\r\n" is one
        // Character, so splitting the String itself would miss every line of a CRLF file.
        for (index, rawLine) in migration.upSQL.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = Substring(rawLine).trimmingWhitespaceAndNewlines()
            guard line.hasPrefix("--") else { continue }
            let comment = line.dropFirst(2).trimmingWhitespace()
            guard comment.hasPrefix("steward:") else { continue }
            let words = comment.dropFirst("steward:".count).split(whereSeparator: { $0 == " " || $0 == "\t" })
            if words.first == "allow" {
                allowances.append(try MigrationAllowance.parse(
                    words: Array(words.dropFirst()), location: "\(migration.fileName):\(index + 1)"))
                continue
            }
            guard words.count == 2, words[0] == "rebuild-fts" else {
                throw StewardError(
                    .badInput,
                    "\(migration.fileName):\(index + 1): unknown steward directive '\(comment)' (expected '-- steward: rebuild-fts NAME' or '-- steward: allow KIND NAME')")
            }
            result.append(Directive(table: String(words[1]), line: index + 1))
        }
        return (result, allowances)
    }

    /// Applies every statement of the file on `connection`, inside the caller's transaction.
    /// Returns the number of statements run.
    ///
    /// With `schemaOnly`, statements that only touch rows (INSERT, UPDATE, DELETE, SELECT…)
    /// are prepared, which checks their syntax and the names they use, but not run: the
    /// validation pass on an empty database needs the schema, not the data.
    ///
    /// `onRebuild` is called with the name of each FTS5 table that a statement of the file
    /// rebuilds itself (`INSERT INTO t(t) VALUES ('rebuild')`).
    ///
    /// `observer` is told where each statement is once it is prepared, before it runs, and
    /// again after it ran (`MigrationGuard`).
    @discardableResult
    func apply(
        on connection: Connection, cancellation: Cancellation, schemaOnly: Bool = false,
        observer: StatementObserver? = nil,
        onNote: ((String) -> Void)? = nil, onRebuild: ((String) -> Void)? = nil,
        onStatement: ((_ sql: String, _ byteOffset: Int, _ location: String) throws -> Void)? = nil,
        onRefusal: ((_ location: String, _ reason: String) -> Void)? = nil,
        onFailure: ((_ location: String, _ error: StewardError) -> Void)? = nil
    ) throws -> Int {
        var count = 0
        var wrapper = Wrapper.none
        var ranStatement = false
        do {
            try connection.forEachStatement(in: migration.upSQL) { statement, offset in
                let line = lines.lineOfFirstToken(from: offset)
                switch Self.control(statement.sql) {
                case .foreignKeys:
                    // A no-op inside a transaction (SQLite documents it so); the run keeps
                    // foreign keys off and checks them before the commit.
                    onNote?("\(migration.fileName):\(line): PRAGMA foreign_keys is a no-op inside the migration's transaction; foreign keys stay off during the run and are checked before the commit")
                    // SQLite sets the flag while it prepares the pragma; outside a
                    // transaction (the schema-only builds) that took effect: undo it, so that
                    // a later rename rewrites references as it does in the real run.
                    if schemaOnly { try connection.execute(sql: "PRAGMA foreign_keys = OFF") }
                    return
                case .begin where wrapper == .none && !ranStatement:
                    wrapper = .open(line: line)
                    onNote?("\(migration.fileName):\(line): the file's outer BEGIN … COMMIT is run as part of Steward's one transaction")
                    return
                case .commit where wrapper.isOpen:
                    wrapper = .closed(line: line)
                    return
                default:
                    if case .closed(let commitLine) = wrapper {
                        throw StewardError(
                            .badInput,
                            "\(migration.fileName):\(line): a statement after the COMMIT on line \(commitLine); only comments and PRAGMA foreign_keys may follow a file's outer BEGIN … COMMIT")
                    }
                }
                ranStatement = true
                if let reason = Self.refusal(for: statement.sql) {
                    // Lint reports every refused statement and goes on without it.
                    if let onRefusal {
                        onRefusal("\(migration.fileName):\(line)", reason)
                        return
                    }
                    throw StewardError(.badInput, "\(migration.fileName):\(line): \(reason)")
                }
                if cancellation.isCancelled {
                    throw StewardError.interrupted(by: cancellation)
                }
                if schemaOnly && !Self.changesSchema(statement.sql) {
                    count += 1
                    return
                }
                try onStatement?(statement.sql, offset, "\(migration.fileName):\(line)")
                try observer?.willRun(location: "\(migration.fileName):\(line)")
                // Lint reports a statement that fails and goes on with the next: the
                // failed statement's changes are undone to a savepoint of its own.
                // Not around the file's own savepoints, whose RELEASE would end ours too.
                let guarded = onFailure != nil && !Self.isSavepointControl(statement.sql)
                if guarded { try connection.execute(sql: "SAVEPOINT steward_statement") }
                do {
                    while try statement.step() {}
                } catch let error as SQLiteError {
                    guard guarded, let onFailure else { throw failure(error, line: line, cancellation: cancellation) }
                    // reset() answers the step's error again; the statement is finalized next.
                    _ = try? statement.reset()
                    try connection.execute(sql: "ROLLBACK TO steward_statement")
                    try connection.execute(sql: "RELEASE steward_statement")
                    onFailure("\(migration.fileName):\(line)", failure(error, line: line, cancellation: cancellation))
                    try observer?.didRun()
                    return
                }
                if guarded { try connection.execute(sql: "RELEASE steward_statement") }
                try observer?.didRun()
                if let onRebuild, let table = Self.rebuiltTable(by: statement.sql) {
                    onRebuild(table)
                }
                count += 1
            }
            if case .open(let beginLine) = wrapper {
                throw StewardError(
                    .badInput, "\(migration.fileName):\(beginLine): BEGIN without a COMMIT at the end of the file")
            }
        } catch let error as Connection.StatementPreparationError {
            // Without an error offset ("no such table") the offset is where the statement's
            // text begins, right after the previous semicolon: skip to its first token.
            throw failure(error.error, line: lines.lineOfFirstToken(from: error.byteOffset), cancellation: cancellation,
                          preparing: true)
        }
        return count
    }

    /// A statement that failed to prepare failed on the migration's own text (syntax, a
    /// name); one that failed while running may have been reading rows. Either way SQLite's
    /// message is shown only when its shape cannot quote a row (`SQLiteMessage`).
    private func failure(_ error: SQLiteError, line: Int, cancellation: Cancellation, preparing: Bool = false) -> StewardError {
        SQLiteErrorMapping(path: "\(migration.fileName):\(line)", role: .migrationStatement(preparing: preparing),
                           cancellation: cancellation).error(for: error)
    }

    /// The names in `CREATE VIRTUAL TABLE [IF NOT EXISTS] [schema.]name` statements. The
    /// scanner skips comments and string literals, and the statement cannot appear inside
    /// another one (a trigger body), so the whole text can be read at once.
    static func createdVirtualTables(in sql: String) -> Set<String> {
        let tokens = SQLScanner.tokens(of: sql)
        var names: Set<String> = []
        for index in tokens.indices where index + 3 < tokens.count && tokens[index].isKeyword("CREATE")
            && tokens[index + 1].isKeyword("VIRTUAL") && tokens[index + 2].isKeyword("TABLE")
        {
            var rest = tokens[(index + 3)...].prefix(6)
            if rest.count > 3, rest[rest.startIndex].isKeyword("IF") { rest = rest.dropFirst(3) }
            if rest.count > 2, rest[rest.startIndex + 1].kind == .symbol, rest[rest.startIndex + 1].text == "." {
                rest = rest.dropFirst(2)
            }
            if let name = rest.first?.name { names.insert(name.lowercased()) }
        }
        return names
    }

    /// Whether a statement defines schema (or is transaction-neutral control) rather than
    /// reading or writing rows.
    static func changesSchema(_ sql: String) -> Bool {
        var scanner = SQLScanner(sql)
        guard let first = scanner.nextToken(), first.kind == .word else { return false }
        return ["CREATE", "DROP", "ALTER", "SAVEPOINT", "RELEASE", "ROLLBACK", "PRAGMA"].contains(first.text.uppercased())
    }

    /// The FTS5 table a statement rebuilds, when it is `INSERT INTO t(t) VALUES ('rebuild')`
    /// (optionally schema-qualified).
    static func rebuiltTable(by sql: String) -> String? {
        var scanner = SQLScanner(sql)
        var prefix: [SQLScanner.Token] = []
        // The command has at most 12 tokens; read no further than that.
        while prefix.count < 13, let token = scanner.nextToken() { prefix.append(token) }
        guard prefix.count <= 12, prefix.first?.isKeyword("INSERT") == true else { return nil }
        var tokens = prefix[...]
        func take(_ keyword: String) -> Bool {
            guard tokens.first?.isKeyword(keyword) == true else { return false }
            tokens = tokens.dropFirst()
            return true
        }
        guard take("INSERT"), take("INTO"), var table = tokens.first?.name else { return nil }
        tokens = tokens.dropFirst()
        if tokens.first?.text == ".", let name = tokens.dropFirst().first?.name {
            table = name
            tokens = tokens.dropFirst(2)
        }
        let rest = tokens.map { $0.kind == .symbol ? $0.text : ($0.name ?? $0.text).lowercased() }
        guard rest == ["(", table.lowercased(), ")", "values", "(", "rebuild", ")"]
            || rest == ["(", table.lowercased(), ")", "values", "(", "rebuild", ")", ";"]
        else { return nil }
        return table
    }

    /// SAVEPOINT, RELEASE and ROLLBACK TO: a file's own savepoints.
    static func isSavepointControl(_ sql: String) -> Bool {
        var scanner = SQLScanner(sql)
        guard let first = scanner.nextToken() else { return false }
        return first.isKeyword("SAVEPOINT") || first.isKeyword("RELEASE") || first.isKeyword("ROLLBACK")
    }

    /// Where a file is in its outer `BEGIN … COMMIT` pair, if it has one.
    enum Wrapper: Equatable {
        case none
        case open(line: Int)
        case closed(line: Int)

        var isOpen: Bool {
            if case .open = self { return true }
            return false
        }
    }

    enum Control {
        case foreignKeys, begin, commit, other
    }

    /// Statements that Steward handles itself rather than run: `PRAGMA foreign_keys = …`
    /// (a no-op in a transaction), and the `BEGIN` and `COMMIT` (or `END`) of a file's outer
    /// pair. A statement's first keyword is enough: SQLite has split the text, so a
    /// trigger's `BEGIN … END` is inside its CREATE TRIGGER statement.
    static func control(_ sql: String) -> Control {
        var scanner = SQLScanner(sql)
        var tokens: [SQLScanner.Token] = []
        while tokens.count < 6, let token = scanner.nextToken() { tokens.append(token) }
        guard let first = tokens.first, first.kind == .word else { return .other }
        switch first.text.uppercased() {
        case "BEGIN": return .begin
        case "COMMIT", "END": return .commit
        case "PRAGMA":
            let rest = Array(tokens.dropFirst())
            let nameIndex = rest.count >= 3 && rest[1].text == "." ? 2 : 0
            guard nameIndex < rest.count, rest[nameIndex].name?.caseInsensitiveEquals("foreign_keys") == true,
                  nameIndex + 1 < rest.count, rest[nameIndex + 1].text == "=" || rest[nameIndex + 1].text == "("
            else { return .other }
            return .foreignKeys
        default: return .other
        }
    }

    /// Why a statement cannot run inside Steward's transaction, or nil when it can.
    static func refusal(for sql: String) -> String? {
        var scanner = SQLScanner(sql)
        var tokens: [SQLScanner.Token] = []
        while tokens.count < 6, let token = scanner.nextToken() { tokens.append(token) }
        guard let first = tokens.first, first.kind == .word else { return nil }
        let transaction = "cannot run inside Steward's migration transaction"
        switch first.text.uppercased() {
        case "BEGIN", "COMMIT", "END", "VACUUM", "ATTACH", "DETACH":
            return "\(first.text.uppercased()) \(transaction)"
        case "ROLLBACK":
            // ROLLBACK TO a savepoint stays inside the transaction.
            return tokens.contains { $0.isKeyword("TO") } ? nil : "ROLLBACK \(transaction)"
        case "PRAGMA":
            let rest = Array(tokens.dropFirst())
            let name = rest.count >= 3 && rest[1].text == "." ? rest[2].name : rest.first?.name
            guard let name else { return nil }
            for refused in ["journal_mode"] where name.caseInsensitiveEquals(refused) {
                return "PRAGMA \(refused) \(transaction)"
            }
            // Refused whatever the value, even as a query: the first two let rows or schema
            // past SQLite's own checks, the third turns the run's writes into failures that
            // look like a read-only file.
            for refused in ["ignore_check_constraints", "writable_schema"] where name.caseInsensitiveEquals(refused) {
                return "PRAGMA \(refused) is refused in migrations: it lets rows or schema past SQLite's own checks"
            }
            if name.caseInsensitiveEquals("query_only") {
                return "PRAGMA query_only is refused in migrations: it makes the migration's own writes fail"
            }
            return nil
        default:
            return nil
        }
    }
}
