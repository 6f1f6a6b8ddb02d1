import StewardBase
import SQLiteKit

/// The schema of `main` in a form two databases can be compared by, object by object:
/// tables with their columns and constraints, indexes, triggers and views, their SQL
/// normalised so that whitespace, comments, keyword case and identifier quoting do not
/// count. Rows are never read. The one comparison of `--baseline`, `--status`'s matching
/// version, migrate's drift check and verify's `schema` check.
///
/// Left out: `sqlite_%` objects, the ledger tables of every runner and their indexes and triggers (they record history,
/// not schema) and the shadow tables of virtual tables (FTS5, FTS3/4 and R*Tree make them;
/// their SQL is SQLite's, not the set's, and the virtual table's own SQL covers them).
public struct SchemaFingerprint: Sendable, Equatable {
    struct Column: Sendable, Equatable {
        let type: String
        let notNull: Bool
        let defaultValue: String?
        let primaryKeyPosition: Int
        let hidden: Int
    }

    struct Table: Sendable, Equatable {
        let name: String
        let columns: [String: Column]
        let columnOrder: [String]
        let sql: String
    }

    var tables: [String: Table] = [:]
    /// Indexes, triggers and views by lower-cased name, with their normalised SQL.
    var indexes: [String: String] = [:]
    var triggers: [String: String] = [:]
    var views: [String: String] = [:]

    /// Ledger tables: every dialect's, and knex's, whose sets Steward does not read but
    /// whose databases it meets.
    static let ledgerTables = Set(Dialect.allCases.compactMap { $0.ledgerTable?.lowercased() })
        .union(["knex_migrations", "knex_migrations_lock"])

    static let shadowSuffixes = ["_data", "_idx", "_content", "_docsize", "_config", "_segments", "_segdir",
                                 "_stat", "_node", "_parent", "_rowid"]

    /// What readings of one schema as it grows (a set built migration by migration) have
    /// found, by each object's SQL as stored: an object whose SQL is unchanged is not read
    /// or normalised again (a table's columns follow from its SQL). Without it, building a
    /// set of n migrations read O(n^2) tables (design notes, "Performance").
    final class ReadingCache {
        fileprivate var tables: [String: Table] = [:]
        fileprivate var normalised: [String: String] = [:]

        init() {}

        fileprivate func normalise(_ sql: String) -> String {
            if let known = normalised[sql] { return known }
            let result = SchemaFingerprint.normalise(sql)
            normalised[sql] = result
            return result
        }
    }

    public init(reading connection: Connection) throws {
        try self.init(reading: connection, cache: nil)
    }

    init(reading connection: Connection, cache: ReadingCache?) throws {
        let normalise: (String) -> String = { sql in cache?.normalise(sql) ?? Self.normalise(sql) }
        var entries: [(type: String, name: String, sql: String?)] = []
        try connection.forEachRow(sql: "SELECT type, name, sql, tbl_name FROM main.sqlite_schema ORDER BY type, name") { row in
            // A ledger's own indexes and triggers (golang-migrate's version_unique) are
            // history too: the runner made them, not the set.
            guard !Self.ledgerTables.contains((row.text(at: 3) ?? "").lowercased()) else { return }
            entries.append((row.text(at: 0) ?? "", row.text(at: 1) ?? "", row.text(at: 2)))
        }
        let virtualTables = entries.filter {
            $0.type == "table" && ($0.sql.map { Self.normalise($0).hasPrefix("create virtual table") } ?? false)
        }.map { $0.name.lowercased() }
        for entry in entries {
            let key = entry.name.lowercased()
            guard !key.hasPrefix("sqlite_"), !Self.ledgerTables.contains(key) else { continue }
            if entry.type == "table", virtualTables.contains(where: { table in
                Self.shadowSuffixes.contains { key == table + $0 }
            }) { continue }
            switch entry.type {
            case "table":
                let known = entry.name + "\u{0}" + (entry.sql ?? "")
                if let table = cache?.tables[known] {
                    tables[key] = table
                    continue
                }
                var columns: [String: Column] = [:]
                var order: [String] = []
                try connection.forEachRow(
                    sql: "SELECT name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo(?1, 'main')",
                    bindings: [.text(entry.name)]
                ) { row in
                    let name = (row.text(at: 0) ?? "").lowercased()
                    order.append(name)
                    columns[name] = Column(
                        type: (row.text(at: 1) ?? "").uppercased(), notNull: row.int64(at: 2) != 0,
                        defaultValue: row.text(at: 3).map(normalise), primaryKeyPosition: row.int(at: 4),
                        hidden: row.int(at: 5))
                }
                let table = Table(name: entry.name, columns: columns, columnOrder: order, sql: normalise(entry.sql ?? ""))
                tables[key] = table
                cache?.tables[known] = table
            case "index":
                // Automatic indexes (UNIQUE, PRIMARY KEY) have no SQL; their table's
                // definition already says what they index.
                if let sql = entry.sql { indexes[key] = normalise(sql) }
            case "trigger":
                triggers[key] = normalise(entry.sql ?? "")
            case "view":
                views[key] = normalise(entry.sql ?? "")
            default:
                break
            }
        }
    }

