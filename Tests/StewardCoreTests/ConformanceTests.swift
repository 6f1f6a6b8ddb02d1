import Foundation
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// One test per row of the conformance tables in docs/conformance/: each row a set of files
/// and what Steward does with it, which is what the runner's released parser and file
/// collector do (or a refusal naming why not). The rows are in ConformanceRows.swift.
@Suite struct ConformanceTests {
    /// A row of a table: the files of a set (a name ending in `/` is an empty directory)
    /// and the outcome.
    struct Row: Sendable, CustomTestStringConvertible {
        enum Outcome: Sendable {
            /// The migrations, by file, in the order they run.
            case order([String])
            /// What the runner's ledger records, in the order they run.
            case versions([String])
            /// The SQL that runs for `file` holds each of `runs` and none of `skips`.
            case up(String, runs: [String], skips: [String])
            /// `file` is not a migration (the entry starts with its name).
            case ignores(String)
            /// The set is refused (65) with a message holding the text.
            case refuses(String)
            /// The description the runner's ledger records for the first migration.
            case description(String)
        }

        let id: String
        let dialect: Dialect
        let files: [String: String]
        let outcome: Outcome
        var placeholders: [String: String] = [:]

        var testDescription: String { id }
    }

    let directory: TemporaryDirectory
    var migrations: String { directory.file("migrations") }

    init() throws {
        directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: true)
    }

    func check(_ row: Row) throws {
        for (name, text) in row.files {
            if name.hasSuffix("/") {
                try FileManager.default.createDirectory(atPath: directory.file("migrations/\(name)"), withIntermediateDirectories: true)
            } else {
                try directory.write(text, to: "migrations/\(name)")
            }
        }
        let read = { try DialectSet(directory: migrations, dialect: row.dialect, placeholders: FlywayPlaceholders(row.placeholders)) }
        if case .refuses(let text) = row.outcome {
            let error = try #require(throws: StewardError.self) { try read() }
            #expect(error.kind == .badInput, "\(row.id)")
            #expect(error.message.contains(text), "\(row.id): \(error.message)")
            return
        }
        let set = try read()
        switch row.outcome {
        case .order(let files):
            #expect(set.migrations.map(\.fileName) == files, "\(row.id)")
        case .versions(let versions):
            #expect(set.migrations.map(\.ledgerVersion) == versions, "\(row.id)")
        case .up(let file, let runs, let skips):
            let migration = try #require(set.migrations.first { $0.fileName == file }, "\(row.id)")
            for text in runs { #expect(migration.upSQL.contains(text), "\(row.id): runs \(text)") }
            for text in skips { #expect(!migration.upSQL.contains(text), "\(row.id): skips \(text)") }
            // Lines are blanked, not removed: SQLite's offsets stay the file's lines.
            #expect(UpSection.lines(migration.upSQL).count == UpSection.lines(String(decoding: migration.bytes, as: UTF8.self)).count
                    || row.dialect == .flyway, "\(row.id)")
        case .ignores(let file):
            #expect(set.ignoredFiles.contains { $0.hasPrefix(file) }, "\(row.id): \(set.ignoredFiles)")
            #expect(!set.migrations.contains { $0.fileName == file }, "\(row.id)")
        case .description(let description):
            #expect(set.migrations.first?.description == description, "\(row.id)")
        case .refuses:
            break
        }
    }

    @Test(arguments: Self.gooseRows) func goose(_ row: Row) throws { try check(row) }
    @Test(arguments: Self.dbmateRows) func dbmate(_ row: Row) throws { try check(row) }
    @Test(arguments: Self.golangMigrateRows) func golangMigrate(_ row: Row) throws { try check(row) }
    @Test(arguments: Self.sqlxRows) func sqlx(_ row: Row) throws { try check(row) }
    @Test(arguments: Self.dieselRows) func diesel(_ row: Row) throws { try check(row) }
    @Test(arguments: Self.drizzleRows) func drizzle(_ row: Row) throws { try check(row) }
    @Test(arguments: Self.flywayRows) func flyway(_ row: Row) throws { try check(row) }
    @Test(arguments: Self.stewardRows) func steward(_ row: Row) throws { try check(row) }

    static var allRows: [Row] {
        gooseRows + dbmateRows + golangMigrateRows + sqlxRows + dieselRows + drizzleRows + flywayRows + stewardRows
    }

    /// Every row of every table in docs/conformance/ is a test: its ID is a row here, or
    /// its last column names a test function that exists; and every row here is in a table.
    @Test func everyTableRowIsATest() throws {
        let tables = Fixtures.repositoryRoot.appendingPathComponent("docs/conformance")
        let names = try FileManager.default.contentsOfDirectory(atPath: tables.path).filter { $0.hasSuffix(".md") }
        #expect(names.count >= 8)
        let sources = try FileManager.default.subpathsOfDirectory(atPath: Fixtures.repositoryRoot.appendingPathComponent("Tests").path)
            .filter { $0.hasSuffix(".swift") }
            .map { try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("Tests/\($0)"), encoding: .utf8) }
            .joined()
        let ids = Set(Self.allRows.map(\.id))
        #expect(ids.count == Self.allRows.count, "row IDs are unique")
        var documented = Set<String>()
        for name in names {
            let text = try String(contentsOf: tables.appendingPathComponent(name), encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("| ") {
                let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                guard let id = cells.first, id.range(of: #"^[a-z-]+-[0-9]{2}$"#, options: .regularExpression) != nil else { continue }
                documented.insert(id)
                let test = cells.last ?? ""
                if test == "ConformanceTests" {
                    #expect(ids.contains(id), "\(name): \(id) has no row in ConformanceTests")
                } else {
                    let function = test.trimmingCharacters(in: CharacterSet(charactersIn: "`"))
                    #expect(!function.isEmpty && sources.contains("func \(function)"), "\(name): \(id) names no test (\(test))")
                }
            }
        }
        #expect(ids.subtracting(documented).isEmpty, "rows in no table: \(ids.subtracting(documented).sorted())")
    }
}
