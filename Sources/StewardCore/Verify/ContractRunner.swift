import Foundation
import SQLiteKit
import StewardBase

/// Runs a search contract on two scratch databases built from a migration set:
/// **fresh** (every migration, then the records) and **migrated** (the records inserted
/// at `legacy_version`, then the remaining migrations). The set is read in its runner's
/// layout by the reader `migrate` uses (`DialectSet`), and each file's up part is applied
/// as plain SQL, in its own transaction, the way that runner applies it, without
/// Steward's automatic rebuilds, so that a set that relies on them is caught.
struct ContractRunner {
    /// What a query gave.
    enum Outcome: Equatable, CustomStringConvertible {
        case keys([Int64])
        case rejected(String)
        case error(String)
        /// A step of the case failed before its query ran: the fixture is broken, and no
        /// expectation is met, not even an expected error.
        case stepFailed(String)

        var description: String {
            switch self {
            case .keys(let keys): return "keys [\(keys.map(String.init).joined(separator: ", "))]"
            case .rejected(let reason): return "rejected: \(reason)"
            case .error(let reason): return "error: \(reason)"
            case .stepFailed(let reason): return "step failed: \(reason)"
            }
        }

        /// Whether this outcome satisfies an expectation (any query error satisfies an
        /// expected error).
        func satisfies(_ expected: Outcome) -> Bool {
            switch (self, expected) {
            case (.error, .error): return true
            case (.stepFailed, _): return false
            default: return self == expected
            }
        }
    }

    let contract: SearchContract
    let set: DialectSet
    let cancellation: Cancellation

    init(contract: SearchContract, set: DialectSet, cancellation: Cancellation) {
        self.contract = contract
        self.set = set
        self.cancellation = cancellation
    }

    /// Builds both databases and runs every case on each.
    func run() throws -> [VerifyReport.ContractCase] {
        let scripts = try MigrationScript.scripts(for: set)
        let fresh = try build(scripts: scripts, recordsAt: nil)
        let migrated = try build(scripts: scripts, recordsAt: contract.legacyVersion)
        return try contract.cases.map { item in
            let expected = Self.expectation(of: item)
            let freshOutcome = try outcome(of: item, on: fresh)
            let migratedOutcome = try outcome(of: item, on: migrated)
            let freshMatches = freshOutcome.satisfies(expected)
            let migratedMatches = migratedOutcome.satisfies(expected)
            return VerifyReport.ContractCase(
                name: item.name, passed: freshMatches && migratedMatches,
                agree: freshOutcome == migratedOutcome, freshMatches: freshMatches, migratedMatches: migratedMatches,
                expected: expected.description, fresh: freshOutcome.description, migrated: migratedOutcome.description)
        }
    }

    static func expectation(of item: SearchContract.Case) -> Outcome {
        if let keys = item.expect { return .keys(keys) }
        if let rejection = item.expectRejection { return .rejected(rejection) }
        return .error("syntax")
    }

    // MARK: - Building

    /// An in-memory database with the migrations applied and the records inserted, either
    /// after every migration (`recordsAt` nil) or once the version reaches `recordsAt`.
    private func build(scripts: [MigrationScript], recordsAt legacyVersion: VersionKey?) throws -> Connection {
        let connection = try Connection.inMemory()
        let rule = LedgerPlan.rule(for: set.migrations)
        var inserted = false
        // `scripts` has one script per migration of the set, in its order.
        for (index, (script, migration)) in zip(scripts, set.migrations).enumerated() {
            try connection.transaction(.immediate) {
                try script.apply(on: connection, cancellation: cancellation)
                try connection.setUserVersion(LedgerPlan.userVersion(for: Array(set.migrations[...index]), rule: rule))
            }
            if let legacyVersion, !inserted, migration.version >= legacyVersion {
                try insertRecords(on: connection, at: "legacy_version \(legacyVersion)")
                inserted = true
            }
        }
        if !inserted {
            try insertRecords(on: connection, at: "the newest version")
        }
        let ftsExists = try connection.integer(
            sql: "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE",
            bindings: [.text(contract.ftsTable)])
        guard ftsExists == 1 else {
            throw StewardError(.badInput, "the contract's fts_table '\(contract.ftsTable)' does not exist after the migrations")
        }
        return connection
    }

    private func insertRecords(on connection: Connection, at moment: String) throws {
        do {
            try connection.transaction(.immediate) {
                for record in contract.records {
                    try insert(record, on: connection)
                }
            }
        } catch let error as SQLiteError {
            throw StewardError(
                .badInput,
                "the contract's records cannot be inserted into '\(contract.table)' at \(moment): \(error.shownMessage)")
        }
    }

