import Foundation
import Testing
@testable import StewardCore
import TestSupport

/// A contract as a JSON object, for tests to change one field at a time.
enum ContractJSON {
    /// A valid contract: the `note` table of `ContractRunnerTests`, one record, one case.
    static func valid() -> [String: Any] {
        [
            "version": "notes/1",
            "table": "note",
            "fts_table": "note_fts",
            "key": "id",
            "legacy_version": 1,
            "max_query_length": 50,
            "records": [["id": 1, "title": "printer jammed"]],
            "cases": [["name": "a", "query": "printer", "expect": [1]]],
        ]
    }

    static func data(_ object: Any) throws -> Data {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    static func decode(_ object: [String: Any]) throws -> SearchContract {
        try JSONDecoder().decode(SearchContract.self, from: data(object))
    }

    /// Changes the first case.
    static func changingCase(_ object: inout [String: Any], _ change: (inout [String: Any]) -> Void) {
        var cases = object["cases"] as? [[String: Any]] ?? []
        change(&cases[0])
        object["cases"] = cases
    }
}

/// Reading and checking contract files: the shipped one, every problem, malformed JSON.
@Suite struct SearchContractTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func write(_ text: String, to name: String = "contract.json") throws -> String {
        let path = directory.file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func refusal(_ text: String) throws -> StewardError {
        let path = try write(text)
        return try #require(throws: StewardError.self) { try SearchContract.load(path: path) }
    }

    // MARK: - The shipped contract

    @Test func theShippedContractLoads() throws {
        let path = Fixtures.exampleMigrations.appendingPathComponent("ticket-search.contract.json").path
        let contract = try SearchContract.load(path: path)
        #expect(contract.version == "ticket-search/1")
        #expect(contract.table == "ticket")
        #expect(contract.ftsTable == "ticket_fts")
        #expect(contract.key == "id")
        #expect(contract.legacyVersion == 1)
        #expect(contract.maxQueryLength == 200)
        #expect(contract.records.count == 10)
        #expect(contract.records[3]["title"] == .text("客户工单搜索"))
        #expect(contract.problem() == nil)

        let byName = Dictionary(uniqueKeysWithValues: contract.cases.map { ($0.name, $0) })
        #expect(byName.count == contract.cases.count)
        #expect(byName["too-long"]?.expectRejection == "too-long")
        #expect(byName["syntax-error-is-an-error"]?.expectError == true)
        #expect(byName["syntax-error-is-an-error"]?.mode == .syntax)
        #expect(byName["prefix"]?.mode == .prefix)
        #expect(byName["case-folding"]?.mode == nil, "literal is the default, applied by the runner")
        #expect(byName["ties-second-page"]?.limit == 2)
        #expect(byName["ties-second-page"]?.offset == 2)
        let rollback = try #require(byName["rollback-restores-results"]?.steps)
        #expect(rollback.map(\.op) == ["begin", "update", "delete", "rollback"])
        #expect(rollback[1].key == 1)
        #expect(rollback[1].values == ["title": .text("Renamed")])
    }

    // MARK: - Problems

    struct Problem: Sendable, CustomTestStringConvertible {
        let message: String
        let change: @Sendable (inout [String: Any]) -> Void
        var testDescription: String { message }
    }

