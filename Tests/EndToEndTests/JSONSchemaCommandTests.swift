import Foundation
import SQLiteKit
import Testing
import TestSupport

/// Every command on a healthy database whose schema uses JSON functions in a CHECK
/// constraint, generated columns, indexes, a view and a trigger: Steward
/// kept `trusted_schema` off, and SQLite 3.40 refused to read such a schema ("unsafe use
/// of json_extract()"): restore failed 7 checks, verify failed, a bundle Steward made
/// could not be restored.
@Suite struct JSONSchemaCommandTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace(database: "documents.sqlite", making: []) }

    /// The database and the files beside it, but the `-shm`, where every reader of a WAL
    /// database records its read mark.
    func files() throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try directory.contents() where name.hasPrefix("documents") && !name.hasSuffix("-shm") {
            files[name] = FileManager.default.contents(atPath: directory.file(name))
        }
        return files
    }

    @Test func migrateCreatesTheSchemaAndVerifyPassesItWithoutTouchingIt() throws {
        try JSONSchemaFixture.writeMigrations(into: migrations)
        let first = try StewardProcess.run(["migrate", "--db", database, "--migrations", migrations, "--create", "--to", "1", "--json"])
        #expect(first.status == 0, "\(first.allOutput)")
        let dryRun = try StewardProcess.run(["migrate", "--db", database, "--migrations", migrations, "--dry-run", "--json"])
        #expect(dryRun.status == 0, "\(dryRun.allOutput)")
        let migrate = try StewardProcess.run(["migrate", "--db", database, "--migrations", migrations, "--json"])
        #expect(migrate.status == 0, "\(migrate.allOutput)")
        do {
            let connection = try Connection(path: database)
            for document in JSONSchemaFixture.documents {
                try connection.execute(sql: "INSERT INTO document(doc) VALUES (?)", bindings: [.text(document)])
            }
        }
        let status = try StewardProcess.run(["migrate", "--db", database, "--migrations", migrations, "--status", "--json"])
        #expect(status.status == 0, "\(status.allOutput)")

        let before = try files()
        let verify = try StewardProcess.run(["verify", "--db", database, "--migrations", migrations, "--json"])
        #expect(verify.status == 0, "\(verify.stdout)")
        #expect(!verify.allOutput.contains("unsafe use"))
        let report = try verify.json()
        #expect(report["passed"] as? Bool == true, "\(verify.stdout)")
        #expect(try files() == before, "verify neither modifies the file nor creates one beside it")
    }

    @Test(arguments: ["delete", "wal"])
    func inspectAndVerifyReadTheSchema(journalMode: String) throws {
        // In WAL mode the fixture's connection stays open, so that -wal and -shm exist as
        // beside a live application's database.
        let connection = try JSONSchemaFixture.makeDatabase(at: database, journalMode: journalMode)
        let before = try files()
        let inspect = try StewardProcess.run(["inspect", "--json", database])
        #expect(inspect.status == 0, "\(inspect.allOutput)")
        #expect(!inspect.allOutput.contains("unsafe use"))
        let verify = try StewardProcess.run(["verify", "--db", database, "--expect-version", "2", "--json"])
        #expect(verify.status == 0, "\(verify.stdout)")
        #expect(try verify.json()["passed"] as? Bool == true)
        let text = try StewardProcess.run(["verify", "--db", database, "--quick"])
        #expect(text.status == 0, "\(text.stdout)")
        #expect(try files() == before, "verify neither modifies the file nor creates one beside it")
        _ = connection
    }

    @Test func backupRestoreAndInspectTheBundle() throws {
        try JSONSchemaFixture.makeDatabase(at: database)
        let out = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let backup = try StewardProcess.run(["backup", "--db", database, "--out", out, "--name", "documents.tar.zst", "--check-fts", "--json"])
        #expect(backup.status == 0, "\(backup.allOutput)")
        let bundle = out + "/documents.tar.zst"

        let inspect = try StewardProcess.run(["inspect", bundle])
        #expect(inspect.status == 0, "\(inspect.allOutput)")
        #expect(inspect.stdout.contains("Verified   every SHA-256 matches the manifest"))

        let into = directory.file("restored")
        let restore = try StewardProcess.run(["restore", bundle, "--into", into, "--json"])
        #expect(restore.status == 0, "\(restore.allOutput)")
        let report = try restore.json()
        #expect(report["published"] as? Bool == true)
        let checks = try #require(report["checks"] as? [[String: Any]])
        let failed = checks.filter { $0["status"] as? String != "pass" }
        #expect(failed.isEmpty, "\(failed)")
        let restored = into + "/data/documents.sqlite"
        #expect(try DatabaseState(path: restored) == DatabaseState(path: database))

        // The restored database is usable with its JSON schema: the view, the generated
        // columns, the index and the trigger all work.
        let connection = try Connection(path: restored)
        try connection.execute(sql: #"UPDATE document SET doc = json_set(doc, '$.kind', 'memo') WHERE id = 3"#)
        #expect(try connection.integer(sql: "SELECT count(*) FROM document_log") == 2)
        #expect(try connection.scalar(sql: "SELECT kind FROM document WHERE json_extract(doc, '$.a') = 1")?.textValue == "note")
        #expect(try connection.integer(sql: "SELECT tag_count FROM document_summary WHERE id = 1") == 2)
        // Refused by the stored generated column (malformed JSON) or the CHECK constraint.
        #expect(throws: SQLiteError.self) { try connection.execute(sql: "INSERT INTO document(doc) VALUES ('not json')") }
    }
}
