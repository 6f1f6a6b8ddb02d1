import BundleFormat
import SQLiteKit

/// The checks every command that judges a database runs the same way: `integrity_check`
/// (or `quick_check`), `foreign_key_check`, `user_version` against what is expected, and
/// FTS5's own integrity-check. verify, backup and restore call these and render the
/// `Check` in their own report; which connection each runs on (read-only, read-write
/// query-only, a private copy) stays the caller's choice.
///
/// SQLite errors are thrown as they are: each caller decides whether one fails the check
/// or ends the run.
enum DatabaseChecks {
    /// Violations of one child table against one parent table: the record's own type
    /// (`RecordedFailures`), which backup and restore keep.
    typealias ForeignKeyCount = RecordedFailures.ForeignKeys

    /// `PRAGMA integrity_check` (or `quick_check`), stopping after `maximumErrors`
    /// problems. Only a read-write connection checks CHECK constraints (`IntegrityCheck`).
    /// When the pragma itself stops on damage after it reported findings (SQLITE_CORRUPT
    /// part way, as the sqlite3 shell shows: the rows, then the error), the findings are
    /// kept and the stop is the last line; with no finding at all, the error is thrown.
    static func integrity(on connection: Connection, quick: Bool = false, maximumErrors: Int) throws -> Check {
        let pragma = quick ? "quick_check" : "integrity_check"
        var rows: [String] = []
        var stopped: String?
        do {
            try connection.forEachRow(sql: "PRAGMA \(pragma)(\(maximumErrors))") { row in rows.append(row.text(at: 0) ?? "") }
        } catch let error as SQLiteError where error.isCorrupt && !rows.isEmpty && rows != ["ok"] {
            stopped = "\(pragma) stopped here: \(error.messageAndCode)"
        }
        var check = integrity(rows == ["ok"] ? [] : rows, pragma: pragma)
        check.stopped = stopped
        return check
    }

    /// The `integrity_check` that `found` was, as one stopping after `maximumErrors`
    /// problems would have found it: SQLite reports them in a fixed order and stops at
    /// the limit, so one run serves a short report and a longer record
    /// (`RecordedFailures.integrityLimit`).
    static func integrity(_ found: Check, limitedTo maximumErrors: Int) -> Check {
        guard found.problems.count > maximumErrors else { return found }
        return integrity(Array(found.problems.prefix(maximumErrors)), pragma: "integrity_check")
    }

    private static func integrity(_ problems: [String], pragma: String) -> Check {
        if problems.isEmpty {
            return Check(name: .integrity, status: .ok, detail: "\(pragma) returned ok", counts: ["problems": 0])
        }
        // What is shown, and counted in words, is a line per finding (`IntegrityMessages`);
        // `problems` keeps SQLite's rows, which the manifest's record counts.
        let lines = IntegrityMessages.lines(problems).count
        return Check(
            name: .integrity, status: .failed,
            detail: "\(pragma) found \(lines) problem\(lines == 1 ? "" : "s")",
            problems: problems, counts: ["problems": problems.count])
    }

    /// `PRAGMA foreign_key_check`, counted per pair of tables; never the rows.
    static func foreignKeys(on connection: Connection) throws -> Check {
        foreignKeys(counted: try foreignKeyCounts(on: connection))
    }

