import Foundation
import SQLiteKit
import StewardBase

/// A query-plan contract: the application's hot queries, each with bound placeholder
/// values and what its plan must use, an index by name or no full scan of a table. Kept
/// beside the search contract and read as strictly: an unknown key, a value of the wrong
/// type, a query with both expectations or neither is refused with its JSON path.
///
/// ```json
/// {
///   "version": "ticket-plans/1",
///   "description": "…",
///   "queries": [
///     {"name": "open tickets, oldest first", "sql": "SELECT id FROM ticket WHERE status = ?1 ORDER BY created_at",
///      "bindings": ["open"], "uses_index": "ticket_status"},
///     {"name": "a ticket by id", "sql": "SELECT title FROM ticket WHERE id = ?1", "bindings": [7], "no_full_scan_of": "ticket"}
///   ]
/// }
/// ```
///
/// Checked with `EXPLAIN QUERY PLAN` (https://sqlite.org/eqp.html) on the database the
/// checker is given: what SQLite's planner would do there, with those values bound.
public struct PlanContract: Sendable {
    public enum Expectation: Sendable, Equatable {
        case usesIndex(String)
        case noFullScanOf(String)

        var shown: String {
            switch self {
            case .usesIndex(let index): "uses the index \(index)"
            case .noFullScanOf(let table): "does not scan all of \(table)"
            }
        }
    }

    public struct Query: Sendable {
        public let name: String
        public let sql: String
        public let bindings: [SQLiteValue]
        public let expectation: Expectation
    }

    /// How one query's plan came out.
    public struct Outcome: Codable, Sendable {
        public let name: String
        public let expectation: String
        /// The plan's lines, as EXPLAIN QUERY PLAN words them (names only, never values).
        public let plan: [String]
        public let passed: Bool
        /// Why the query could not be planned (a table or index it names is missing).
        public let error: String?

        public var failure: String {
            if let error { return "query '\(name)' cannot be planned: \(error)" }
            return "query '\(name)' no longer \(expectation); plan: \(plan.joined(separator: "; "))"
        }
    }

    public let path: String
    public let version: String
    public let queries: [Query]

