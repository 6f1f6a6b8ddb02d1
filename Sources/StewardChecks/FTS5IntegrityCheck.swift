import Foundation
import SQLiteKit

/// FTS5's own integrity-check for every FTS5 table of a database: damaged pages in an
/// FTS5 shadow table pass `PRAGMA integrity_check`, and only this finds them
/// (https://sqlite.org/fts5.html, "The 'integrity-check' Command"). Rank 1 (`INSERT INTO t(t, rank) VALUES ('integrity-check', 1)`) also compares an
/// external-content index with its content table (SQLite 3.40).
///
/// The check is an INSERT, so it needs a read-write connection; it writes nothing, and
/// runs inside `BEGIN … ROLLBACK` all the same. `run()` only on a file that is Steward's
/// own: restore's staged file, or backup's snapshot copy. `check(_:rank:on:)` is the one
/// statement migrate and verify run too, each in the transaction it already holds.
package struct FTS5IntegrityCheck {
    package struct Outcome {
        /// The FTS5 tables checked, in name order.
        package let tables: [String]
        /// One line per table whose check failed.
        package let problems: [String]
        /// External-content tables whose content table or view does not exist: their index
        /// was checked on its own (rank 0).
        package let unreachable: [String]
        /// The tables whose check failed, in name order.
        package var failedTables: [String] = []
        /// The tables Steward's digest was asked to check and FTS5's statement checked
        /// instead, each with why.
        package var notes: [String] = []
        /// How each table that passed was checked.
        package var ways: [Path] = []
    }

    package let connection: Connection
    package let method: FTS5CheckMethod

    package init(connection: Connection, method: FTS5CheckMethod = .parallel(workers: 1, open: nil)) {
        self.connection = connection
        self.method = method
    }

    /// How one table was checked, and what a reader of the report should know of it.
    package enum Path: Sendable, Equatable {
        /// By Steward's digest (`FTS5SyncDigest`), on this many workers.
        case digest(workers: Int)
        /// By FTS5's own statement; with a reason when the digest was asked for and cannot
        /// prove the table.
        case statement(reason: String?)
    }

    /// Checks `table` as `check(_:rank:on:)` does, by `method`: rank 1 of an
    /// external-content table, and the default check of a table with its own content
    /// (which compares its content too), go to the digest when asked and when it can prove
    /// the table; anything else, and any table it cannot, to FTS5's statement. A difference
    /// the digest finds is handed to FTS5's statement, whose error (or pass) stands: the
    /// digest never fails a table FTS5 passes. Throws as the statement throws.
    @discardableResult
    package static func check(_ table: FTS5Definition, rank: Int?, on connection: Connection, method: FTS5CheckMethod) throws -> Path {
        let comparesContent = rank == 1 || (rank == nil && table.contentMode == .internal)
        guard method.kind == .parallel, comparesContent else {
            try check(table.name, rank: rank, on: connection)
            // A contentless table has no text to compare: asked for the parallel check, the
            // report says why FTS5's statement checked it.
            let reason = method.kind == .parallel && table.contentMode == .contentless ? FTS5TableLayout(table).unsupported : nil
            return .statement(reason: reason)
        }
        let digest = FTS5SyncDigest(table, on: connection, workers: method.workers, open: method.open)
        switch try digest.run() {
        case .passed:
            return .digest(workers: method.open == nil ? 1 : max(1, method.workers))
        case .unsupported(let reason):
            try check(table.name, rank: rank, on: connection)
            return .statement(reason: reason)
        case .small:
            try check(table.name, rank: rank, on: connection)
            return .statement(reason: nil)
        case .differs(let what):
            try check(table.name, rank: rank, on: connection)
            return .statement(reason: "the parallel check found that \(what); FTS5's own check passes the table, and its verdict stands")
        }
    }

    /// FTS5's integrity-check of one table of `main`. With `rank` 1 it also compares an
    /// external-content index with its content table (SQLite 3.40) and fails with
    /// SQLITE_CORRUPT_VTAB when they differ; without, only the index itself is checked.
    /// The statement is an INSERT that writes nothing.
    package static func check(_ table: String, rank: Int?, on connection: Connection) throws {
        let name = Connection.quote(identifier: table)
        let sql = rank.map { "INSERT INTO main.\(name)(\(name), rank) VALUES ('integrity-check', \($0))" }
            ?? "INSERT INTO main.\(name)(\(name)) VALUES ('integrity-check')"
        try connection.execute(sql: sql)
    }

    /// Runs the check. Throws for an interrupt and when the schema cannot be read.
    package func run() throws -> Outcome {
        let definitions = try Schema(reading: connection).fts5Tables.sorted { $0.name < $1.name }
        guard !definitions.isEmpty else { return Outcome(tables: [], problems: [], unreachable: []) }
        guard SQLiteLibrary.canCreateFTS5(on: connection) else {
            return Outcome(tables: definitions.map(\.name), problems: ["FTS5 is not available in SQLite \(SQLiteLibrary.version)"], unreachable: [])
        }
        var problems: [String] = []
        var unreachable: [String] = []
        var failed: [String] = []
        var notes: [String] = []
        var ways: [Path] = []
        defer { connection.rollbackIfNeeded() }
        for table in definitions {
            var rank = 1
            if table.contentMode == .external, let content = table.contentTable, !(try exists(content)) {
                rank = 0
                unreachable.append(table.name)
            }
            do {
                // A failed statement may have ended the transaction: each check runs in one.
                if connection.isAutocommit { try connection.execute(sql: "BEGIN") }
                let way = try Self.check(table, rank: rank, on: connection, method: method)
                ways.append(way)
                if case .statement(let reason?) = way {
                    notes.append(Self.statementNote(table: table.name, reason: reason))
                }
            } catch let error as SQLiteError where !error.isInterrupt {
                // Rank 1 failed: if the index is sound on its own (rank 0), it is drift from
                // the content table, not damage to the file.
                if error.isCorrupt, table.contentMode == .external, rank == 1, Self.passesOnItsOwn(table.name, on: connection) {
                    problems.append(Self.driftLine(table: table.name, content: table.contentTable ?? "", error: error))
                } else {
                    problems.append(Self.failureLine(table: table, error: error))
                }
                failed.append(table.name)
            }
        }
        return Outcome(tables: definitions.map(\.name), problems: problems, unreachable: unreachable, failedTables: failed, notes: notes, ways: ways)
    }

    /// How the tables that passed were proved, for a check's summary: " (Steward's
    /// parallel check, N workers)" when the digest proved any, else nothing.
    package static func howChecked(_ ways: [Path]) -> String {
        let workers = ways.compactMap { way -> Int? in
            if case .digest(let workers) = way { return workers }
            return nil
        }
        guard let most = workers.max() else { return "" }
        let all = workers.count == ways.count ? "" : " for \(workers.count) of \(ways.count) tables"
        return " (Steward's parallel check\(all), \(most) worker\(most == 1 ? "" : "s"))"
    }

    /// A table the digest cannot prove, checked by FTS5's statement instead: which, and why
    /// (a fact of its declaration, never of its rows).
    package static func statementNote(table: String, reason: String) -> String {
        "\(table): checked by FTS5's own integrity-check, not Steward's parallel check: \(reason)"
    }

    /// Whether the default check (rank 0: the index's own consistency) passes.
    package static func passesOnItsOwn(_ table: String, on connection: Connection) -> Bool {
        if connection.isAutocommit { try? connection.execute(sql: "BEGIN") }
        return (try? check(table, rank: nil, on: connection)) != nil
    }

    /// An external-content index out of step with its content table: worded as what it
    /// is, with the remedy (SQLite's message alone reads like a damaged file).
    package static func driftLine(table: String, content: String, error: SQLiteError) -> String {
        let name = Connection.quote(identifier: table)
        return "\(table): the index is out of step with its content table \(content) (drift, not damage to the file; SQLite error \(error.extendedCode)): "
            + "rebuild it with INSERT INTO \(name)(\(name)) VALUES('rebuild'), or with '-- steward: rebuild-fts \(table)' in the migration that changes \(content)"
    }

    /// A damaged index, or a check that could not run (a table this SQLite cannot open).
    /// FTS5's messages name the table and the damage, never a row.
    package static func failureLine(table: FTS5Definition, error: SQLiteError) -> String {
        let what = error.isCorrupt ? "the index is damaged" : "the check could not run"
        return "\(table.name): \(what) (\(NewerSQLite.explained(error, tokenizer: table.options["tokenize"])), SQLite error \(error.extendedCode))"
    }

    private func exists(_ name: String) throws -> Bool {
        try connection.integer(
            sql: "SELECT count(*) FROM main.sqlite_schema WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE",
            bindings: [.text(name)]) > 0
    }

    /// The outcome in one line.
    package static func summary(of outcome: Outcome) -> String {
        guard !outcome.tables.isEmpty else { return "no FTS5 tables" }
        let count = outcome.tables.count
        var text = outcome.problems.isEmpty
            ? "FTS5 integrity-check (rank 1) passed for \(count) table\(count == 1 ? "" : "s"): \(outcome.tables.joined(separator: ", "))" + howChecked(outcome.ways)
            : "\(outcome.problems.count) of \(count) FTS5 table\(count == 1 ? "" : "s") failed the FTS5 integrity-check"
        if !outcome.unreachable.isEmpty {
            text += "; content table missing, index checked on its own: \(outcome.unreachable.joined(separator: ", "))"
        }
        return text
    }
}

/// How FTS5 tables are checked: by Steward's parallel digest (`FTS5SyncDigest`, the
/// default) or by FTS5's own statement (`--fts-check sqlite`).
package struct FTS5CheckMethod: Sendable {
    package typealias Kind = FTS5CheckKind

    package let kind: Kind
    /// How many workers the digest may use (each with its own connection from `open`).
    package let workers: Int
    /// Opens another read connection to the database being checked, as the caller sees it;
    /// nil when only the caller's connection may be used (a transaction's changes).
    package let open: (@Sendable () throws -> Connection)?

    package static let sqlite = FTS5CheckMethod(kind: .sqlite, workers: 1, open: nil)

    package static func parallel(workers: Int, open: (@Sendable () throws -> Connection)?) -> FTS5CheckMethod {
        FTS5CheckMethod(kind: .parallel, workers: workers, open: open)
    }

    /// The number of cores: the default number of workers.
    package static var cores: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }
}

/// Which check proves FTS5 tables: Steward's parallel digest, or FTS5's own statement
/// (`--fts-check`).
public enum FTS5CheckKind: String, Sendable, CaseIterable, Codable {
    case parallel, sqlite
}
