import SQLiteKit

/// Whether every view, trigger and virtual table of `main` can be used on this connection:
/// each is prepared (never run) as the application would reach it. `PRAGMA
/// integrity_check` does not look at them: a view or trigger that names a table a
/// rename-first rebuild dropped (`no such table: main.ticket_old`), a virtual table whose
/// module is not loaded or that a newer SQLite wrote (an FTS5 option 3.40 lacks) all pass
/// it, and the database fails only when the application reads the view, writes the table
/// the trigger is on, or searches.
///
/// verify, backup and restore run this one check (`DatabaseChecks.schemaObjects`), so
/// that what verify proves and backup publishes is what restore accepts. Preparing reads
/// the schema, never a row: SQLite's messages here name schema objects only.
enum SchemaObjectsCheck {
    /// An object that cannot be prepared, and why.
    struct Problem: Sendable, Equatable {
        /// `view`, `trigger` or `virtual table`.
        let kind: String
        let name: String
        let error: SQLiteError
        /// The object's CREATE statement (a virtual table's, for its options).
        var declaration: String? = nil

        static func == (lhs: Problem, rhs: Problem) -> Bool {
            lhs.kind == rhs.kind && lhs.name == rhs.name && lhs.error.extendedCode == rhs.error.extendedCode
                && lhs.error.message == rhs.error.message
        }
    }

    struct Outcome: Sendable {
        var views = 0
        var triggers = 0
        var virtualTables = 0
        var problems: [Problem] = []
        /// Triggers that call a function (or use a collation) this SQLite does not have and
        /// that is not one a newer SQLite brought: the application's own, registered on its
        /// connections (GDAL's `ST_IsEmpty` in a GeoPackage's R*Tree triggers), or an
        /// extension's. Not a failure: the application has them where the triggers fire.
        var applicationFunctions: [Problem] = []
    }

    /// Prepares every view, trigger and virtual table of `main`. Throws only when the
    /// schema itself cannot be read, or for an interrupt.
    static func run(on connection: Connection) throws -> Outcome {
        var objects: [(type: String, name: String, sql: String)] = []
        try connection.forEachRow(sql: "SELECT type, name, sql FROM main.sqlite_schema WHERE type IN ('view', 'trigger', 'table') ORDER BY type, name") { row in
            objects.append((row.text(at: 0) ?? "", row.text(at: 1) ?? "", row.text(at: 2) ?? ""))
        }
        var outcome = Outcome()
        func prepare(_ statement: String, kind: String, name: String, declaration: String? = nil) {
            do {
                _ = try connection.prepare(sql: statement)
            } catch let error as SQLiteError where !error.isInterrupt {
                outcome.problems.append(Problem(kind: kind, name: name, error: error, declaration: declaration))
            } catch {}
        }
        // Triggers that one statement fires are compiled together: they are prepared by
        // group, and a failure names every trigger of the group.
        var groups: [(statement: String, names: [String])] = []
        for object in objects {
            switch object.type {
            case "view":
                outcome.views += 1
                prepare("SELECT * FROM main.\(Connection.quote(identifier: object.name))", kind: "view", name: object.name)
            case "trigger":
                outcome.triggers += 1
                guard let statement = try firingStatement(for: object.name, sql: object.sql, on: connection) else { continue }
                if let index = groups.firstIndex(where: { $0.statement == statement }) {
                    groups[index].names.append(object.name)
                } else {
                    groups.append((statement, [object.name]))
                }
            default:
                guard SQLScanner.tokens(of: object.sql).prefix(3).map({ $0.text.uppercased() }) == ["CREATE", "VIRTUAL", "TABLE"] else {
                    continue
                }
                outcome.virtualTables += 1
                prepare("SELECT * FROM main.\(Connection.quote(identifier: object.name)) LIMIT 0", kind: "virtual table", name: object.name,
                        declaration: object.sql)
            }
        }
        for group in groups {
            prepare(group.statement, kind: group.names.count == 1 ? "trigger" : "triggers", name: group.names.joined(separator: ", "))
        }
        outcome.applicationFunctions = outcome.problems.filter { $0.kind.hasPrefix("trigger") && isApplicationFunction($0) }
        outcome.problems.removeAll { $0.kind.hasPrefix("trigger") && isApplicationFunction($0) }
        return outcome
    }

