import SQLiteKit
import Testing
@testable import StewardCore

/// backup and restore word a shared check the same way (`CheckResult.init(_:…)`): a
/// failure backup records says so, and the version check names where its expectation
/// came from.
@Suite struct CheckWordingTests {
    @Test func integrityAndForeignKeysAsBackupRecordsAndRestoreReportsThem() {
        let lines = ["Page 5 is never used", "row 3 missing from index ticket_status"]
        let integrity = Check(name: .integrity, status: .failed, detail: "integrity_check found 2 problems",
                              problems: lines, counts: ["problems": 2])
        #expect(CheckResult(integrity, durationSeconds: 1, versionsFrom: "the manifest")
            == CheckResult(name: .integrity, status: .fail, summary: "2 problems found", durationSeconds: 1, details: lines))
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

/// integrity_check's findings as Steward shows them: one line per finding, as the sqlite3
/// shell prints them, and only the shapes SQLite 3.40 gives (they name pages, tables,
/// indexes and rowids, never a value).
@Suite struct IntegrityMessagesTests {
    @Test func rowsOfSeveralFindingsAreSplitAndTheHeadingDropped() {
        let rows = ["*** in database main ***\nOn tree page 6 cell 195: Offset 65535 out of range 521..4092\nPage 7 is never used",
                    "row 12 missing from index ticket_status", "NULL value in ticket.title", "CHECK constraint failed in ticket",
                    "non-INTEGER value in item.price", "wrong # of entries in index ticket_status", "non-unique entry in index u"]
        #expect(IntegrityMessages.lines(rows) == [
            "On tree page 6 cell 195: Offset 65535 out of range 521..4092", "Page 7 is never used",
            "row 12 missing from index ticket_status", "NULL value in ticket.title", "CHECK constraint failed in ticket",
            "non-INTEGER value in item.price", "wrong # of entries in index ticket_status", "non-unique entry in index u",
        ])
    }

    @Test(arguments: ["value 'Café au lait' in ticket.title", "JSON path error near 'secret'", "row secret missing"])
    func aLineOfAnotherShapeIsNotShown(_ line: String) {
        let shown = IntegrityMessages.lines([line])
        #expect(shown.count == 1)
        #expect(!shown[0].contains("secret") && !shown[0].contains("Café"), "\(shown)")
    }

    @Test func whereThePragmaStoppedIsTheLastLine() {
        var check = Check(name: .integrity, status: .failed, detail: "", problems: ["*** in database main ***\nPage 2: btreeInitPage() returns error code 11"])
        check.stopped = "integrity_check stopped here: database disk image is malformed (SQLite error 11)"
        #expect(check.shownProblems == ["Page 2: btreeInitPage() returns error code 11",
                                        "integrity_check stopped here: database disk image is malformed (SQLite error 11)"])
    }
}
