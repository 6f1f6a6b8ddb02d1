import Foundation
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

        package init(problems: Int, tables: [String]) {
            self.problems = problems
            self.tables = tables
        }
    }

    /// Foreign-key violations of one child table against one parent table.
    public struct ForeignKeys: Codable, Sendable, Equatable {
        public let table: String
        public let parent: String
        public let count: Int

        package init(table: String, parent: String, count: Int) {
            self.table = table
            self.parent = parent
            self.count = count
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
