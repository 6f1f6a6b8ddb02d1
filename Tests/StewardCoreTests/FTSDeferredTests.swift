import Foundation
import SQLiteKit
import Testing
@testable import StewardCore
import TestSupport

/// `verify --fts-deferred TABLE`: an application that indexes in the background declares
/// it; its missing sync triggers and unindexed rows are reported as such, not as failures.
@Suite struct FTSDeferredTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws {
        workspace = try Workspace(making: [])
        try Connection(path: database).execute(sql: """
            CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);
            CREATE VIRTUAL TABLE note_fts USING fts5(body, content='note', content_rowid='id');
            INSERT INTO note(body) VALUES ('indexed later by a worker');
            """)
    }

    func verify(deferred: Set<String>) throws -> VerifyReport {
        var options = Verifier.Options(databasePath: database)
        options.ftsDeferred = deferred
        return try Verifier(options: options).run()
    }

    @Test func withoutTheDeclarationMissingTriggersAndRowsFail() throws {
        let report = try verify(deferred: [])
        #expect(report.checks.first { $0.name.rawValue == "fts-triggers" }?.status == .fail)
        #expect(report.checks.first { $0.name.rawValue == "fts-sync" }?.status == .fail)
        #expect(!report.passed)
    }

    @Test func declaredTablesAreReportedAsDeferred() throws {
        let report = try verify(deferred: ["note_fts"])
        let triggers = try #require(report.checks.first { $0.name.rawValue == "fts-triggers" })
        #expect(triggers.status == .pass)
        #expect(triggers.details.contains { $0.contains("note_fts") && $0.contains("deferred") })
        let sync = try #require(report.checks.first { $0.name.rawValue == "fts-sync" })
        #expect(sync.status == .pass)
        #expect(sync.details == ["note_fts: not fully indexed yet (deferred: indexed in the background)"])
        #expect(report.passed)
    }
}
