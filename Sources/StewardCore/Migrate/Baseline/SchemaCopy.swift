import SQLiteKit

/// The schema of a database, without its rows, in another (empty) database: the pending
/// files of a set that starts from a baseline schema are checked there before the real
/// database is touched.
enum SchemaCopy {
    static func copy(from source: Connection, to target: Connection) throws {
        var statements: [(name: String, type: String, sql: String)] = []
        // In creation order, so that what a view or trigger names already exists.
        try source.forEachRow(sql: "SELECT name, type, sql FROM main.sqlite_schema WHERE sql IS NOT NULL ORDER BY rowid") { row in
            statements.append((row.text(at: 0) ?? "", row.text(at: 1) ?? "", row.text(at: 2) ?? ""))
        }
        try target.execute(sql: "PRAGMA foreign_keys = OFF")
        for statement in statements where !statement.name.lowercased().hasPrefix("sqlite_") {
            // A virtual table has made its shadow tables already.
            if statement.type == "table",
               try target.integer(sql: "SELECT count(*) FROM main.sqlite_schema WHERE name = ?1", bindings: [.text(statement.name)]) > 0 {
                continue
            }
            try target.execute(sql: statement.sql)
        }
    }
}
