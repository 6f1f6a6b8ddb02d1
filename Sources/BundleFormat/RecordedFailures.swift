import Foundation
import SQLiteKit
import StewardBase

/// The failed checks of a database bundled as it is (`backup --as-is`, design notes, "Customer exports"; and
/// `migrate --backup-dir` for foreign-key violations that were there before): counts
/// and names of tables, never row data. Recorded in the manifest (`recordedFailures`,
/// optional in format version 1); `restore --accept-recorded-failures` publishes such a
/// bundle only when every failure it finds is one of these.
public struct RecordedFailures: Codable, Sendable, Equatable {
    /// `PRAGMA integrity_check`: how many problems it reported (at most
    /// `RecordedFailures.integrityLimit`), and the tables they concern (an index's
    /// problems count for its table). Zero and empty when it said `ok`.
    public struct Integrity: Codable, Sendable, Equatable {
        public let problems: Int
        public let tables: [String]

        /// From the messages of an `integrity_check` run with at most `integrityLimit`
        /// problems (none when it said `ok`); `connection` only names the tables they concern.
        package init(problems messages: [String], tablesIn connection: Connection) throws {
            problems = messages.count
            tables = messages.isEmpty ? [] : try RecordedFailures.tablesNamed(in: messages, connection)
        }
    }

    /// Foreign-key violations of one child table against one parent table.
    public struct ForeignKeys: Codable, Sendable, Equatable {
        public let table: String
        public let parent: String
        public let count: Int

        /// The rows of `PRAGMA foreign_key_check` counted per child and parent table, in
        /// table order; the pairs stay apart (a table name may hold " → "). Every check
        /// of foreign keys counts them so, recorded or not.
        package static func counted(_ violations: [Connection.ForeignKeyViolation]) -> [ForeignKeys] {
            var counts: [String: (table: String, parent: String, count: Int)] = [:]
            for violation in violations {
                counts["\(violation.table)\u{0}\(violation.parent)", default: (violation.table, violation.parent, 0)].count += 1
            }
            return counts.values.sorted { ($0.table, $0.parent) < ($1.table, $1.parent) }.map(ForeignKeys.init)
        }
    }

    public let integrity: Integrity
    public let foreignKeyViolations: [ForeignKeys]
    /// FTS5 tables whose integrity-check failed (only when it ran).
    public let fts5Tables: [String]

    public static let integrityLimit = 10_000

    public var isEmpty: Bool { integrity.problems == 0 && foreignKeyViolations.isEmpty && fts5Tables.isEmpty }

    /// Whether every failure in `found` is one recorded here: no more integrity problems,
    /// no table not named, no foreign-key pair with more violations, no other FTS5 table.
    public func covers(_ found: RecordedFailures) -> Bool {
        guard found.integrity.problems <= integrity.problems, Set(found.integrity.tables).isSubset(of: integrity.tables) else { return false }
        for pair in found.foreignKeyViolations {
            guard let recorded = foreignKeyViolations.first(where: { $0.table == pair.table && $0.parent == pair.parent }),
                  pair.count <= recorded.count else { return false }
        }
        return Set(found.fts5Tables).isSubset(of: fts5Tables)
    }

    /// `integrity: 3 problems in ticket; foreign-keys: ticket → customer: 2`, under the
    /// checks' names in the reports.
    public var summary: String {
        var parts: [String] = []
        if integrity.problems > 0 {
            parts.append("\(CheckName.integrity.rawValue): \(integrity.problems) problem\(integrity.problems == 1 ? "" : "s")"
                         + (integrity.tables.isEmpty ? "" : " in \(integrity.tables.joined(separator: ", "))"))
        }
        if !foreignKeyViolations.isEmpty {
            parts.append("\(CheckName.foreignKeys.rawValue): " + foreignKeyViolations.map { "\($0.table) → \($0.parent): \($0.count)" }.joined(separator: ", "))
        }
        if !fts5Tables.isEmpty { parts.append("\(CheckName.ftsSync.rawValue): \(fts5Tables.joined(separator: ", "))") }
        return parts.isEmpty ? "none" : parts.joined(separator: "; ")
    }

    package init(integrity: Integrity, foreignKeyViolations: [ForeignKeys], fts5Tables: [String]) {
        self.integrity = integrity
        self.foreignKeyViolations = foreignKeyViolations
        self.fts5Tables = fts5Tables
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
