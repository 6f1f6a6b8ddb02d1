import Foundation
import SQLiteKit

/// The FTS3/FTS4 module's own integrity-check of an FTS3 or FTS4 table
/// (https://sqlite.org/fts3.html, "The integrity-check command"): `INSERT INTO t(t)
/// VALUES('integrity-check')` reads every segment of the index and compares a checksum of
/// it with one of the text, tokenized again; it fails with SQLITE_CORRUPT_VTAB when they
/// differ and SQLITE_CORRUPT when a segment cannot be read. Damaged segments pass
/// `PRAGMA integrity_check`, which does not look inside virtual tables.
///
/// The text is read through the table's `zReadExprlist` (fts3_write.c, 3.40
/// `fts3IntegrityCheck`: `SELECT %s` of it): the `%_content` shadow table, or for an
/// external-content table (`content=t`) the content table itself, so that on 3.40 the
/// check also finds an index that drifted from its content table. A contentless table
/// (`content=''`), or one whose content table is missing, has no text to read (the
/// check stops with SQLITE_ERROR): its index is read in full through `fts4aux` instead,
/// which finds damage but cannot find drift, and the report says so.
///
/// The check is an INSERT that writes nothing; callers run it inside the transaction
/// they hold (`BEGIN … ROLLBACK`), on a connection that may write.
enum FTS4IntegrityCheck {
    struct Result: Sendable, Equatable {
        let table: String
        /// Why the table fails; nil when it passed.
        let problem: String?
        /// How it was checked, when not by the module's integrity-check.
        let note: String?
        /// Whether the index is sound but out of step with its content table.
        var drift = false
    }

    /// Checks every FTS3 and FTS4 table of `definitions`, in name order.
    static func run(_ definitions: [FTS4Definition], on connection: Connection) throws -> [Result] {
        try definitions.sorted { $0.name < $1.name }.map { try check($0, on: connection) }
    }

    /// Checks one table. Throws for an interrupt, and SQLITE_FULL (a fixed-size image the
    /// check would grow: the caller runs it again elsewhere); every other SQLite error is
    /// the table's result.
    static func check(_ table: FTS4Definition, on connection: Connection) throws -> Result {
        var unreadable: String?
        if table.contentMode == .contentless {
            unreadable = "contentless (content=''): FTS4's integrity-check needs the text, which it does not keep"
        } else if let content = table.contentTable, !(try exists(content, on: connection)) {
            unreadable = "its content table \(content) does not exist: FTS4's integrity-check has no text to read"
        }
        if let unreadable {
            do {
                try walkIndex(of: table, on: connection)
                return Result(table: table.name, problem: nil,
                              note: "\(table.name): \(unreadable); every term of its index was read instead (damage shows, drift cannot)")
            } catch let error as SQLiteError where !error.isInterrupt && error.code != .full {
                return Result(table: table.name, problem: problem(error, table: table, walked: true), note: nil)
            }
        }
        let name = Connection.quote(identifier: table.name)
        do {
            try connection.execute(sql: "INSERT INTO main.\(name)(\(name)) VALUES ('integrity-check')")
            return Result(table: table.name, problem: nil, note: nil)
        } catch let error as SQLiteError where !error.isInterrupt && error.code != .full {
            return Result(table: table.name, problem: problem(error, table: table, walked: false), note: nil,
                          drift: isDrift(error, table: table))
        }
    }

    /// The line for a failed table: names, codes and the module's own words (which name
    /// no row), never a row.
    static func problem(_ error: SQLiteError, table: FTS4Definition, walked: Bool) -> String {
        let code = "SQLite error \(error.extendedCode)"
        if error.message.contains("no such module") {
            return "\(table.name): the \(table.module.rawValue) module is not available in SQLite \(SQLiteLibrary.version) (\(code))"
        }
        guard error.isCorrupt else {
            return "\(table.name): the check could not run (\(error.message), \(code))"
        }
        if !walked, isDrift(error, table: table), let content = table.contentTable {
            // The index and the text it should hold differ: the file is sound.
            return "\(table.name): the index is out of step with its content table \(content) (drift, not damage to the file; "
                + "\(code)): rebuild it with INSERT INTO \(Connection.quote(identifier: table.name))(\(Connection.quote(identifier: table.name))) VALUES('rebuild')"
        }
        return "\(table.name): the index is damaged (\(error.message), \(code))"
    }

    /// SQLITE_CORRUPT_VTAB from an external-content table: the checksums of the index and
    /// of its content table's text differ (a damaged segment that cannot be read is
    /// SQLITE_CORRUPT).
    static func isDrift(_ error: SQLiteError, table: FTS4Definition) -> Bool {
        error.extendedCode == .corruptVirtualTable && table.contentMode == .external
    }

    /// Reads every term of every segment through a temporary `fts4aux` table.
    static func walkIndex(of table: FTS4Definition, on connection: Connection) throws {
        let aux = Connection.quote(identifier: "steward_fts4aux_\(String(format: "%08x", UInt32.random(in: .min ... .max)))")
        try connection.execute(sql: "CREATE VIRTUAL TABLE temp.\(aux) USING fts4aux(main, \(Connection.quote(identifier: table.name)))")
        defer { try? connection.execute(sql: "DROP TABLE temp.\(aux)") }
        _ = try connection.integer(sql: "SELECT count(*) + total(documents) + total(occurrences) FROM temp.\(aux)")
    }

    private static func exists(_ name: String, on connection: Connection) throws -> Bool {
        try connection.integer(
            sql: "SELECT count(*) FROM main.sqlite_schema WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE",
            bindings: [.text(name)]) > 0
    }

    /// The results in one line.
    static func summary(of results: [Result]) -> String? {
        guard !results.isEmpty else { return nil }
        let failed = results.filter { $0.problem != nil }.count
        let count = results.count
        return failed == 0
            ? "FTS3/FTS4 integrity-check passed for \(count) table\(count == 1 ? "" : "s"): \(results.map(\.table).joined(separator: ", "))"
            : "\(failed) of \(count) FTS3/FTS4 table\(count == 1 ? "" : "s") failed the FTS3/FTS4 integrity-check"
    }
}
