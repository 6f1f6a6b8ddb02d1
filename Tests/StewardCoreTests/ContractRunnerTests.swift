import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// Turning input into FTS5 expressions, comparing outcomes, and running small contracts
/// on the fresh and the migrated database built from migration sets of each test's own.
@Suite struct ContractRunnerTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    // MARK: - Expressions

    typealias Expression = ContractRunner.Expression

    @Test(arguments: [
        ("printer", Expression.query(#""printer""#)),
        ("  printer jammed \n", .query(#""printer jammed""#)),
        (#"say "hi""#, .query(#""say ""hi""""#)),
        ("\"", .query("\"\"\"\"")),
        ("AND OR NOT", .query(#""AND OR NOT""#)),
        ("prin*", .query(#""prin*""#)),
    ])
    func literalTrimsDoublesQuotesAndWraps(_ input: String, _ expected: Expression) {
        #expect(ContractRunner.expression(for: input, mode: .literal, maximumLength: 100) == expected)
    }

    @Test(arguments: [
        ("prin", Expression.query(#""prin"*"#)),
        (" 客户 ", .query(#""客户"*"#)),
        (#"a "b"#, .query(#""a ""b"*"#)),
    ])
    func prefixAddsAStar(_ input: String, _ expected: Expression) {
        #expect(ContractRunner.expression(for: input, mode: .prefix, maximumLength: 100) == expected)
    }

    @Test(arguments: [" printer AND ", #"title: "x"*"#, "printer NOT toner"])
    func syntaxPassesTheRawInput(_ input: String) {
        #expect(ContractRunner.expression(for: input, mode: .syntax, maximumLength: 100) == .query(input))
    }

    @Test(arguments: [SearchContract.Mode.literal, .prefix, .syntax], ["", " ", "\t\n  \r\n", "\u{3000}"])
    func emptyAndWhitespaceOnlyRunNoQuery(_ mode: SearchContract.Mode, _ input: String) {
        #expect(ContractRunner.expression(for: input, mode: mode, maximumLength: 10) == .empty)
    }

    @Test(arguments: [SearchContract.Mode.literal, .prefix, .syntax])
    func lengthLimitCountsCharacters(_ mode: SearchContract.Mode) {
        #expect(ContractRunner.expression(for: "客户单", mode: mode, maximumLength: 3) != .rejected("too-long"))
        #expect(ContractRunner.expression(for: "客户工单", mode: mode, maximumLength: 3) == .rejected("too-long"))
        // "é" written as e + combining accent is one Character, and a flag is one too.
        #expect(ContractRunner.expression(for: "cafe\u{301}", mode: mode, maximumLength: 4) != .rejected("too-long"))
        #expect(ContractRunner.expression(for: "🇫🇷", mode: mode, maximumLength: 1) != .rejected("too-long"))
        #expect(ContractRunner.expression(for: "abc", mode: mode, maximumLength: 3) != .rejected("too-long"))
        #expect(ContractRunner.expression(for: "abcd", mode: mode, maximumLength: 3) == .rejected("too-long"))
    }

    @Test(arguments: [SearchContract.Mode.literal, .prefix, .syntax])
    func tooLongIsCheckedBeforeTrimming(_ mode: SearchContract.Mode) {
        #expect(ContractRunner.expression(for: "  ab  ", mode: mode, maximumLength: 3) == .rejected("too-long"))
        #expect(ContractRunner.expression(for: "     ", mode: mode, maximumLength: 3) == .rejected("too-long"))
    }

    // MARK: - Outcomes

    typealias Outcome = ContractRunner.Outcome

    @Test(arguments: [
        (Outcome.keys([1, 2]), Outcome.keys([1, 2]), true),
        (.keys([2, 1]), .keys([1, 2]), false),
        (.keys([1]), .keys([1, 2]), false),
        (.keys([]), .keys([]), true),
        (.error("syntax"), .error("syntax"), true),
        (.stepFailed("step 1 (update), SQLite error \(ResultCode.error)"), .error("syntax"), false),
        (.stepFailed("step 1 (update), SQLite error \(ResultCode.error)"), .keys([]), false),
        (.error("SQLite error \(ResultCode.corruptVirtualTable)"), .error("syntax"), true),
        (.keys([]), .error("syntax"), false),
        (.error("syntax"), .keys([]), false),
        (.rejected("too-long"), .rejected("too-long"), true),
        (.keys([]), .rejected("too-long"), false),
        (.rejected("too-long"), .keys([]), false),
        (.error("syntax"), .rejected("too-long"), false),
    ])
    func satisfies(_ outcome: Outcome, _ expected: Outcome, _ result: Bool) {
        #expect(outcome.satisfies(expected) == result)
    }

    @Test func outcomesDescribeKeysOnly() {
        #expect(Outcome.keys([10, 1]).description == "keys [10, 1]")
        #expect(Outcome.keys([]).description == "keys []")
        #expect(Outcome.rejected("too-long").description == "rejected: too-long")
        #expect(Outcome.error("syntax").description == "error: syntax")
    }

    // MARK: - Running contracts

    static let createNote = """
        CREATE TABLE note (
            id         INTEGER PRIMARY KEY,
            title      TEXT NOT NULL,
            created_at TEXT NOT NULL DEFAULT 'then'
        );
        """
    static let noteSearch = """
        CREATE VIRTUAL TABLE note_fts USING fts5(title, content='note', content_rowid='id');
        CREATE TRIGGER note_fts_after_insert AFTER INSERT ON note BEGIN
            INSERT INTO note_fts(rowid, title) VALUES (new.id, new.title);
        END;
        CREATE TRIGGER note_fts_after_delete AFTER DELETE ON note BEGIN
            INSERT INTO note_fts(note_fts, rowid, title) VALUES ('delete', old.id, old.title);
        END;
        CREATE TRIGGER note_fts_after_update AFTER UPDATE ON note BEGIN
            INSERT INTO note_fts(note_fts, rowid, title) VALUES ('delete', old.id, old.title);
            INSERT INTO note_fts(rowid, title) VALUES (new.id, new.title);
        END;
        """
    static let rebuild = "\nINSERT INTO note_fts(note_fts) VALUES ('rebuild');\n"

    /// The note set: the table at version 1, search at version 2 (with its rebuild, unless told).
    func migrations(rebuild: Bool = true, extra: [String: String] = [:]) throws -> DialectSet {
        let path = directory.file("migrations-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        var files = ["0001_note.sql": Self.createNote, "0002_note_search.sql": Self.noteSearch + (rebuild ? Self.rebuild : "")]
        files.merge(extra) { $1 }
        for (name, sql) in files {
            try Data(sql.utf8).write(to: URL(fileURLWithPath: (path as NSString).appendingPathComponent(name)))
        }
        return try DialectSet(directory: path, dialect: .steward)
    }

    static var records: [[String: Any]] { [
        ["id": 1, "title": "printer jammed"],
        ["id": 2, "title": "coffee machine empty"],
        ["id": 3, "title": "printer toner low"],
    ] }

    /// A contract over the note table, with `cases` and whatever `change` sets.
    func contract(
        _ cases: [[String: Any]], records: [[String: Any]] = records, _ change: (inout [String: Any]) -> Void = { _ in }
    ) throws -> SearchContract {
        var object = ContractJSON.valid()
        object["records"] = records
        object["cases"] = cases
        change(&object)
        let contract = try ContractJSON.decode(object)
        #expect(contract.problem() == nil)
        return contract
    }

    func run(
        _ contract: SearchContract, on set: DialectSet? = nil, cancellation: Cancellation = Cancellation()
    ) throws -> [VerifyReport.ContractCase] {
        try ContractRunner(contract: contract, set: set ?? migrations(), cancellation: cancellation).run()
    }

    func refusal(_ contract: SearchContract, on set: DialectSet? = nil) throws -> StewardError {
        try #require(throws: StewardError.self) { try run(contract, on: set) }
    }

    @Test func freshAndMigratedAgree() throws {
        let cases = try run(contract([
            ["name": "printer", "query": "printer", "expect": [1, 3]],
            ["name": "coffee", "query": "COFFEE", "expect": [2]],
        ]))
        #expect(cases.map(\.name) == ["printer", "coffee"])
        for item in cases {
            #expect(item.passed && item.agree && item.freshMatches && item.migratedMatches, "\(item.name)")
            #expect(item.fresh == item.expected)
            #expect(item.migrated == item.expected)
        }
        #expect(cases[0].expected == "keys [1, 3]")
    }

    @Test func aSetThatForgetsTheRebuildDisagrees() throws {
        let cases = try run(
            contract([
                ["name": "printer", "query": "printer", "expect": [1, 3]],
                ["name": "inserted-later", "steps": [["op": "insert", "values": ["id": 9, "title": "scanner"]]],
                 "query": "scanner", "expect": [9]],
            ]),
            on: migrations(rebuild: false))
        let printer = try #require(cases.first)
        #expect(!printer.passed)
        #expect(!printer.agree)
        #expect(printer.freshMatches)
        #expect(!printer.migratedMatches)
        #expect(printer.fresh == "keys [1, 3]")
        #expect(printer.migrated == "keys []", "the records inserted at version 1 were never indexed")
        #expect(cases[1].passed && cases[1].agree, "rows written after the migration are indexed by the triggers")
    }

    @Test func legacyVersionBeyondTheNewestInsertsAtTheNewest() throws {
        // Without the rebuild, only records inserted after search exists are indexed: the
        // migrated database can only pass if its records went in at the newest version.
        let cases = try run(
            contract([["name": "a", "query": "printer", "expect": [1, 3]]]) { $0["legacy_version"] = 9 },
            on: migrations(rebuild: false))
        #expect(cases.count == 1)
        #expect(cases[0].passed && cases[0].agree)
    }

    @Test func legacyVersionAtTheNewestIsTheSameAsFresh() throws {
        let cases = try run(
            contract([["name": "a", "query": "printer", "expect": [1, 3]]]) { $0["legacy_version"] = 2 },
            on: migrations(rebuild: false))
        #expect(cases[0].passed && cases[0].agree)
    }

    @Test func legacyVersionBetweenVersionsInsertsOnceItIsReached() throws {
        // Versions 1, 3 and 5; records at legacy_version 2 go in after version 3, where search appears.
        let path = directory.file("gaps")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, sql) in ["0001_note.sql": Self.createNote, "0003_note_search.sql": Self.noteSearch,
                            "0005_other.sql": "CREATE TABLE other(x);"] {
            try Data(sql.utf8).write(to: URL(fileURLWithPath: (path as NSString).appendingPathComponent(name)))
        }
        let cases = try run(
            contract([["name": "a", "query": "printer", "expect": [1, 3]]]) { $0["legacy_version"] = 2 },
            on: DialectSet(directory: path, dialect: .steward))
        #expect(cases[0].passed && cases[0].agree)
    }

    @Test func missingFTSTableIsBadInput() throws {
        let error = try refusal(contract([["name": "a", "query": "printer", "expect": [1]]]) { $0["fts_table"] = "ghost_fts" })
        #expect(error == StewardError(.badInput, "the contract's fts_table 'ghost_fts' does not exist after the migrations"))
    }

    @Test func ftsTableNamesAreCaseInsensitive() throws {
        let cases = try run(contract([["name": "a", "query": "printer", "expect": [1, 3]]]) { $0["fts_table"] = "NOTE_FTS" })
        #expect(cases[0].passed)
    }

    @Test(arguments: [
        ["id": 4] as [String: any Sendable],
        ["id": 1, "title": "duplicate key"],
        ["id": 4, "title": "x", "no_such_column": 1],
    ])
    func recordsThatCannotBeInsertedAreBadInput(_ bad: [String: any Sendable]) throws {
        let error = try refusal(contract([["name": "a", "query": "x", "expect": []]], records: Self.records + [bad.mapValues { $0 as Any }]))
        #expect(error.kind == .badInput)
        #expect(error.message.hasPrefix("the contract's records cannot be inserted into 'note' at the newest version: "))
        #expect(!error.message.contains("duplicate key"), "no row data in messages")
    }

    @Test func aFailingStepIsAnErrorNamingTheStep() throws {
        let cases = try run(contract([
            ["name": "bad-update", "steps": [["op": "begin"], ["op": "update", "key": 1, "values": ["no_such_column": "x"]]],
             "query": "printer", "expect": [1, 3]],
            ["name": "bad-rollback", "steps": [["op": "rollback"]], "query": "printer", "expect": [1, 3]],
            ["name": "duplicate-insert", "steps": [["op": "insert", "values": ["id": 1, "title": "again"]]],
             "query": "printer", "expect": [1, 3]],
        ]))
        #expect(cases[0].fresh == "step failed: step 2 (update), SQLite error \(ResultCode.error)")
        #expect(cases[0].migrated == cases[0].fresh)
        #expect(!cases[0].passed && cases[0].agree)
        #expect(cases[1].fresh == "step failed: step 1 (rollback), SQLite error \(ResultCode.error)")
        #expect(cases[2].fresh == "step failed: step 1 (insert), SQLite error \(ResultCode.constraintPrimaryKey)")
    }

    @Test func aSyntaxErrorIsAnErrorNeverZeroResults() throws {
        let cases = try run(contract([
            ["name": "expected", "query": "printer AND", "mode": "syntax", "expect_error": true],
            ["name": "unexpected", "query": "printer AND", "mode": "syntax", "expect": []],
            ["name": "literal", "query": "printer AND", "expect": []],
        ]))
        #expect(cases[0].passed)
        #expect(cases[0].fresh == "error: syntax")
        #expect(!cases[1].passed)
        #expect(cases[1].fresh == "error: syntax")
        #expect(cases[1].migrated == "error: syntax")
        #expect(cases[2].passed, "in literal mode operators are words")
    }

    @Test func policyCasesRunNoQuery() throws {
        let cases = try run(contract([
            ["name": "empty", "query": "", "expect": []],
            ["name": "blank", "query": "   ", "mode": "syntax", "expect": []],
            ["name": "punctuation", "query": "!?.;", "expect": []],
            ["name": "too-long", "query": String(repeating: "x", count: 6), "expect_rejection": "too-long"],
            ["name": "too-long-but-expected-keys", "query": String(repeating: "x", count: 6), "expect": []],
        ]) { $0["max_query_length"] = 5 })
        #expect(cases.prefix(4).allSatisfy { $0.passed })
        #expect(cases[3].fresh == "rejected: too-long")
        #expect(!cases[4].passed)
        #expect(cases[4].fresh == "rejected: too-long")
    }

    @Test func casesAreIsolated() throws {
        let cases = try run(contract([
            ["name": "delete", "steps": [["op": "delete", "key": 1]], "query": "printer", "expect": [3]],
            ["name": "begin-left-open", "steps": [["op": "begin"], ["op": "delete", "key": 3]], "query": "printer", "expect": [1]],
            ["name": "untouched", "query": "printer", "expect": [1, 3]],
        ]))
        for item in cases {
            #expect(item.passed, "\(item.name): fresh \(item.fresh), migrated \(item.migrated)")
        }
    }

    @Test func renameRollbackAndCommit() throws {
        let rename: [String: Any] = ["op": "update", "key": 1, "values": ["title": "scanner offline"]]
        let cases = try run(contract([
            ["name": "old-word-gone", "steps": [rename], "query": "jammed", "expect": []],
            ["name": "new-word-found", "steps": [rename], "query": "scanner", "expect": [1]],
            ["name": "rollback-restores", "steps": [["op": "begin"], rename, ["op": "delete", "key": 3], ["op": "rollback"]],
             "query": "printer", "expect": [1, 3]],
            ["name": "rollback-forgets-new-word", "steps": [["op": "begin"], rename, ["op": "rollback"]],
             "query": "scanner", "expect": []],
            ["name": "commit-keeps", "steps": [["op": "begin"], rename, ["op": "delete", "key": 3], ["op": "commit"]],
             "query": "printer", "expect": []],
        ]))
        for item in cases {
            #expect(item.passed, "\(item.name): fresh \(item.fresh), migrated \(item.migrated)")
        }
    }

    @Test func pagesThroughTiesOrderedByKey() throws {
        // Inserted out of key order; one shorter title ranks first, the identical ones tie.
        let records: [[String: Any]] = [
            ["id": 30, "title": "network outage in building a"],
            ["id": 10, "title": "network outage in building a"],
            ["id": 40, "title": "outage"],
            ["id": 20, "title": "network outage in building a"],
        ]
        let cases = try run(contract([
            ["name": "all", "query": "outage", "expect": [40, 10, 20, 30]],
            ["name": "first-page", "query": "outage", "limit": 2, "expect": [40, 10]],
            ["name": "second-page", "query": "outage", "limit": 2, "offset": 2, "expect": [20, 30]],
            ["name": "past-the-end", "query": "outage", "limit": 2, "offset": 4, "expect": []],
            ["name": "offset-only", "query": "outage", "offset": 1, "expect": [10, 20, 30]],
            ["name": "limit-zero", "query": "outage", "limit": 0, "expect": []],
        ], records: records))
        for item in cases {
            #expect(item.passed, "\(item.name): fresh \(item.fresh), migrated \(item.migrated)")
        }
    }

    @Test func columnNamesWithUnderscoresReachTheTable() throws {
        let records: [[String: Any]] = [["id": 1, "title": "printer jammed", "created_at": "2024-01-01"]]
        let cases = try run(contract([
            ["name": "insert", "steps": [["op": "insert", "values": ["id": 2, "title": "scanner", "created_at": "2024-02-02"]]],
             "query": "scanner", "expect": [2]],
            ["name": "update", "steps": [["op": "update", "key": 1, "values": ["created_at": "2024-03-03"]]],
             "query": "printer", "expect": [1]],
        ], records: records))
        for item in cases {
            #expect(item.passed, "\(item.name): fresh \(item.fresh), migrated \(item.migrated)")
        }
    }

    @Test func aCancelledRunIsInterrupted() throws {
        let cancellation = Cancellation()
        cancellation.cancel(reason: "SIGINT")
        let error = try #require(throws: StewardError.self) {
            try run(contract([["name": "a", "query": "printer", "expect": [1, 3]]]), cancellation: cancellation)
        }
        #expect(error.kind == .interrupted)
    }
}
