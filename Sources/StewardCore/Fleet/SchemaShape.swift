import SQLiteKit

/// The schema of `main` as objects that two databases can be compared by: each table,
/// index, trigger and view with its SQL normalised (comments, whitespace, keyword case and
/// identifier quoting do not count), and each table's columns. Rows are never read.
///
/// Left out: `sqlite_%` objects, the shadow tables of virtual tables (FTS5, FTS3/4 and
/// R*Tree make them, and their SQL is SQLite's, not the set's), and the ledger tables of
/// migration runners, which record history rather than schema.
public struct SchemaShape: Sendable, Equatable {
    struct Object: Sendable, Equatable {
        let type: String
        let name: String
        let sql: String
        let columns: [String]
    }

    /// Ledger tables of the runners whose sets Steward reads (dbmate and golang-migrate,
    /// goose, diesel, sqlx, Flyway, drizzle, knex).
    static let ledgerTables: Set<String> = [
        "schema_migrations", "goose_db_version", "__diesel_schema_migrations", "_sqlx_migrations",
        "flyway_schema_history", "__drizzle_migrations", "knex_migrations", "knex_migrations_lock",
    ]

    static let shadowSuffixes = ["_data", "_idx", "_content", "_docsize", "_config", "_segments", "_segdir",
                                 "_stat", "_node", "_parent", "_rowid"]

    /// By lower-cased name.
    var objects: [String: Object] = [:]

    public init(reading connection: Connection) throws {
        var entries: [(type: String, name: String, sql: String?)] = []
        try connection.forEachRow(sql: "SELECT type, name, sql FROM main.sqlite_schema") { row in
            entries.append((row.text(at: 0) ?? "", row.text(at: 1) ?? "", row.text(at: 2)))
        }
        let virtualTables = entries.filter {
            $0.type == "table" && ($0.sql.map { Self.normalise($0).hasPrefix("create virtual table") } ?? false)
        }.map { $0.name.lowercased() }
        for entry in entries {
            let key = entry.name.lowercased()
            if key.hasPrefix("sqlite_") || Self.ledgerTables.contains(key) { continue }
            if entry.type == "table", virtualTables.contains(where: { table in
                Self.shadowSuffixes.contains { key == table + $0 }
            }) { continue }
            // Automatic indexes of UNIQUE and PRIMARY KEY have no SQL: their table says it.
            guard let sql = entry.sql else { continue }
            var columns: [String] = []
            if entry.type == "table" || entry.type == "view" {
                try connection.forEachRow(
                    sql: "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_xinfo(?1, 'main')",
                    bindings: [.text(entry.name)]
                ) { row in
                    let name = (row.text(at: 0) ?? "").lowercased()
                    let type = (row.text(at: 1) ?? "").uppercased()
                    let notNull = row.int64(at: 2) != 0 ? " NOT NULL" : ""
                    let defaultValue = row.text(at: 3).map { " DEFAULT " + Self.normalise($0) } ?? ""
                    columns.append("\(name) \(type)\(notNull)\(defaultValue) pk \(row.int64(at: 4))")
                }
            }
            objects[key] = Object(type: entry.type, name: entry.name, sql: Self.normalise(sql), columns: columns)
        }
    }

    /// Differences of `self` (the database) from `expected` (what the set builds), object
    /// by object: `table ticket: column email extra`, `index ticket_status missing`.
    /// Empty when they are the same.
    public func differences(from expected: SchemaShape) -> [String] {
        var result: [String] = []
        for key in Set(objects.keys).union(expected.objects.keys).sorted() {
            switch (objects[key], expected.objects[key]) {
            case (nil, let wanted?):
                result.append("\(wanted.type) \(wanted.name) missing")
            case (let actual?, nil):
                result.append("\(actual.type) \(actual.name) extra")
            case (let actual?, let wanted?) where actual.type != wanted.type:
                result.append("\(actual.name) is a \(actual.type), expected a \(wanted.type)")
            case (let actual?, let wanted?) where actual != wanted:
                let have = actual.columns.map { $0.split(separator: " ").first.map(String.init) ?? $0 }
                let want = wanted.columns.map { $0.split(separator: " ").first.map(String.init) ?? $0 }
                var details: [String] = []
                details += want.filter { !have.contains($0) }.map { "column \($0) missing" }
                details += have.filter { !want.contains($0) }.map { "column \($0) extra" }
                for (index, name) in want.enumerated() {
                    if let at = have.firstIndex(of: name), actual.columns[at] != wanted.columns[index] {
                        details.append("column \(name) differs")
                    }
                }
                if details.isEmpty { details.append(actual.type == "table" ? "definition differs" : "differs") }
                result.append("\(actual.type) \(actual.name): " + details.joined(separator: ", "))
            default:
                break
            }
        }
        return result
    }

    /// SQL as tokens: words and quoted names lower-cased and unquoted, strings kept, one
    /// space between tokens.
    static func normalise(_ sql: String) -> String {
        SQLScanner.tokens(of: sql).map { token in
            switch token.kind {
            case .word, .quotedIdentifier: token.text.lowercased()
            case .string: "'" + token.text.replacingOccurrences(of: "'", with: "''") + "'"
            case .number, .symbol: token.text
            }
        }.joined(separator: " ")
    }
}