    private func insert(_ values: [String: SearchContract.Value], on connection: Connection) throws {
        let columns = values.keys.sorted()
        let sql = "INSERT INTO \(Connection.quote(identifier: contract.table)) ("
            + columns.map(Connection.quote(identifier:)).joined(separator: ", ") + ") VALUES ("
            + columns.map { _ in "?" }.joined(separator: ", ") + ")"
        try connection.execute(sql: sql, bindings: columns.map { values[$0]?.sqliteValue ?? .null })
    }

    // MARK: - Cases

    /// Runs a case on a private copy of `template`, so that cases cannot affect each other.
    private func outcome(of item: SearchContract.Case, on template: Connection) throws -> Outcome {
        if cancellation.isCancelled {
            throw StewardError.interrupted(by: cancellation)
        }
        let connection = try Connection.inMemory()
        try template.backup(to: connection)
        for (index, step) in (item.steps ?? []).enumerated() {
            do {
                try run(step, on: connection)
            } catch let error as SQLiteError {
                return .stepFailed("step \(index + 1) (\(step.op)), SQLite error \(error.extendedCode)")
            }
        }
        return search(item, on: connection)
    }

    private func run(_ step: SearchContract.Step, on connection: Connection) throws {
        let table = Connection.quote(identifier: contract.table)
        let key = Connection.quote(identifier: contract.key)
        switch step.op {
        case "insert":
            try insert(step.values ?? [:], on: connection)
        case "update":
            let values = step.values ?? [:]
            let columns = values.keys.sorted()
            let assignments = columns.map { "\(Connection.quote(identifier: $0)) = ?" }.joined(separator: ", ")
            try connection.execute(
                sql: "UPDATE \(table) SET \(assignments) WHERE \(key) = ?",
                bindings: columns.map { values[$0]?.sqliteValue ?? .null } + [.integer(step.key ?? 0)])
        case "delete":
            try connection.execute(sql: "DELETE FROM \(table) WHERE \(key) = ?", bindings: [.integer(step.key ?? 0)])
        case "begin":
            try connection.execute(sql: "BEGIN")
        case "commit":
            try connection.execute(sql: "COMMIT")
        default:
            try connection.execute(sql: "ROLLBACK")
        }
    }

    /// The search contract: the text of a query is bound as a parameter, and turned into
    /// an FTS5 expression by the mode's rules before that.
    private func search(_ item: SearchContract.Case, on connection: Connection) -> Outcome {
        let expression: String
        switch Self.expression(for: item.query, mode: item.mode ?? .literal, maximumLength: contract.maxQueryLength) {
        case .empty:
            return .keys([])
        case .rejected(let reason):
            return .rejected(reason)
        case .query(let text):
            expression = text
        }
        let fts = Connection.quote(identifier: contract.ftsTable)
        let table = Connection.quote(identifier: contract.table)
        let key = Connection.quote(identifier: contract.key)
        let sql = """
            SELECT c.\(key) FROM \(fts) JOIN \(table) AS c ON c.\(key) = \(fts).rowid
            WHERE \(fts) MATCH ? ORDER BY \(fts).rank, c.\(key) LIMIT ? OFFSET ?
            """
        do {
            let rows = try connection.rows(
                sql: sql,
                bindings: [.text(expression), .integer(Int64(item.limit ?? -1)), .integer(Int64(item.offset ?? 0))])
            return .keys(rows.compactMap { $0.first?.integerValue })
        } catch let error as SQLiteError {
            // FTS5 reports a bad query as SQLITE_ERROR: never zero results.
            return .error(error.code == .error ? "syntax" : "SQLite error \(error.extendedCode)")
        } catch {
            return .error(SQLiteMessage.text(of: error))
        }
    }

    enum Expression: Equatable {
        case empty
        case rejected(String)
        case query(String)
    }

    /// The FTS5 expression for user input in a mode, or why none is run.
    static func expression(for input: String, mode: SearchContract.Mode, maximumLength: Int) -> Expression {
        if input.count > maximumLength { return .rejected("too-long") }
        let trimmed = input.trimmingWhitespaceAndNewlines()
        if trimmed.isEmpty { return .empty }
        switch mode {
        case .syntax:
            return .query(input)
        case .literal:
            return .query("\"" + trimmed.replacingOccurrences(of: "\"", with: "\"\"") + "\"")
        case .prefix:
            return .query("\"" + trimmed.replacingOccurrences(of: "\"", with: "\"\"") + "\"*")
        }
    }
}
