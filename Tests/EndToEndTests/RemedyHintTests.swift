import Foundation
import SQLiteKit
import Testing
import TestSupport

/// The core says what would help; the command line names the option that does it, on
/// stderr and in the `--json` error alike.
@Suite struct RemedyHintTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws {
        workspace = try Workspace(database: "tickets.db", layout: "steward")
        try write("0001_ticket.sql", "CREATE TABLE ticket (id INTEGER PRIMARY KEY);\n")
    }

    func migrate(_ extra: [String] = []) throws -> StewardRun { try workspace.migrate(extra) }

    @Test func aMissingDatabaseNamesCreate() throws {
        let run = try migrate()
        #expect(run.status == 66)
        #expect(run.stderr.contains("Error: \(database): no such database (use --create to make a new one)"))
        let json = try migrate(["--json"])
        let error = try #require(try json.json()["error"] as? [String: Any])
        #expect(error["message"] as? String == "\(database): no such database (use --create to make a new one)")
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    @Test func anEmptyFileNamesCreate() throws {
        #expect(FileManager.default.createFile(atPath: database, contents: Data()))
        let run = try migrate()
        #expect(run.status == 65)
        #expect(run.stderr.contains(
            "Error: \(database) is an empty file (0 bytes), not a database; use --create to make it a new database"))
    }

    @Test func aNulInADatabaseListNamesNull() throws {
        let list = directory.file("list")
        try Data("a.db\u{0}b.db\n".utf8).write(to: URL(fileURLWithPath: list))
        let run = try StewardProcess.run(["migrate", "--dbs-from", list, "--migrations", migrations])
        #expect(run.stderr.contains("contains a NUL byte; use --null for NUL-separated names"), "\(run.stderr)")
    }

    /// The core says which input a skipped check lacked; text and JSON name its option.
    @Test func verifySkipsNameTheOptionThatWouldRunThem() throws {
        try Connection(path: database).execute(sql: "CREATE TABLE ticket (id INTEGER PRIMARY KEY)")
        let text = try StewardProcess.run(["verify", "--db", database])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("no --assert given"))
        #expect(text.stdout.contains("no --expect-version or --migrations given"))
        let json = try StewardProcess.run(["verify", "--db", database, "--json"]).json()
        let checks = try #require(json["checks"] as? [[String: Any]])
        let summaries = Dictionary(uniqueKeysWithValues: checks.compactMap { check in
            (check["name"] as? String).map { ($0, check["summary"] as? String ?? "") }
        })
        #expect(summaries["assertions"] == "no --assert given")
        #expect(summaries["search-contract"] == "no --contract given")
        #expect(checks.allSatisfy { $0["missingInput"] == nil })
    }

    @Test func schemaDriftNamesAllowDrift() throws {
        try Connection(path: database).execute(sql: "CREATE TABLE made_elsewhere (id INTEGER PRIMARY KEY)")
        let run = try migrate()
        #expect(run.status == 65)
        #expect(run.stderr.contains("schema drift, not migrated"), "\(run.stderr)")
        #expect(run.stderr.contains("table made_elsewhere extra (--allow-drift migrates anyway)"), "\(run.stderr)")
    }
}