    /// A statement whose preparing compiles the trigger's body (SQLite codes a row
    /// trigger into the program of every statement that fires it, at prepare time, and
    /// the triggers those fire in turn): an INSERT, DELETE or UPDATE of the table or view
    /// it is on, never run. Nil when the trigger's text is not one Steward can read (it is
    /// then not checked).
    static func firingStatement(for name: String, sql: String, on connection: Connection) throws -> String? {
        guard let trigger = TriggerDefinition(name: name, sql: sql) else { return nil }
        let target = "main.\(Connection.quote(identifier: trigger.table))"
        switch trigger.event {
        case "INSERT":
            return "INSERT INTO \(target) DEFAULT VALUES"
        case "DELETE":
            return "DELETE FROM \(target)"
        default:
            // An UPDATE OF trigger fires only for its columns: the first of them is set.
            var column = trigger.updateColumns.first
            if column == nil {
                column = try connection.rows(sql: "SELECT name FROM pragma_table_xinfo(?) WHERE hidden = 0 LIMIT 1",
                                             bindings: [.text(trigger.table)]).first?.first?.textValue
            }
            guard let column else { return nil }
            let quoted = Connection.quote(identifier: column)
            return "UPDATE \(target) SET \(quoted) = \(quoted)"
        }
    }

    /// The line for a problem: the object, and SQLite's message (which names schema
    /// objects only: nothing is run).
    /// A feature of a newer SQLite behind it is named, with its release
    /// (`NewerSQLite`).
    static func line(for problem: Problem) -> String {
        let tokenizer = problem.declaration.flatMap { FTS5Definition(name: problem.name, sql: $0)?.options["tokenize"] }
        return "\(problem.kind) \(problem.name): \(NewerSQLite.explained(problem.error, tokenizer: tokenizer))"
    }

    /// The line for a trigger that calls the application's own function: a note.
    static func note(for problem: Problem) -> String {
        "\(problem.kind) \(problem.name): \(problem.error.message) (not checked further: a function or collation the application "
            + "or an extension registers where the trigger fires)"
    }

    /// Whether a trigger's problem is a function or collation this SQLite lacks that no
    /// newer SQLite brought (`NewerSQLite` knows those): the application's own, or an
    /// extension's.
    static func isApplicationFunction(_ problem: Problem) -> Bool {
        let message = problem.error.message
        guard message.hasPrefix("no such function:") || message.hasPrefix("no such collation sequence:") else { return false }
        return NewerSQLite.feature(in: message) == nil
    }

    /// Whether the problem is a module that is not loaded: an extension's, which
    /// `--load-extension` would give.
    static func isMissingModule(_ problem: Problem) -> Bool {
        problem.error.message.hasPrefix("no such module:")
    }

    /// The outcome in one line, saying what was prepared.
    /// `noted`: the objects that could not be prepared for a reason that is not a
    /// failure (listed in the details).
    static func summary(of outcome: Outcome, noted: Int) -> String {
        func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
        let what = "\(count(outcome.views, "view")), \(count(outcome.triggers, "trigger")) and \(count(outcome.virtualTables, "virtual table"))"
        guard !outcome.problems.isEmpty else {
            if outcome.views + outcome.triggers + outcome.virtualTables == 0 { return "no views, triggers or virtual tables" }
            guard noted > 0 else { return "\(what) prepare on SQLite \(SQLiteLibrary.version)" }
            return "\(what) checked on SQLite \(SQLiteLibrary.version): all prepare but the \(noted) noted in the details "
                + "(functions the application registers, or modules of extensions not loaded)"
        }
        let names = outcome.problems.map { "\($0.kind) \($0.name)" }.joined(separator: ", ")
        return "cannot be prepared on SQLite \(SQLiteLibrary.version): \(names) (of \(what))"
    }
}
