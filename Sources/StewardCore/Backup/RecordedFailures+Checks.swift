import BundleFormat
import SQLiteKit
import StewardBase

// The record is made from what the checks found (`DatabaseChecks`), never by running them
// again: `integrity_check` and `foreign_key_check` each read the whole file.
extension RecordedFailures.Integrity {
    /// From `check`, an `integrity_check` run with at most `RecordedFailures.integrityLimit`
    /// problems; `connection` only names the tables they concern.
    init(_ check: Check, tablesIn connection: Connection) throws {
        self.init(problems: check.passed ? 0 : check.problems.count,
                  tables: check.passed ? [] : try RecordedFailures.tablesNamed(in: check.problems, connection))
    }
}

extension RecordedFailures.ForeignKeys {
    init(_ pair: DatabaseChecks.ForeignKeyCount) {
        self.init(table: pair.table, parent: pair.parent, count: pair.count)
    }
}

extension RecordedFailures {
    /// The tables whose names (or whose indexes' names) the messages mention.
    static func tablesNamed(in messages: [String], _ connection: Connection) throws -> [String] {
        var owners: [(name: String, table: String)] = []
        try connection.forEachRow(sql: "SELECT name, tbl_name FROM sqlite_schema WHERE type IN ('table', 'index')") { row in
            owners.append((row.text(at: 0) ?? "", row.text(at: 1) ?? ""))
        }
        // Longest names first, so that `ticket_fts` is not also taken for `ticket`.
        owners.sort { $0.name.count > $1.name.count }
        var tables = Set<String>()
        for message in messages {
            for owner in owners where !owner.name.isEmpty && message.contains(owner.name) {
                tables.insert(owner.table)
                break
            }
        }
        return tables.sorted()
    }
}
