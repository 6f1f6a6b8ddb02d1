import SQLiteKit

/// Every table of `main` can be read: ordinary, shadow and virtual ones, each counted
/// (`count(*)`, a virtual table through its module), never a row kept. backup (on its
/// copy) and restore (on the staged file) run this one check, `tables`, so that a bundle
/// backup publishes is one restore accepts: an FTS4 table whose content table is gone
/// passes every other check and fails here, at both ends.
///
/// Views are not run, only prepared (`SchemaObjectsCheck`): what a view computes from the
/// rows can fail on the rows (a JSON function over text that is no JSON), which says
/// nothing about the file and fails on the source just the same; restore used to count
/// every view, and so refused bundles of sound databases that backup had published.
enum TableReadsCheck {
    struct Table: Sendable, Equatable {
        let name: String
        /// `table`, `virtual` or `shadow` (`pragma_table_list`).
        let type: String
        let rowCount: Int64?
        let error: String?
    }

    struct Outcome: Sendable {
        let check: Check
        let tables: [Table]
    }

    /// Counts every table of `main` but `sqlite_schema`; a table in `counted` (read in full
    /// by another pass, the content digests) has that count and is not read again.
    /// `describe` words a failed count, or throws when the failure ends the run (a signal).
    /// With `extensionModulesAllowed` (backup), a virtual table whose module is not loaded
    /// is a note, as in `DatabaseChecks.schemaObjects`.
    static func run(
        on connection: Connection, counted: [String: Int64] = [:], extensionModulesAllowed: Bool = false,
        describe: (SQLiteError) throws -> String
    ) throws -> Outcome {
        var listed: [(name: String, type: String)] = []
        try connection.forEachRow(
            sql: "SELECT name, type FROM pragma_table_list WHERE schema = 'main' AND type <> 'view' AND name <> 'sqlite_schema' ORDER BY name"
        ) { row in
            listed.append((row.text(at: 0) ?? "", row.text(at: 1) ?? ""))
        }
        var tables: [Table] = []
        var problems: [String] = []
        var notes: [String] = []
        for (name, type) in listed {
            if let rows = counted[name] {
                tables.append(.init(name: name, type: type, rowCount: rows, error: nil))
                continue
            }
            do {
                let count = try connection.integer(sql: "SELECT count(*) FROM main.\(Connection.quote(identifier: name))")
                tables.append(.init(name: name, type: type, rowCount: count, error: nil))
            } catch let error as SQLiteError {
                if error.isInterrupt { throw error }
                // A newer SQLite's option or function is named with its release (`NewerSQLite`).
                let message = NewerSQLite.feature(in: error.message) != nil
                    ? "\(NewerSQLite.explained(error)) (SQLite error \(error.extendedCode))"
                    : try describe(error)
                tables.append(.init(name: name, type: type, rowCount: nil, error: message))
                if extensionModulesAllowed && error.message.hasPrefix("no such module:") {
                    notes.append("\(name): \(message) (an extension's module: the bundle restores with it loaded)")
                } else {
                    problems.append("\(name): \(message)")
                }
            }
        }
        let read = tables.filter { $0.rowCount != nil }.count
        let rows = tables.compactMap(\.rowCount).reduce(0, +)
        let detail = problems.isEmpty
            ? "\(read) table\(read == 1 ? "" : "s") read (\(rows) row\(rows == 1 ? "" : "s") counted)"
            : "\(problems.count) of \(tables.count) table\(tables.count == 1 ? "" : "s") cannot be read"
        return Outcome(
            check: Check(name: .tables, status: problems.isEmpty ? .ok : .failed, detail: detail, problems: problems, notes: notes),
            tables: tables)
    }
}
