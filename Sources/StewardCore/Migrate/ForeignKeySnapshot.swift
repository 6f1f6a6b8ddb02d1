import SQLiteKit

/// The foreign-key violations of a database, each tied to the row that has it, so that a
/// run that removes one orphan and makes another is not read as "none added".
///
/// A violation is keyed by (table, foreign-key id, parent, row): the row is its rowid for a
/// rowid table, its primary-key values for a WITHOUT ROWID table. The values stay in
/// memory for the comparison and never reach a report or a message.
struct ForeignKeySnapshot {
    enum RowKey: Hashable {
        case rowid(Int64)
        case primaryKey([SQLiteValue])
        /// A WITHOUT ROWID row whose primary key could not be matched to the violation.
        case unknown
    }

    struct Violation: Hashable {
        let table: String
        let constraint: Int
        let parent: String
        let row: RowKey
    }

    /// What the comparison needs to know of a table that has violations.
    struct TableIdentity {
        let rootPage: Int64
        /// An INTEGER PRIMARY KEY or WITHOUT ROWID: rows keep their key when the table is
        /// rebuilt. An implicit rowid is renumbered by a rebuild.
        let hasStableKeys: Bool
    }

    let violations: [Violation]
    /// By lower-cased name, for the tables in `violations`.
    let tables: [String: TableIdentity]
    /// WITHOUT ROWID tables whose violations could not be tied to rows; compared by count.
    let unmatchedTables: Set<String>

    var count: Int { violations.count }

    init(violations: [Violation], tables: [String: TableIdentity], unmatchedTables: Set<String> = []) {
        self.violations = violations
        self.tables = tables
        self.unmatchedTables = unmatchedTables
    }

    init(of connection: Connection) throws {
        var violations: [Violation] = []
        var withoutRowid: [String: [Int: Int]] = [:]
        try connection.forEachRow(sql: "PRAGMA main.foreign_key_check") { row in
            let table = row.text(at: 0) ?? ""
            let constraint = row.int(at: 3)
            if row.isNull(at: 1) {
                withoutRowid[table, default: [:]][constraint, default: 0] += 1
            } else {
                violations.append(Violation(table: table, constraint: constraint, parent: row.text(at: 2) ?? "",
                                            row: .rowid(row.int64(at: 1))))
            }
        }
        var unmatched: Set<String> = []
        for (table, counts) in withoutRowid {
            for (constraint, expected) in counts {
                let found = (try? Self.orphans(in: table, constraint: constraint, on: connection)) ?? nil
                if let found, found.keys.count == expected {
                    violations += found.keys.map {
                        Violation(table: table, constraint: constraint, parent: found.parent, row: .primaryKey($0))
                    }
                } else {
                    unmatched.insert(table.lowercased())
                    let parent = found?.parent ?? ""
                    violations += Array(repeating: Violation(table: table, constraint: constraint, parent: parent, row: .unknown),
                                        count: expected)
                }
            }
        }
        var tables: [String: TableIdentity] = [:]
        for name in Set(violations.map { $0.table }) {
            tables[name.lowercased()] = try Self.identity(of: name, on: connection)
        }
        self.violations = violations
        self.tables = tables
        self.unmatchedTables = unmatched
    }

    private static func identity(of table: String, on connection: Connection) throws -> TableIdentity {
        let quoted = Connection.quote(literal: table)
        let rootPage = try connection.integer(
            sql: "SELECT rootpage FROM main.sqlite_schema WHERE type = 'table' AND name = \(quoted) COLLATE NOCASE")
        let withoutRowid = try connection.integer(
            sql: "SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = \(quoted) COLLATE NOCASE") == 1
        let keyTypes = try connection.rows(sql: "SELECT upper(type) FROM pragma_table_info(\(quoted), 'main') WHERE pk > 0")
        // A single INTEGER column as primary key aliases the rowid (DESC does not, a rarity
        // read here as an alias).
        let aliasesRowid = keyTypes.count == 1 && keyTypes[0].first == .text("INTEGER")
        return TableIdentity(rootPage: rootPage, hasStableKeys: withoutRowid || aliasesRowid)
    }

