import Foundation
import Testing
import TestSupport

/// Issue 11, "the same concept has the same name everywhere": verify, backup and restore
/// name the same check alike (`integrity`, `foreign-keys`, `fts-sync`, `version`), where
/// backup and restore used to say `integrity_check`, `foreign_key_check`, `fts5_integrity`
/// and `user_version`; and `$defs/check` takes only those names.
@Suite(.enabled(if: JSONValidator.isInstalled, "python3 with the jsonschema module (python3-jsonschema) is not installed"))
struct OneCheckNameTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace(database: "tickets.sqlite", making: [.out]) }

    static func names(_ run: StewardRun) throws -> [String] {
        let checks = try #require(try run.json()["checks"] as? [[String: Any]], "\(run.stdout)")
        return checks.compactMap { $0["name"] as? String }
    }

    @Test func verifyBackupAndRestoreNameTheSameChecksAlike() throws {
        try Fixtures.makeExampleDatabase(at: database)
        let verify = try StewardProcess.run(["verify", "--db", database, "--json"])
        try #require(verify.status == 0, "\(verify.allOutput)")
        let backup = try StewardProcess.run(["backup", "--db", database, "--out", out, "--name", "b.tar.zst", "--check-fts", "--json"])
        try #require(backup.status == 0, "\(backup.allOutput)")
        let restore = try StewardProcess.run(["restore", out + "/b.tar.zst", "--into", directory.file("restored"), "--json"])
        try #require(restore.status == 0, "\(restore.allOutput)")

        let reports = [("verify", verify), ("backup", backup), ("restore", restore)]
        for (command, run) in reports {
            let names = try Self.names(run)
            for shared in ["integrity", "foreign-keys", "fts-sync", "version"] {
                #expect(names.contains(shared), "\(command) names \(names)")
            }
            #expect(!names.contains { $0.contains("_") }, "\(command) names \(names)")
        }
        let problems = try BackupChecksShapeTests.checkProblems(
            try reports.map { ($0.0, try #require(try $0.1.json()["checks"] as? [[String: Any]])) }, in: directory)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")

        let text = try StewardProcess.run(["restore", out + "/b.tar.zst", "--check-only"])
        #expect(text.status == 0, "\(text.allOutput)")
        #expect(text.stdout.contains("pass  integrity "), "\(text.stdout)")
        #expect(!text.stdout.contains("integrity_check"), "\(text.stdout)")
    }

    @Test func theSchemaRefusesACheckNameNoCommandUses() throws {
        let check: [String: Any] = ["name": "integrity_check", "status": "pass", "summary": "ok", "durationSeconds": 0, "details": [String]()]
        let problems = try BackupChecksShapeTests.checkProblems([("old", [check])], in: directory)
        #expect(problems.count == 1, "\(problems)")
        var renamed = check
        renamed["name"] = "integrity"
        #expect(try BackupChecksShapeTests.checkProblems([("new", [renamed])], in: directory).isEmpty)
    }
}
