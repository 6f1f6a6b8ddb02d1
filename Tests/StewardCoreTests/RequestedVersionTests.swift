import Foundation
import SQLiteKit
import Testing
@testable import StewardCore
import TestSupport

/// `--to` and `--baseline` as the runner shows its versions, and the report's versions
/// and counts in the runner's words (issue 26).
@Suite struct RequestedVersionTests: MigratorSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace(making: []) }

    func drizzleSet() throws {
        for (index, tag) in ["0000_a", "0001_b", "0002_c"].enumerated() {
            try directory.write("CREATE TABLE t\(index)(x);\n", to: "migrations/\(tag).sql")
        }
        try directory.write(#"{"entries":[{"idx":0,"when":1,"tag":"0000_a"},{"idx":1,"when":2,"tag":"0001_b"},{"idx":2,"when":3,"tag":"0002_c"}]}"#,
                            to: "migrations/meta/_journal.json")
    }

    @Test(arguments: ["3", "0003", "20240101120000", "1.1", "1_1", "0093_reader_view", "1_x.y"])
    func versionsAndTagsAreAccepted(_ text: String) {
        #expect(RequestedVersion(text)?.text == text)
    }

    @Test(arguments: ["", "1.x", "-3", "v1", "0093_", "_a", "1/2_x", "1..2"])
    func otherTextIsNot(_ text: String) {
        #expect(RequestedVersion(text) == nil)
    }

    @Test func aTagAndItsNumberNameTheSameMigration() throws {
        try drizzleSet()
        let set = try DialectSet(directory: migrations, dialect: .drizzle)
        #expect(RequestedVersion("0001_b")?.resolve(in: set.migrations) == VersionKey(1))
        #expect(RequestedVersion("1")?.resolve(in: set.migrations) == VersionKey(1))
        #expect(RequestedVersion("0001_x")?.resolve(in: set.migrations) == nil)
    }

    @Test func theReportSpeaksTheRunnersVersions() throws {
        try drizzleSet()
        let first = try migrate {
            $0.create = true
            $0.targetVersion = RequestedVersion("0001_b")
        }
        #expect(first.fromVersionText == nil)
        #expect(first.toVersionText == "0001_b")
        #expect(first.newestVersionText == "0002_c")
        #expect((first.appliedCountBefore, first.appliedCountAfter, first.migrationCount) == (0, 2, 3))
        // Drizzle knows nothing of user_version: the ledger decides, the database is current
        // up to its target, and the rest is pending.
        try Connection(path: database).setUserVersion(0)
        let status = try migrate { $0.statusOnly = true }
        #expect(status.fromVersionText == "0001_b")
        #expect(status.pending.map(\.versionText) == ["0002_c"])
        let atTarget = try migrate { $0.targetVersion = RequestedVersion("0001_b") }
        #expect(atTarget.outcome == .current)
        #expect(try Connection(path: database).userVersion() == 0)
        let rest = try migrate()
        #expect((rest.fromVersionText, rest.toVersionText, rest.appliedCountAfter) == ("0001_b", "0002_c", 3))
        #expect(rest.notes.contains { $0.hasSuffix("this run rewrote it: it is now 3, in line with __drizzle_migrations") })
        let error = try failure { $0.targetVersion = RequestedVersion("0000_a") }
        #expect(error.message.contains("the newest applied migration (version 0002_c) is newer than the target version 0000_a"),
                "\(error.message)")
    }
}