    static let problems: [Problem] = [
        Problem(message: "version is empty") { $0["version"] = "" },
        Problem(message: "table is empty") { $0["table"] = "" },
        Problem(message: "fts_table is empty") { $0["fts_table"] = "" },
        Problem(message: "key is empty") { $0["key"] = "" },
        Problem(message: "legacy_version must be at least 1 (the version at which old databases held records)") { $0["legacy_version"] = 0 },
        Problem(message: "max_query_length must be at least 1") { $0["max_query_length"] = 0 },
        Problem(message: "there are no cases") { $0["cases"] = [[String: Any]]() },
        Problem(message: "case 2 has no name") {
            $0["cases"] = [["name": "a", "query": "x", "expect": [1]], ["name": "", "query": "x", "expect": [1]]]
        },
        Problem(message: "case 'a' appears twice") {
            $0["cases"] = [["name": "a", "query": "x", "expect": [1]], ["name": "a", "query": "y", "expect": [1]]]
        },
        Problem(message: "case 'a' needs exactly one of expect, expect_rejection, expect_error") {
            ContractJSON.changingCase(&$0) { $0["expect"] = nil }
        },
        Problem(message: "case 'a' needs exactly one of expect, expect_rejection, expect_error") {
            ContractJSON.changingCase(&$0) { $0["expect"] = nil; $0["expect_error"] = false }
        },
        Problem(message: "case 'a' needs exactly one of expect, expect_rejection, expect_error") {
            ContractJSON.changingCase(&$0) { $0["expect_error"] = true }
        },
        Problem(message: "case 'a' needs exactly one of expect, expect_rejection, expect_error") {
            ContractJSON.changingCase(&$0) { $0["expect_rejection"] = "too-long" }
        },
        Problem(message: "case 'a': expect_rejection must be 'too-long'") {
            ContractJSON.changingCase(&$0) { $0["expect"] = nil; $0["expect_rejection"] = "empty" }
        },
        Problem(message: "case 'a': limit and offset must not be negative") {
            ContractJSON.changingCase(&$0) { $0["limit"] = -1 }
        },
        Problem(message: "case 'a': limit and offset must not be negative") {
            ContractJSON.changingCase(&$0) { $0["offset"] = -1 }
        },
        Problem(message: "case 'a', step 1: insert needs values") {
            ContractJSON.changingCase(&$0) { $0["steps"] = [["op": "insert"]] }
        },
        Problem(message: "case 'a', step 1: insert needs values") {
            ContractJSON.changingCase(&$0) { $0["steps"] = [["op": "insert", "values": [String: Any]()]] }
        },
        Problem(message: "case 'a', step 2: update needs key and values") {
            ContractJSON.changingCase(&$0) { $0["steps"] = [["op": "begin"], ["op": "update", "values": ["title": "x"]]] }
        },
        Problem(message: "case 'a', step 1: update needs key and values") {
            ContractJSON.changingCase(&$0) { $0["steps"] = [["op": "update", "key": 1]] }
        },
        Problem(message: "case 'a', step 1: delete needs key") {
            ContractJSON.changingCase(&$0) { $0["steps"] = [["op": "delete"]] }
        },
        Problem(message: "case 'a', step 3: unknown op 'truncate' (insert, update, delete, begin, commit, rollback)") {
            ContractJSON.changingCase(&$0) { $0["steps"] = [["op": "begin"], ["op": "commit"], ["op": "truncate"]] }
        },
        Problem(message: "case 'a', step 1: unknown op 'BEGIN' (insert, update, delete, begin, commit, rollback)") {
            ContractJSON.changingCase(&$0) { $0["steps"] = [["op": "BEGIN"]] }
        },
    ]

    @Test(arguments: problems)
    func problemIsNamed(_ problem: Problem) throws {
        var object = ContractJSON.valid()
        problem.change(&object)
        #expect(try ContractJSON.decode(object).problem() == problem.message)
    }

    @Test func aValidContractHasNoProblem() throws {
        var object = ContractJSON.valid()
        ContractJSON.changingCase(&object) {
            $0["steps"] = [
                ["op": "begin"], ["op": "insert", "values": ["id": 2, "title": "x"]],
                ["op": "update", "key": 2, "values": ["title": "y"]], ["op": "delete", "key": 2],
                ["op": "rollback"], ["op": "commit"],
            ]
            $0["limit"] = 0
            $0["offset"] = 0
            $0["expect_error"] = false
        }
        object["legacy_version"] = 1
        object["max_query_length"] = 1
        #expect(try ContractJSON.decode(object).problem() == nil)
    }

    @Test func loadReportsAProblemWithTheFileName() throws {
        var object = ContractJSON.valid()
        object["key"] = ""
        let error = try refusal(String(decoding: try ContractJSON.data(object), as: UTF8.self))
        #expect(error.kind == .badInput)
        #expect(error.message == "malformed contract \(directory.file("contract.json")): key is empty")
    }

    // MARK: - Malformed files