    /// The foreign-key check of pairs `foreignKeyCounts` already counted.
    static func foreignKeys(counted pairs: [ForeignKeyCount]) -> Check {
        if pairs.isEmpty {
            return Check(name: .foreignKeys, status: .ok, detail: "foreign_key_check found no violations")
        }
        var counts: [String: Int] = [:]
        for pair in pairs { counts["\(pair.table) → \(pair.parent)", default: 0] += pair.count }
        let total = pairs.reduce(0) { $0 + $1.count }
        let problems = counts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value) row\($0.value == 1 ? "" : "s")" }
        return Check(
            name: .foreignKeys, status: .failed,
            detail: "foreign_key_check found \(total) violation\(total == 1 ? "" : "s")",
            problems: problems, counts: counts)
    }

    /// `PRAGMA foreign_key_check` counted per child and parent table, in table order; the
    /// pairs stay apart (a table name may hold " → ").
    static func foreignKeyCounts(on connection: Connection) throws -> [ForeignKeyCount] {
        ForeignKeyCount.counted(try connection.foreignKeyViolations())
    }

    /// `PRAGMA user_version` against `expected`.
    static func userVersion(on connection: Connection, expected: Int32) throws -> Check {
        userVersion(try connection.userVersion(), expected: expected)
    }

    /// A `user_version` already read (verify falls back to the header's) against `expected`.
    static func userVersion(_ value: Int32, expected: Int32) -> Check {
        Check(
            name: .version, status: value == expected ? .ok : .failed,
            detail: value == expected ? "user_version is \(value)" : "user_version is \(value), expected \(expected)",
            userVersion: value, expectedUserVersion: expected)
    }

    /// Every view, trigger and virtual table of `main` prepares on `connection`
    /// (`SchemaObjectsCheck`): what restore accepts, verify proves and backup publishes.
    /// With `extensionModulesAllowed` (backup), a virtual table whose module is not loaded
    /// is a note, not a failure: the bundle restores with the extension that provides it
    /// loaded (restore, without it, refuses it by this same check).
    static func schemaObjects(on connection: Connection, extensionModulesAllowed: Bool = false) throws -> Check {
        var outcome = try SchemaObjectsCheck.run(on: connection)
        var notes = outcome.applicationFunctions.map(SchemaObjectsCheck.note(for:))
        if extensionModulesAllowed {
            let modules = outcome.problems.filter(SchemaObjectsCheck.isMissingModule)
            outcome.problems.removeAll(where: SchemaObjectsCheck.isMissingModule)
            notes += modules.map { "\(SchemaObjectsCheck.line(for: $0)) (an extension's module: the bundle restores with it loaded)" }
        }
        return Check(
            name: .schemaObjects, status: outcome.problems.isEmpty ? .ok : .failed,
            detail: SchemaObjectsCheck.summary(of: outcome, noted: notes.count),
            problems: outcome.problems.map(SchemaObjectsCheck.line(for:)), notes: notes,
            missingModule: outcome.problems.contains(where: SchemaObjectsCheck.isMissingModule))
    }

    /// The full-text check of every full-text table, each by its own module, inside
    /// `BEGIN … ROLLBACK` on a connection that may write: FTS5's integrity-check (rank 1,
    /// `FTS5IntegrityCheck`) and FTS3's and FTS4's (`FTS4IntegrityCheck`). The summary
    /// names what was checked; "no full-text tables" only when there is none of any kind.
    /// `method`: Steward's parallel check or FTS5's statement, for each FTS5 table.
    static func fullTextIntegrity(on connection: Connection, method: FTS5CheckMethod) throws -> Check {
        let outcome = try FTS5IntegrityCheck(connection: connection, method: method).run()
        let fts4 = try fts4Integrity(on: connection)
        let fts4Problems = fts4.compactMap(\.problem)
        let fts4Failed = fts4.filter { $0.problem != nil }.map(\.table)
        let problems = outcome.problems + fts4Problems
        let summaries = [outcome.tables.isEmpty ? nil : FTS5IntegrityCheck.summary(of: outcome), FTS4IntegrityCheck.summary(of: fts4)]
            .compactMap { $0 }
        return Check(
            name: .ftsSync, status: problems.isEmpty ? .ok : .failed,
            detail: summaries.isEmpty ? "no full-text tables (FTS3, FTS4 or FTS5)" : summaries.joined(separator: "; "),
            problems: problems, notes: outcome.notes + fts4.compactMap(\.note),
            fts5Tables: Set(outcome.tables).sorted(), failedFTS5Tables: Set(outcome.failedTables + fts4Failed).sorted(),
            fts4Tables: fts4.map(\.table))
    }

    /// FTS3's and FTS4's integrity-check of every FTS3 and FTS4 table, each in a
    /// transaction that is rolled back.
    static func fts4Integrity(on connection: Connection) throws -> [FTS4IntegrityCheck.Result] {
        let definitions = try Schema(reading: connection).fts4Tables
        guard !definitions.isEmpty else { return [] }
        defer { connection.rollbackIfNeeded() }
        return try definitions.sorted { $0.name < $1.name }.map { table in
            // A failed statement may have ended the transaction: each check runs in one.
            if connection.isAutocommit { try connection.execute(sql: "BEGIN") }
            return try FTS4IntegrityCheck.check(table, on: connection)
        }
    }
}

extension Check {
    /// The record of an `integrity_check` run with at most `RecordedFailures.integrityLimit`
    /// problems; `connection` only names the tables they concern.
    func recordedIntegrity(tablesIn connection: Connection) throws -> RecordedFailures.Integrity {
        try .init(problems: passed ? [] : problems, tablesIn: connection)
    }
}
