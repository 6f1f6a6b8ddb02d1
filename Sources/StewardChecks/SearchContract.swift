import Foundation
import SQLiteKit
import StewardBase

/// A search-contract fixture: records, and cases that say what searching them must
/// return (man/steward-verify.1, DESCRIPTION). Read from JSON with snake_case keys.
public struct SearchContract: Codable, Sendable {
    /// A JSON scalar used as a column value.
    public enum Value: Codable, Sendable, Equatable {
        case null, integer(Int64), real(Double), text(String)

        public init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() { self = .null; return }
            if let integer = try? container.decode(Int64.self) { self = .integer(integer); return }
            if let real = try? container.decode(Double.self) { self = .real(real); return }
            if let text = try? container.decode(String.self) { self = .text(text); return }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected a string, number or null")
        }

        public func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .integer(let value): try container.encode(value)
            case .real(let value): try container.encode(value)
            case .text(let value): try container.encode(value)
            }
        }

        package var sqliteValue: SQLiteValue {
            switch self {
            case .null: return .null
            case .integer(let value): return .integer(value)
            case .real(let value): return .real(value)
            case .text(let value): return .text(value)
            }
        }
    }

    public enum Mode: String, Codable, Sendable, CaseIterable {
        /// Trim, double every inner `"`, wrap in `"…"`: a phrase, whatever the input holds.
        case literal
        /// A literal phrase whose last token is a prefix (`"…"*`).
        case prefix
        /// Raw FTS5 query syntax; a syntax error is an error, never zero results.
        case syntax
    }

    public struct Step: Codable, Sendable {
        /// `insert`, `update`, `delete`, `begin`, `commit` or `rollback`.
        public let op: String
        /// The key of the row to update or delete.
        public let key: Int64?
        /// Column values to insert or set.
        public let values: [String: Value]?

        package enum CodingKeys: String, CodingKey, CaseIterable {
            case op, key, values
        }

        public init(from decoder: Decoder) throws {
            let container = try SearchContract.container(of: decoder, allowing: CodingKeys.self)
            op = try container.decode(String.self, forKey: .op)
            key = try container.wholeNumber(forKey: .key)
            values = try container.decodeIfPresent([String: Value].self, forKey: .values)
        }
    }

    public struct Case: Codable, Sendable {
        public let name: String
        public let steps: [Step]?
        public let query: String
        public let mode: Mode?
        public let limit: Int?
        public let offset: Int?
        /// The keys expected, in order (`ORDER BY rank, key`).
        public let expect: [Int64]?
        /// The policy rejection expected instead of results: `too-long`.
        public let expectRejection: String?
        /// Whether an error is expected instead of results (a syntax error).
        public let expectError: Bool?

        package enum CodingKeys: String, CodingKey, CaseIterable {
            case name, steps, query, mode, limit, offset, expect
            case expectRejection = "expect_rejection"
            case expectError = "expect_error"
        }

        public init(from decoder: Decoder) throws {
            let container = try SearchContract.container(of: decoder, allowing: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            steps = try container.decodeIfPresent([Step].self, forKey: .steps)
            query = try container.decode(String.self, forKey: .query)
            mode = try container.choice(Mode.self, forKey: .mode)
            limit = try container.wholeNumber(forKey: .limit).map { Int($0) }
            offset = try container.wholeNumber(forKey: .offset).map { Int($0) }
            expect = try container.wholeNumbers(forKey: .expect)
            expectRejection = try container.decodeIfPresent(String.self, forKey: .expectRejection)
            expectError = try container.decodeIfPresent(Bool.self, forKey: .expectError)
        }
    }

    public let version: String
    public let description: String?
    public let table: String
    public let ftsTable: String
    public let key: String
    /// The version at which old databases hold records, before search was added, as the
    /// set's layout orders its versions: a number (`1`, `20240101120000`) or a version
    /// as text (Flyway's `"1.1"`).
    public let legacyVersion: VersionKey
    public let maxQueryLength: Int
    public let records: [[String: Value]]
    public let cases: [Case]

    // Explicit keys: a key strategy would also rewrite the column names in records.
    package enum CodingKeys: String, CodingKey, CaseIterable {
        case version, description, table, key, records, cases
        case ftsTable = "fts_table"
        case legacyVersion = "legacy_version"
        case maxQueryLength = "max_query_length"
    }

    public init(from decoder: Decoder) throws {
        let container = try SearchContract.container(of: decoder, allowing: CodingKeys.self)
        version = try container.decode(String.self, forKey: .version)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        table = try container.decode(String.self, forKey: .table)
        ftsTable = try container.decode(String.self, forKey: .ftsTable)
        key = try container.decode(String.self, forKey: .key)
        legacyVersion = try Self.decodeVersion(container, forKey: .legacyVersion)
        guard let maxQueryLength = try container.wholeNumber(forKey: .maxQueryLength) else {
            throw DecodingError.keyNotFound(CodingKeys.maxQueryLength, .init(codingPath: container.codingPath, debugDescription: ""))
        }
        self.maxQueryLength = Int(maxQueryLength)
        records = try container.decode([[String: Value]].self, forKey: .records)
        cases = try container.decode([Case].self, forKey: .cases)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encodeIfPresent(description, forKey: .description)
        try container.encode(table, forKey: .table)
        try container.encode(ftsTable, forKey: .ftsTable)
        try container.encode(key, forKey: .key)
        if let number = legacyVersion.integer {
            try container.encode(number, forKey: .legacyVersion)
        } else {
            try container.encode(legacyVersion.description, forKey: .legacyVersion)
        }
        try container.encode(maxQueryLength, forKey: .maxQueryLength)
        try container.encode(records, forKey: .records)
        try container.encode(cases, forKey: .cases)
    }

    /// `legacy_version`: a whole number, or a version as text in any layout's syntax
    /// (digits, with `.` or `_` between groups).
    private static func decodeVersion(_ container: KeyedDecodingContainer<CodingKeys>, forKey key: CodingKeys) throws -> VersionKey {
        let rule = " (the version at which old databases held records)"
        if let text = try? container.decode(String.self, forKey: key) {
            guard let version = VersionKey(text, dotted: true) else {
                throw ReadingError(message: "bad value at \(jsonPath(container.codingPath + [key])): '\(shown(text))' is not a version"
                    + " (expected a whole number, or digits with '.' or '_' between them, such as \"1.1\")")
            }
            return version
        }
        guard let number = try container.wholeNumber(forKey: key, minimum: 1, rule: rule) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: container.codingPath, debugDescription: ""))
        }
        return VersionKey(number)
    }

    /// Reads and checks a contract file. Throws `.notFound` or `.badInput` naming the file.
    public static func load(path: String) throws -> SearchContract {
        guard let data = Paths.contents(of: path) else {
            if Paths.exists(path) {
                throw StewardError(.notFound, "cannot read the contract \(path)")
            }
            throw StewardError(.notFound, "\(path): no such contract file")
        }
        let decoder = JSONDecoder()
        let contract: SearchContract
        do {
            contract = try decoder.decode(SearchContract.self, from: data)
        } catch let error as ReadingError {
            throw StewardError(.badInput, "malformed contract \(path): \(error.message)")
        } catch let error as DecodingError {
            throw StewardError(.badInput, "malformed contract \(path): \(describe(error, in: data))")
        } catch {
            throw StewardError(.badInput, "malformed contract \(path): \(error.localizedDescription)")
        }
        if let problem = contract.problem() {
            throw StewardError(.badInput, "malformed contract \(path): \(problem)")
        }
        return contract
    }

    /// What is wrong with a decoded contract, or nil.
    package func problem() -> String? {
        if version.isEmpty { return "version is empty" }
        for (field, value) in [("table", table), ("fts_table", ftsTable), ("key", key)] where value.isEmpty {
            return "\(field) is empty"
        }
        // Migration versions start at 1: at version 0 the table does not exist yet.
        if legacyVersion == VersionKey(0) { return "legacy_version must be at least 1 (the version at which old databases held records)" }
        if maxQueryLength < 1 { return "max_query_length must be at least 1" }
        if cases.isEmpty { return "there are no cases" }
        var names = Set<String>()
        for (index, item) in cases.enumerated() {
            let label = item.name.isEmpty ? "case \(index + 1)" : "case '\(item.name)'"
            if item.name.isEmpty { return "\(label) has no name" }
            if !names.insert(item.name).inserted { return "\(label) appears twice" }
            let expectations = [item.expect != nil, item.expectRejection != nil, item.expectError == true]
            if expectations.filter({ $0 }).count != 1 {
                return "\(label) needs exactly one of expect, expect_rejection, expect_error"
            }
            if let rejection = item.expectRejection, rejection != "too-long" {
                return "\(label): expect_rejection must be 'too-long'"
            }
            if (item.limit ?? 0) < 0 || (item.offset ?? 0) < 0 { return "\(label): limit and offset must not be negative" }
            for (number, step) in (item.steps ?? []).enumerated() {
                let where_ = "\(label), step \(number + 1)"
                switch step.op {
                case "insert":
                    if (step.values ?? [:]).isEmpty { return "\(where_): insert needs values" }
                case "update":
                    if step.key == nil || (step.values ?? [:]).isEmpty { return "\(where_): update needs key and values" }
                case "delete":
                    if step.key == nil { return "\(where_): delete needs key" }
                case "begin", "commit", "rollback":
                    break
                default:
                    return "\(where_): unknown op '\(step.op)' (insert, update, delete, begin, commit, rollback)"
                }
            }
        }
        return nil
    }

    private static func describe(_ error: DecodingError, in data: Data) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "missing '\(key.stringValue)' at \(jsonPath(context.codingPath))"
        case .typeMismatch(let type, let context):
            return "wrong type at \(jsonPath(context.codingPath)) (expected \(typeName(type)))"
        case .valueNotFound(let type, let context):
            return "wrong type at \(jsonPath(context.codingPath)) (expected \(typeName(type)), not null)"
        case .dataCorrupted(let context) where !context.codingPath.isEmpty:
            // The one value decoded by hand that reports this: a record's or step's value.
            return "bad value at \(jsonPath(context.codingPath)) (expected a string, number or null)"
        case .dataCorrupted:
            let parses = (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil
            return parses ? "a number is out of range or not a whole number" : "not valid JSON"
        @unknown default:
            return "cannot be read"
        }
    }
}
