import Foundation
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

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
        Problem(message: "legacy_version must be at least 1 (the version at which old databases held records)") { $0["legacy_version"] = "0" },
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
        ("[]", "wrong type at the top level (expected an object)"),
        (#"{"version": "x"}"#, "missing 'table' at the top level"),
    ])
    func malformedJSONIsBadInput(_ text: String, _ reason: String) throws {
        let error = try refusal(text)
        #expect(error.kind == .badInput)
        #expect(error.message == "malformed contract \(directory.file("contract.json")): \(reason)")
    }

    struct WrongType: Sendable, CustomTestStringConvertible {
        /// What follows "malformed contract PATH: ".
        let message: String
        let change: @Sendable (inout [String: Any]) -> Void
        var testDescription: String { message }
    }

    static let wrongTypes: [WrongType] = [
        WrongType(message: "bad value at legacy_version: 'one' is not a version (expected a whole number, or digits with '.' or '_' between them, such as \"1.1\")") {
            $0["legacy_version"] = "one"
        },
        WrongType(message: "bad number at legacy_version: -1 is below 1 (the version at which old databases held records)") { $0["legacy_version"] = -1 },
        WrongType(message: "bad number at legacy_version: 0 is below 1 (the version at which old databases held records)") { $0["legacy_version"] = 0 },
        WrongType(message: "missing 'query' at cases[0]") { ContractJSON.changingCase(&$0) { $0["query"] = nil } },
        WrongType(message: "wrong type at max_query_length (expected a whole number)") { $0["max_query_length"] = [200] },
        WrongType(message: "bad value at records[0].title (expected a string, number or null)") { $0["records"] = [["id": 1, "title": ["nested"]]] },
        WrongType(message: "wrong type at cases[0].limit (expected a whole number)") { ContractJSON.changingCase(&$0) { $0["limit"] = "ten" } },
        WrongType(message: "bad value at cases[0].mode: 'fuzzy' (expected one of literal, prefix, syntax)") {
            ContractJSON.changingCase(&$0) { $0["mode"] = "fuzzy" }
        },
        WrongType(message: "wrong type at cases[0].expect[1] (expected a whole number)") { ContractJSON.changingCase(&$0) { $0["expect"] = [1, "two"] } },
        WrongType(message: "bad number at cases[0].expect[1]: 2.5 is not a whole number") { ContractJSON.changingCase(&$0) { $0["expect"] = [1, 2.5] } },
        WrongType(message: "wrong type at cases[0].expect_error (expected true or false)") { ContractJSON.changingCase(&$0) { $0["expect_error"] = "yes" } },
        WrongType(message: "wrong type at cases[0].steps[1].key (expected a whole number)") {
            ContractJSON.changingCase(&$0) { $0["steps"] = [["op": "begin"], ["op": "delete", "key": "3"]] }
        },
        WrongType(message: "bad number at cases[0].steps[1].key: 3.5 is not a whole number") {
            ContractJSON.changingCase(&$0) { $0["steps"] = [["op": "begin"], ["op": "delete", "key": 3.5]] }
        },
        // Misspelled keys are refused with their JSON path, never ignored.
        WrongType(message: "unknown key recordz (expected one of version, description, table, key, records, cases, fts_table, legacy_version, max_query_length)") {
            $0["recordz"] = [[String: Any]]()
        },
        WrongType(message: "unknown key cases[0].limt (expected one of name, steps, query, mode, limit, offset, expect, expect_rejection, expect_error)") {
            ContractJSON.changingCase(&$0) { $0["limt"] = 2 }
        },
        WrongType(message: "unknown key cases[0].steps[1].kye (expected one of op, key, values)") {
            ContractJSON.changingCase(&$0) { $0["steps"] = [["op": "begin"], ["op": "delete", "kye": 3]] }
        },
        WrongType(message: "unknown key cases[0].Expect (expected one of name, steps, query, mode, limit, offset, expect, expect_rejection, expect_error)") {
            ContractJSON.changingCase(&$0) { $0["Expect"] = [1] }
        },
    ]

    @Test(arguments: wrongTypes)
    func wrongTypesNameTheFileAndTheJSONPath(_ wrong: WrongType) throws {
        var object = ContractJSON.valid()
        wrong.change(&object)
        let error = try refusal(String(decoding: try ContractJSON.data(object), as: UTF8.self))
        #expect(error.kind == .badInput)
        #expect(error.message == "malformed contract \(directory.file("contract.json")): \(wrong.message)")
    }

    /// A number that its key does not take is named by that key.
    @Test(arguments: [
        (#""max_query_length": 2.5"#, "bad number at max_query_length: 2.5 is not a whole number"),
        (#""max_query_length": 1e30"#, "bad number at max_query_length: 1e+30 is too large for a 64-bit whole number"),
        (#""legacy_version": 2.5"#, "bad number at legacy_version: 2.5 is not a whole number"),
        (#""legacy_version": 20240105093000"#, nil),
    ])
    func numbersThatDoNotFitNameTheirKey(_ field: String, _ reason: String?) throws {
        var text = String(decoding: try ContractJSON.data(ContractJSON.valid()), as: UTF8.self)
        let name = String(field.split(separator: ":")[0])
        let range = try #require(text.range(of: #"\#(name):\s*-?[0-9]+"#, options: .regularExpression))
        text.replaceSubrange(range, with: field)
        guard let reason else {
            #expect(try SearchContract.load(path: try write(text)).legacyVersion == 20240105093000, "a timestamp version fits")
            return
        }
        let error = try refusal(text)
        #expect(error.kind == .badInput)
        #expect(error.message == "malformed contract \(directory.file("contract.json")): \(reason)")
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