    @Test(arguments: [
        ("{ \"version\": ", "not valid JSON"),
        ("", "not valid JSON"),
        ("[]", "wrong type at the top level"),
        (#"{"version": "x"}"#, "missing 'table' at the top level"),
    ])
    func malformedJSONIsBadInput(_ text: String, _ reason: String) throws {
        let error = try refusal(text)
        #expect(error.kind == .badInput)
        #expect(error.message == "malformed contract \(directory.file("contract.json")): \(reason)")
    }

    struct WrongType: Sendable, CustomTestStringConvertible {
        let path: String
        let reason: String
        let change: @Sendable (inout [String: Any]) -> Void
        var testDescription: String { path }
    }

    static let wrongTypes: [WrongType] = [
        WrongType(path: "legacy_version", reason: "bad value") { $0["legacy_version"] = "one" },
        WrongType(path: "legacy_version", reason: "bad value") { $0["legacy_version"] = -1 },
        WrongType(path: "cases[0]", reason: "missing 'query'") { ContractJSON.changingCase(&$0) { $0["query"] = nil } },
        WrongType(path: "max_query_length", reason: "wrong type") { $0["max_query_length"] = [200] },
        WrongType(path: "records[0].title", reason: "bad value") { $0["records"] = [["id": 1, "title": ["nested"]]] },
        WrongType(path: "cases[0].limit", reason: "wrong type") { ContractJSON.changingCase(&$0) { $0["limit"] = "ten" } },
        WrongType(path: "cases[0].mode", reason: "bad value") { ContractJSON.changingCase(&$0) { $0["mode"] = "fuzzy" } },
        WrongType(path: "cases[0].expect[1]", reason: "wrong type") { ContractJSON.changingCase(&$0) { $0["expect"] = [1, "two"] } },
        WrongType(path: "cases[0].steps[1].key", reason: "wrong type") {
            ContractJSON.changingCase(&$0) { $0["steps"] = [["op": "begin"], ["op": "delete", "key": "3"]] }
        },
    ]

    @Test(arguments: wrongTypes)
    func wrongTypesNameTheFileAndTheJSONPath(_ wrong: WrongType) throws {
        var object = ContractJSON.valid()
        wrong.change(&object)
        let error = try refusal(String(decoding: try ContractJSON.data(object), as: UTF8.self))
        #expect(error.kind == .badInput)
        #expect(error.message == "malformed contract \(directory.file("contract.json")): \(wrong.reason) at \(wrong.path)")
    }

    // Foundation's JSONDecoder gives neither path nor reason for these: the message must
    // not call valid JSON invalid.
    @Test(arguments: [
        (#""legacy_version": 2.5"#),
        (#""max_query_length": 2.5"#),
    ])
    func numbersThatDoNotFitAreNamedAsSuch(_ field: String) throws {
        var text = String(decoding: try ContractJSON.data(ContractJSON.valid()), as: UTF8.self)
        let name = String(field.split(separator: ":")[0])
        let range = try #require(text.range(of: #"\#(name):\s*-?[0-9]+"#, options: .regularExpression))
        text.replaceSubrange(range, with: field)
        let error = try refusal(text)
        #expect(error.kind == .badInput)
        #expect(error.message == "malformed contract \(directory.file("contract.json")): a number is out of range or not a whole number")
    }

    @Test func missingFileIsNotFound() throws {
        let path = directory.file("nope.json")
        let error = try #require(throws: StewardError.self) { try SearchContract.load(path: path) }
        #expect(error == StewardError(.notFound, "\(path): no such contract file"))
    }

    @Test func unreadablePathIsNotFound() throws {
        let error = try #require(throws: StewardError.self) { try SearchContract.load(path: directory.path) }
        #expect(error == StewardError(.notFound, "cannot read the contract \(directory.path)"))
    }

    // MARK: - Values and column names

    @Test func columnNamesAreKeptAsWritten() throws {
        var object = ContractJSON.valid()
        object["records"] = [["id": 1, "created_at": "2024-01-01", "Title_Text": "x", "ownerID": 7]]
        ContractJSON.changingCase(&object) {
            $0["steps"] = [["op": "update", "key": 1, "values": ["updated_at": "2024-02-02", "due_on": NSNull()]]]
        }
        let contract = try ContractJSON.decode(object)
        #expect(contract.records == [["id": .integer(1), "created_at": .text("2024-01-01"), "Title_Text": .text("x"), "ownerID": .integer(7)]])
        #expect(contract.cases[0].steps?[0].values == ["updated_at": .text("2024-02-02"), "due_on": .null])
    }

    @Test(arguments: [
        ("1", SearchContract.Value.integer(1)),
        ("-9223372036854775808", .integer(.min)),
        ("2.5", .real(2.5)),
        ("1e300", .real(1e300)),
        ("\"1\"", .text("1")),
        ("\"\"", .text("")),
        ("null", .null),
    ])
    func valuesDecodeToTheirSQLiteType(_ json: String, _ value: SearchContract.Value) throws {
        let decoded = try JSONDecoder().decode([SearchContract.Value].self, from: Data("[\(json)]".utf8))
        #expect(decoded == [value])
        let encoded = try JSONDecoder().decode([SearchContract.Value].self, from: try JSONEncoder().encode(decoded))
        #expect(encoded == [value], "encoding round-trips")
    }
}
