import Foundation
@testable import SQLiteKit
import Testing
@testable import StewardCore
import TestSupport

/// verify on adopted databases: an FTS5 table that keeps its own content and is
/// filled by triggers from another table is checked too, in `fts-triggers` (insert, update
/// and delete of the source covered) and `fts-sync` (its rows against the source's).
@Suite struct FTSTriggerFillVerifyTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws {
        workspace = try Workspace(making: [])
        try Connection(path: database).execute(sql: FTS5TriggerFillTests.schema + """
            INSERT INTO note(title, body) VALUES ('printer', 'jammed'), ('monitor', 'flickers'), ('laptop', 'secret plans');
            UPDATE note SET body = 'flickers again' WHERE id = 2;
            DELETE FROM note WHERE id = 1;
            """)
    }

    func verify(deferred: Set<String> = []) throws -> VerifyReport {
        var options = Verifier.Options(databasePath: database)
        options.ftsDeferred = deferred
        return try Verifier(options: options).run()
    }

    func check(_ report: VerifyReport, _ name: String) throws -> CheckResult {
        try #require(report.checks.first { $0.name.rawValue == name })
    }

    @Test func aTableFilledByTriggersPasses() throws {
        let report = try verify()
        let triggers = try check(report, "fts-triggers")
        #expect(triggers.status == .pass, "\(triggers)")
        #expect(triggers.summary.contains("note_search"), "\(triggers.summary)")
        let sync = try check(report, "fts-sync")
        #expect(sync.status == .pass, "\(sync)")
        #expect(sync.summary.contains("note_search"), "\(sync.summary)")
        #expect(report.passed)
    }

    @Test func aMissingDeleteTriggerFailsNamingIt() throws {
        try Connection(path: database).execute(sql: "DROP TRIGGER note_ad")
        let triggers = try check(try verify(), "fts-triggers")
        #expect(triggers.status == .fail)
        #expect(triggers.details == ["note_search: no delete trigger on note that writes to it"])
    }

    @Test func aRowChangedBehindTheTriggersBackFailsWithACountAndNoRowData() throws {
        let connection = try Connection(path: database)
        try connection.execute(sql: """
            DROP TRIGGER note_au;
            UPDATE note SET body = 'leaked words' WHERE id = 3;
            CREATE TRIGGER note_au AFTER UPDATE ON note BEGIN
                UPDATE note_search SET title = new.title, body = new.body WHERE rowid = old.id;
            END;
            """)
        let report = try verify()
        let sync = try check(report, "fts-sync")
        #expect(sync.status == .fail)
        #expect(sync.details == ["note_search: 1 indexed row out of date (against note)"])
        #expect(try check(report, "fts-triggers").status == .pass)
        let text = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        for secret in ["leaked", "secret plans", "flickers"] {
            #expect(!text.contains(secret), "row data in the report: \(secret)")
        }
    }

    @Test func declaredDeferredTablesAreReportedNotFailed() throws {
        // A row the application has not indexed yet, and no delete trigger.
        try Connection(path: database).execute(sql: """
            DROP TRIGGER note_ai;
            INSERT INTO note(title, body) VALUES ('queue', 'indexed later');
            CREATE TRIGGER note_ai AFTER INSERT ON note BEGIN
                INSERT INTO note_search(rowid, title, body) VALUES (new.id, new.title, new.body);
            END;
            DROP TRIGGER note_ad;
            """)
        let failing = try verify()
        #expect(try check(failing, "fts-triggers").status == .fail)
        #expect(try check(failing, "fts-sync").details == ["note_search: 1 source row not indexed (against note)"])

        let report = try verify(deferred: ["note_search"])
        let triggers = try check(report, "fts-triggers")
        #expect(triggers.status == .pass)
        #expect(triggers.details == ["note_search: no delete trigger on note that writes to it (deferred: indexed in the background)"])
        let sync = try check(report, "fts-sync")
        #expect(sync.status == .pass)
        #expect(sync.details == ["note_search: 1 source row not indexed (against note) (deferred: indexed in the background)"])
        #expect(report.passed)
    }
}
