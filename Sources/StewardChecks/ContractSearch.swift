import Foundation
import SQLiteKit

/// How one case of a search contract runs on a database that holds the contract's
/// records: its steps, then its query, turned into an FTS5 expression by the mode's rules
/// and bound as a parameter. `steward verify` runs it on the scratch databases it builds
/// from a migration set (`ContractRunner`); StewardKit on the app's own connection.
package struct ContractSearch {
    /// What a query gave.
    package enum Outcome: Equatable, CustomStringConvertible {
        case keys([Int64])
        case rejected(String)
        case error(String)
        /// A step of the case failed before its query ran: the fixture is broken, and no
        /// expectation is met, not even an expected error.
        case stepFailed(String)

        package var description: String {
            switch self {
            case .keys(let keys): return "keys [\(keys.map(String.init).joined(separator: ", "))]"
            case .rejected(let reason): return "rejected: \(reason)"
            case .error(let reason): return "error: \(reason)"
            case .stepFailed(let reason): return "step failed: \(reason)"
            }
        }

        /// Whether this outcome satisfies an expectation (any query error satisfies an
        /// expected error).
        package func satisfies(_ expected: Outcome) -> Bool {
            switch (self, expected) {
            case (.error, .error): return true
            case (.stepFailed, _): return false
            default: return self == expected
            }
        }
    }

    /// How a case's `begin`, `commit` and `rollback` steps are run: as written, on a
    /// database of Steward's own; as a savepoint, inside a transaction that is not the
    /// case's to end (the app's connection, where everything is rolled back at the end).
    package enum Transactions {
        case plain
        case savepoint(String)
    }

    package let contract: SearchContract
    package let transactions: Transactions

    package init(contract: SearchContract, transactions: Transactions = .plain) {
        self.contract = contract
        self.transactions = transactions
    }

    package static func expectation(of item: SearchContract.Case) -> Outcome {
        if let keys = item.expect { return .keys(keys) }
        if let rejection = item.expectRejection { return .rejected(rejection) }
        return .error("syntax")
    }

    /// The steps of `item`, then its query; a step that fails is the outcome.
    package func outcome(of item: SearchContract.Case, on connection: Connection) throws -> Outcome {
        for (index, step) in (item.steps ?? []).enumerated() {
            do {
                try run(step, on: connection)
            } catch let error as SQLiteError {
                return .stepFailed("step \(index + 1) (\(step.op)), SQLite error \(error.extendedCode)")
            }
        }
        return search(item, on: connection)
    }

    package func insert(_ values: [String: SearchContract.Value], on connection: Connection) throws {
        let columns = values.keys.sorted()
        let sql = "INSERT INTO \(Connection.quote(identifier: contract.table)) ("
            + columns.map(Connection.quote(identifier:)).joined(separator: ", ") + ") VALUES ("
            + columns.map { _ in "?" }.joined(separator: ", ") + ")"
        try connection.execute(sql: sql, bindings: columns.map { values[$0]?.sqliteValue ?? .null })
    }

    package func run(_ step: SearchContract.Step, on connection: Connection) throws {
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
            switch transactions {
            case .plain: try connection.execute(sql: "BEGIN")
            case .savepoint(let name): try connection.execute(sql: "SAVEPOINT \(name)")
            }
        case "commit":
            switch transactions {
            case .plain: try connection.execute(sql: "COMMIT")
            case .savepoint(let name): try connection.execute(sql: "RELEASE \(name)")
            }
        default:
            switch transactions {
            case .plain: try connection.execute(sql: "ROLLBACK")
            case .savepoint(let name): try connection.execute(sql: "ROLLBACK TO \(name); RELEASE \(name)")
            }
        }
    }

    /// The search contract: the text of a query is bound as a parameter, and turned into
    /// an FTS5 expression by the mode's rules before that.
    package func search(_ item: SearchContract.Case, on connection: Connection) -> Outcome {
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

    package enum Expression: Equatable {
        case empty
        case rejected(String)
        case query(String)
    }

    /// The FTS5 expression for user input in a mode, or why none is run.
    package static func expression(for input: String, mode: SearchContract.Mode, maximumLength: Int) -> Expression {
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