    /// The primary keys of the rows of a WITHOUT ROWID table that break one of its foreign
    /// keys, found with the rule `foreign_key_check` applies: a child key with no NULL
    /// column and no parent row with equal values (the parent column's collation and
    /// affinity). The caller checks the number against SQLite's own count.
    private static func orphans(in table: String, constraint: Int, on connection: Connection) throws
        -> (parent: String, keys: [[SQLiteValue]])?
    {
        let quoted = Connection.quote(literal: table)
        let columns = try connection.rows(
            sql: "SELECT \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(\(quoted), 'main') WHERE id = ? ORDER BY seq",
            bindings: [.integer(Int64(constraint))])
        guard case .text(let parent)? = columns.first?[0] else { return nil }
        let from = columns.compactMap { if case .text(let name) = $0[1] { name } else { nil } }
        guard from.count == columns.count else { return nil }
        var to = columns.map { if case .text(let name) = $0[2] { name } else { "" } }
        if to.contains("") {
            let parentKey = try connection.rows(
                sql: "SELECT name FROM pragma_table_info(?, 'main') WHERE pk > 0 ORDER BY pk", bindings: [.text(parent)])
            to = parentKey.compactMap { if case .text(let name) = $0[0] { name } else { nil } }
            guard to.count == from.count else { return nil }
        }
        let primaryKey = try connection.rows(
            sql: "SELECT name FROM pragma_table_info(\(quoted), 'main') WHERE pk > 0 ORDER BY pk")
            .compactMap { if case .text(let name) = $0[0] { name } else { nil } }
        guard !primaryKey.isEmpty else { return nil }

        let child = Connection.quote(identifier: table)
        let notNull = from.map { "c.\(Connection.quote(identifier: $0)) IS NOT NULL" }.joined(separator: " AND ")
        let matches = zip(to, from).map { "p.\(Connection.quote(identifier: $0)) = c.\(Connection.quote(identifier: $1))" }
            .joined(separator: " AND ")
        let parentExists = try connection.integer(
            sql: "SELECT count(*) FROM main.sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE",
            bindings: [.text(parent)]) > 0
        let missing = parentExists
            ? " AND NOT EXISTS (SELECT 1 FROM main.\(Connection.quote(identifier: parent)) AS p WHERE \(matches))" : ""
        let keys = try connection.rows(
            sql: "SELECT \(primaryKey.map { "c.\(Connection.quote(identifier: $0))" }.joined(separator: ", ")) "
                + "FROM main.\(child) AS c WHERE \(notNull)\(missing)")
        return (parent, keys)
    }

    /// Compares the violations after a run with those before it.
    static func compare(before: ForeignKeySnapshot, after: ForeignKeySnapshot, enforced: Bool) -> MigrateReport.ForeignKeys {
        // Tables whose rows cannot be followed across the run are compared by count.
        var byCount: [String: String] = [:]
        for (key, identity) in after.tables {
            if let old = before.tables[key], old.rootPage != identity.rootPage, !identity.hasStableKeys {
                byCount[key] = "rebuilt without an INTEGER PRIMARY KEY: its rowids were renumbered"
            }
        }
        for key in before.unmatchedTables.union(after.unmatchedTables) {
            byCount[key] = "WITHOUT ROWID rows could not be matched to the violations"
        }

        var added: [GroupKey: Int] = [:]
        let old = Set(before.violations.filter { byCount[$0.table.lowercased()] == nil })
        for violation in after.violations where byCount[violation.table.lowercased()] == nil && !old.contains(violation) {
            added[GroupKey(violation), default: 0] += 1
        }
        let oldCounts = groups(before.violations.filter { byCount[$0.table.lowercased()] != nil })
        for (key, count) in groups(after.violations.filter { byCount[$0.table.lowercased()] != nil }) {
            let extra = count - (oldCounts[key] ?? 0)
            if extra > 0 { added[key, default: 0] += extra }
        }

        func sorted(_ counts: [GroupKey: Int]) -> [MigrateReport.ForeignKeyGroup] {
            counts.map { .init(table: $0.key.table, parent: $0.key.parent, count: $0.value) }
                .sorted { ($0.table, $0.parent) < ($1.table, $1.parent) }
        }
        let tableNames = Dictionary(after.violations.map { ($0.table.lowercased(), $0.table) }, uniquingKeysWith: { first, _ in first })
        return .init(
            enforcedBefore: enforced, violationsBefore: before.count, violationsAfter: after.count,
            newViolationCount: added.values.reduce(0, +),
            newViolations: sorted(added), existingViolations: sorted(groups(before.violations)),
            comparedByCount: byCount.sorted { $0.key < $1.key }.map {
                .init(table: tableNames[$0.key] ?? $0.key, reason: $0.value)
            })
    }

    private struct GroupKey: Hashable {
        let table: String
        let parent: String
        init(_ violation: Violation) {
            table = violation.table
            parent = violation.parent
        }
    }

    private static func groups(_ violations: [Violation]) -> [GroupKey: Int] {
        violations.reduce(into: [:]) { $0[GroupKey($1), default: 0] += 1 }
    }
}
