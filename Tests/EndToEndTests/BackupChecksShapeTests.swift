import Foundation
import SQLiteKit
import Testing
import TestSupport

/// One name, one shape per concept (steward(1), JSON OUTPUT): backup's `checks` is the array of
/// `$defs/check` results that verify and restore report, and the manifest is carried as
/// `manifest`, as restore and inspect carry it. Backup's `checks` used to be the
/// manifest's record object, so that a script reading `checks[].status` broke on backup.
@Suite(.enabled(if: JSONValidator.isInstalled, "python3 with the jsonschema module (python3-jsonschema) is not installed"))
struct BackupChecksShapeTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace(database: "tickets.sqlite", making: [.out]) }

    /// Validates every item against `$defs/check` alone, with the real validator; returns
    /// one message per invalid item, `label[index]: message`.
    static func checkProblems(_ items: [(label: String, checks: [[String: Any]])], in directory: TemporaryDirectory) throws -> [String] {
        let file = directory.file("checks.json")
        let labelled = items.map { ["label": $0.label, "checks": $0.checks] as [String: Any] }
        try JSONSerialization.data(withJSONObject: labelled).write(to: URL(fileURLWithPath: file))
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            validator = jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/check"})
            for item in json.load(open(sys.argv[2])):
                for index, check in enumerate(item["checks"]):
                    for error in validator.iter_errors(check):
                        print("%s[%d]: %s" % (item["label"], index, error.message[:300]))
            """
        let (status, output) = try systemTool(["python3", "-c", script, JSONValidator.schema, file])
        guard status == 0 else { return ["the validator failed: \(output)"] }
        return output.split(separator: "\n").map(String.init)
    }

    @Test func backupAndVerifyChecksValidateAgainstTheSameCheckDefinition() throws {
        try Fixtures.makeExampleDatabase(at: database)
        let backup = try StewardProcess.run(["backup", "--db", database, "--out", out, "--name", "b.tar.zst", "--check-fts", "--json"])
        try #require(backup.status == 0, "\(backup.allOutput)")
        let verify = try StewardProcess.run(["verify", "--db", database, "--json"])
        try #require(verify.status == 0, "\(verify.allOutput)")
        let report = try backup.json()

        let backupChecks = try #require(report["checks"] as? [[String: Any]], "checks is an array: \(backup.stdout)")
        let verifyChecks = try #require(try verify.json()["checks"] as? [[String: Any]])
        #expect(backupChecks.compactMap { $0["name"] as? String }
                == ["integrity", "foreign-keys", "version", "journal-mode", "payload-size", "schema-objects", "tables", "fts-sync"])
        #expect(backupChecks.allSatisfy { $0["status"] as? String == "pass" }, "\(backupChecks)")
        #expect(report["failedChecks"] as? [String] == [])
        let problems = try Self.checkProblems([("backup", backupChecks), ("verify", verifyChecks)], in: directory)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        #expect(Set(backupChecks.map { Set($0.keys) }) == Set(verifyChecks.map { Set($0.keys) }), "the same fields")

        // The manifest as restore and inspect show it, its record of the checks inside.
        let manifest = try #require(report["manifest"] as? [String: Any])
        #expect(manifest["format"] as? String == "steward-bundle")
        #expect((manifest["checks"] as? [String: Any])?["checksRun"] as? [String]
                == ["integrity_check", "foreign_key_check", "user_version", "journal_mode", "fts5_integrity"])
        for gone in ["source", "snapshot", "files", "createdAt", "recordedFailures"] {
            #expect(report[gone] == nil, "\(gone) is the manifest's, under manifest")
        }
        let inspect = try StewardProcess.run(["inspect", out + "/b.tar.zst", "--json"])
        try #require(inspect.status == 0, "\(inspect.allOutput)")
        #expect(try inspect.json()["manifest"] as? NSDictionary == manifest as NSDictionary, "one manifest, one shape")

        // The old shape, the manifest's record under checks, no longer validates.
        var old = report
        old["checks"] = manifest["checks"]
        let text = String(decoding: try JSONSerialization.data(withJSONObject: old, options: [.sortedKeys]), as: UTF8.self)
        let invalid = try JSONValidator.problems([("backup, checks as the manifest's object", text)], in: directory)
        #expect(!invalid.isEmpty, "the schema refuses the manifest's record under checks")
    }

    /// The full-text check runs unasked, as restore runs it.
    @Test func withoutCheckFTSTheFullTextCheckRunsAllTheSame() throws {
        try Fixtures.makeExampleDatabase(at: database)
        let run = try StewardProcess.run(["backup", "--db", database, "--out", out, "--name", "b.tar.zst", "--json"])
        try #require(run.status == 0, "\(run.allOutput)")
        let checks = try #require(try run.json()["checks"] as? [[String: Any]])
        let fts = try #require(checks.first { $0["name"] as? String == "fts-sync" })
        #expect(fts["status"] as? String == "pass")
        #expect(fts["summary"] as? String == "FTS5 integrity-check (rank 1) passed for 1 table: ticket_fts", "\(fts)")
        #expect(try Self.checkProblems([("backup", checks)], in: directory).isEmpty)
    }

    /// `--as-is` bundles a snapshot that fails its foreign-key check: backup's report lists
    /// the check as failed, names it in `failedChecks`, and still says ok (exit 0), since the
    /// bundle was made as asked and its manifest records the failure.
    @Test func anAsIsBackupListsTheCheckItsSnapshotFailed() throws {
        try Connection(path: database).execute(sql: """
            CREATE TABLE customer(id INTEGER PRIMARY KEY);
            CREATE TABLE ticket(id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(id));
            INSERT INTO ticket VALUES (1, 42), (2, 43);
            """)
        let run = try StewardProcess.run(["backup", "--db", database, "--out", out, "--as-is", "--json"])
        try #require(run.status == 0, "\(run.allOutput)")
        let report = try run.json()
        #expect(report["status"] as? String == "ok")
        let checks = try #require(report["checks"] as? [[String: Any]])
        let foreignKeys = try #require(checks.first { $0["name"] as? String == "foreign-keys" })
        #expect(foreignKeys["status"] as? String == "fail")
        #expect((foreignKeys["summary"] as? String)?.contains("ticket → customer: 2") == true, "\(foreignKeys)")
        #expect(checks.first { $0["name"] as? String == "integrity" }?["status"] as? String == "pass")
        #expect(report["failedChecks"] as? [String] == ["foreign-keys"])
        #expect((report["manifest"] as? [String: Any])?["recordedFailures"] != nil)
        #expect(try Self.checkProblems([("backup --as-is", checks)], in: directory).isEmpty)
        #expect(try JSONValidator.problems([("backup --as-is", run.stdout)], in: directory).isEmpty)
    }
}