    /// No table, index, trigger or view (ledger tables aside).
    public var isEmpty: Bool { tables.isEmpty && indexes.isEmpty && triggers.isEmpty && views.isEmpty }

    /// SQL as tokens: words and quoted names lower-cased and unquoted, strings kept, all
    /// separated by one space; comments and whitespace gone.
    static func normalise(_ sql: String) -> String {
        SQLScanner.tokens(of: sql).map { token in
            switch token.kind {
            case .word, .quotedIdentifier: token.text.lowercased()
            case .string: "'" + token.text.replacingOccurrences(of: "'", with: "''") + "'"
            case .number, .symbol: token.text
            }
        }.joined(separator: " ")
    }

    /// The differences of `self` (the database) against `expected` (the set applied up to
    /// the baseline), object by object: "index ticket_status missing", "table ticket:
    /// column email extra". Empty when the schemas are equal.
    public func differences(from expected: SchemaFingerprint) -> [String] {
        var result: [String] = []
        for name in Set(expected.tables.keys).union(tables.keys).sorted() {
            switch (tables[name], expected.tables[name]) {
            case (nil, let wanted?): result.append("table \(wanted.name) missing")
            case (let actual?, nil): result.append("table \(actual.name) extra")
            case (let actual?, let wanted?):
                for column in wanted.columnOrder where actual.columns[column] == nil {
                    result.append("table \(actual.name): column \(column) missing")
                }
                for column in actual.columnOrder where wanted.columns[column] == nil {
                    result.append("table \(actual.name): column \(column) extra")
                }
                for column in wanted.columnOrder {
                    if let have = actual.columns[column], let want = wanted.columns[column], have != want {
                        result.append("table \(actual.name): column \(column) differs")
                    }
                }
                if actual.columns == wanted.columns, actual.columnOrder != wanted.columnOrder {
                    result.append("table \(actual.name): columns in another order")
                } else if actual.columns == wanted.columns, actual.sql != wanted.sql {
                    result.append("table \(actual.name): constraints differ")
                }
            case (nil, nil): break
            }
        }
        for (kind, mine, theirs) in [("index", indexes, expected.indexes), ("trigger", triggers, expected.triggers),
                                     ("view", views, expected.views)] {
            for name in Set(mine.keys).union(theirs.keys).sorted() {
                switch (mine[name], theirs[name]) {
                case (nil, _?): result.append("\(kind) \(name) missing")
                case (_?, nil): result.append("\(kind) \(name) extra")
                case (let have?, let want?) where have != want: result.append("\(kind) \(name) differs")
                default: break
                }
            }
        }
        return result
    }
}

/// The set built once on an empty in-memory database (schema statements run, row
/// statements only prepared): the set's check before a run writes (`failure`), and the
/// schema after each migration, which the drift check and `--baseline` compare with. One
/// build serves all three (they were three builds of the same files).
struct SetBuild: Sendable {
    struct Step: Sendable {
        let migration: DialectMigration
        let schema: SchemaFingerprint
    }

    /// The schema of the empty database.
    let empty: SchemaFingerprint
    /// After each migration, in the set's order, as far as the set built (and its schema
    /// could be read).
    let steps: [Step]
    /// Why the set does not build from an empty database; nil when it does.
    let failure: StewardError?
    /// The index in the set of the migration that failed (with `failure`); the steps can
    /// stop earlier, where a schema could not be read.
    var failedAt: (index: Int, fileName: String)? = nil

    /// The schema that exactly `applied` make, when they are the set's first migrations and
    /// the build got that far; nil otherwise (the caller builds them itself).
    func schema(after applied: [DialectMigration]) -> SchemaFingerprint? {
        guard !applied.isEmpty else { return empty }
        guard applied.count <= steps.count,
              zip(applied, steps).allSatisfy({ $0.fileName == $1.migration.fileName })
        else { return nil }
        return steps[applied.count - 1].schema
    }

    /// Whether `applied`, the set's first migrations, cannot be built: the set failed at
    /// one of them.
    func fails(building applied: [DialectMigration]) -> Bool {
        guard failure != nil, let failedAt, applied.count > failedAt.index,
              applied[failedAt.index].fileName == failedAt.fileName
        else { return false }
        return zip(applied, steps).allSatisfy { $0.fileName == $1.migration.fileName }
    }
}
