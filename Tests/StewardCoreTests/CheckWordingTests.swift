import SQLiteKit
import Testing
@testable import StewardCore

/// backup and restore word a shared check the same way (`CheckResult.init(_:…)`): a
/// failure backup records says so, and the version check names where its expectation
/// came from.
@Suite struct CheckWordingTests {
    @Test func integrityAndForeignKeysAsBackupRecordsAndRestoreReportsThem() {
        let integrity = Check(name: .integrity, status: .failed, detail: "integrity_check found 2 problems",
                              problems: ["a", "b"], counts: ["problems": 2])
        #expect(CheckResult(integrity, durationSeconds: 1, versionsFrom: "the manifest")
            == CheckResult(name: .integrity, status: .fail, summary: "2 problems found", durationSeconds: 1, details: ["a", "b"]))
        #expect(CheckResult(integrity, durationSeconds: 1, recorded: true, versionsFrom: "the source").summary
            == "2 problems found (recorded)")
        let foreignKeys = Check(name: .foreignKeys, status: .failed, detail: "", problems: ["x"],
                                counts: ["child → parent": 1, "a → b": 2])
        #expect(CheckResult(foreignKeys, durationSeconds: 0, versionsFrom: "the manifest")
            == CheckResult(name: .foreignKeys, status: .fail, summary: "3 violations: a → b: 2, child → parent: 1", durationSeconds: 0))
        #expect(CheckResult(foreignKeys, durationSeconds: 0, recorded: true, versionsFrom: "the source").summary
            == "3 violations (recorded): a → b: 2, child → parent: 1")
        let sound = Check(name: .foreignKeys, status: .ok, detail: "")
        #expect(CheckResult(sound, durationSeconds: 0, recorded: true, versionsFrom: "the source").summary == "no violations")
    }

    @Test func theVersionCheckNamesWhereItsExpectationCameFrom() {
        #expect(CheckResult(DatabaseChecks.userVersion(3, expected: 3), durationSeconds: 0, versionsFrom: "the source").summary
            == "3, as in the source")
        let other = CheckResult(DatabaseChecks.userVersion(3, expected: 4), durationSeconds: 0, versionsFrom: "the manifest")
        #expect(other.status == .fail)
        #expect(other.summary == "3, the manifest says 4")
    }

    @Test func fts5SaysARecordedFailureOnly() {
        let failed = Check(name: .ftsSync, status: .failed, detail: "1 of 1 FTS5 table fails", problems: ["doc_fts: damaged"])
        #expect(CheckResult(failed, durationSeconds: 0, recorded: true, versionsFrom: "the source")
            == CheckResult(name: .ftsSync, status: .fail, summary: "1 of 1 FTS5 table fails (recorded)", durationSeconds: 0,
                           details: ["doc_fts: damaged"]))
        let passed = Check(name: .ftsSync, status: .ok, detail: "1 FTS5 table passes")
        #expect(CheckResult(passed, durationSeconds: 0, recorded: true, versionsFrom: "the source").summary == "1 FTS5 table passes")
    }
}