    /// Reads the file at `path`; `badInput` (65) naming the JSON path of what is wrong.
    public init(path: String) throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw StewardError(.notFound, "\(path): cannot read the plan contract")
        }
        do {
            try self.init(path: path, data: data)
        } catch let error as ReadingError {
            throw StewardError(.badInput, "\(path): \(error.message)")
        }
    }

    struct ReadingError: Error {
        let message: String
    }

    init(path: String, data: Data) throws {
        guard let top = try? JSONSerialization.jsonObject(with: data) else {
            throw ReadingError(message: "not JSON")
        }
        let object = try Self.object(top, at: "the top level", allowing: ["version", "description", "queries"])
        self.path = path
        version = try Self.string(object["version"], at: "version")
        if object["description"] != nil { _ = try Self.string(object["description"], at: "description") }
        guard let list = object["queries"] as? [Any], !list.isEmpty else {
            throw ReadingError(message: "queries must be a non-empty array")
        }
        var queries: [Query] = []
        for (index, item) in list.enumerated() {
            let at = "queries[\(index)]"
            let query = try Self.object(item, at: at, allowing: ["name", "sql", "bindings", "uses_index", "no_full_scan_of"])
            let name = try Self.string(query["name"], at: "\(at).name")
            let sql = try Self.string(query["sql"], at: "\(at).sql")
            var bindings: [SQLiteValue] = []
            if let values = query["bindings"] {
                guard let values = values as? [Any] else { throw ReadingError(message: "\(at).bindings must be an array") }
                for (position, value) in values.enumerated() {
                    guard let data = try? JSONSerialization.data(withJSONObject: [value]),
                          let decoded = try? JSONDecoder().decode([Binding].self, from: data).first
                    else { throw ReadingError(message: "\(at).bindings[\(position)] must be a string, a number or null") }
                    bindings.append(decoded.value)
                }
            }
            let expectation: Expectation
            switch (query["uses_index"], query["no_full_scan_of"]) {
            case (let index?, nil): expectation = .usesIndex(try Self.string(index, at: "\(at).uses_index"))
            case (nil, let table?): expectation = .noFullScanOf(try Self.string(table, at: "\(at).no_full_scan_of"))
            default: throw ReadingError(message: "\(at) needs exactly one of uses_index and no_full_scan_of")
            }
            if queries.contains(where: { $0.name == name }) { throw ReadingError(message: "\(at).name: '\(name)' is used twice") }
            queries.append(Query(name: name, sql: sql, bindings: bindings, expectation: expectation))
        }
        self.queries = queries
    }

    private static func object(_ value: Any, at path: String, allowing keys: Set<String>) throws -> [String: Any] {
        guard let object = value as? [String: Any] else { throw ReadingError(message: "\(path) must be an object") }
        if let unknown = object.keys.filter({ !keys.contains($0) }).min() {
            let prefix = path == "the top level" ? "" : path + "."
            throw ReadingError(message: "unknown key \(prefix)\(unknown) (expected one of \(keys.sorted().joined(separator: ", ")))")
        }
        return object
    }

    private static func string(_ value: Any?, at path: String) throws -> String {
        guard let text = value as? String, !text.isEmpty else { throw ReadingError(message: "\(path) must be a non-empty string") }
        return text
    }

    /// A bound value as JSON has it: a whole number stays an integer, true and false are
    /// refused (SQLite has no such type).
    private struct Binding: Decodable {
        let value: SQLiteValue

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                value = .null
            } else if (try? container.decode(Bool.self)) != nil {
                throw ReadingError(message: "true and false are not SQLite values")
            } else if let whole = try? container.decode(Int64.self) {
                value = .integer(whole)
            } else if let real = try? container.decode(Double.self) {
                value = .real(real)
            } else {
                value = .text(try container.decode(String.self))
            }
        }
    }

    // MARK: - Checking

    /// Each query's plan on `connection`, in the file's order.
    public func check(on connection: Connection) -> [Outcome] {
        queries.map { query in
            do {
                var plan: [String] = []
                try connection.forEachRow(sql: "EXPLAIN QUERY PLAN " + query.sql, bindings: query.bindings) { row in
                    plan.append(row.text(at: 3) ?? "")
                }
                return Outcome(name: query.name, expectation: query.expectation.shown, plan: plan,
                               passed: Self.satisfies(plan, query.expectation), error: nil)
            } catch let error as SQLiteError {
                return Outcome(name: query.name, expectation: query.expectation.shown, plan: [], passed: false,
                               error: SQLiteMessage.text(of: error))
            } catch {
                return Outcome(name: query.name, expectation: query.expectation.shown, plan: [], passed: false, error: "\(error)")
            }
        }
    }

    /// Read from the plan's words: `SEARCH t USING INDEX i (…)`, `SCAN t USING COVERING
    /// INDEX i`, `SCAN t` (all of it), `SCAN TABLE t` before SQLite 3.36.
    static func satisfies(_ plan: [String], _ expectation: Expectation) -> Bool {
        let lines = plan.map(SQLScanner.tokens(of:))
        switch expectation {
        case .usesIndex(let index):
            return lines.contains { tokens in
                tokens.indices.contains { $0 + 1 < tokens.count && tokens[$0].isKeyword("INDEX")
                    && tokens[$0 + 1].name?.caseInsensitiveEquals(index) == true }
            }
        case .noFullScanOf(let table):
            return !lines.contains { tokens in
                guard tokens.first?.isKeyword("SCAN") == true else { return false }
                let name = tokens.count > 2 && tokens[1].isKeyword("TABLE") ? tokens[2] : tokens.dropFirst().first
                guard name?.name?.caseInsensitiveEquals(table) == true else { return false }
                return !tokens.contains { $0.isKeyword("INDEX") }
            }
        }
    }
}
