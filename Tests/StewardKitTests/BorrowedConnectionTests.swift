import CSQLite
import Foundation
import StewardKit
import TestSupport
import Testing

/// StewardKit through the app's own connection: the app (`AppConnection`) opens it with
/// the C API and registers its tokenizer; Steward borrows it, checks, and gives it back as
/// it found it.
@Suite struct BorrowedConnectionTests {
    let directory: TemporaryDirectory
    let app: AppConnection
    let contractPath: String

    init() throws {
        directory = try TemporaryDirectory(prefix: "steward-kit")
        app = try AppConnection(path: directory.file("app.sqlite"))
        try app.createTicketDatabase()
        contractPath = directory.file("app.contract.json")
        try AppContract.text.write(toFile: contractPath, atomically: true, encoding: .utf8)
    }

    @Test func theContractAndTheFTS5ChecksPassThroughTheAppsConnection() throws {
        let report = try BorrowedConnection(sqliteConnection: app.handle).check(contractAt: contractPath)
        #expect(report.passed, "\(report.checks.map { "\($0.name.rawValue): \($0.summary) \($0.details)" })")
        #expect(report.contractCases.count == 8)
        #expect(report.failedCases.isEmpty)
        #expect(report.check(.searchContract)?.status == .pass)
        #expect(report.check(.ftsSync)?.status == .pass)
        #expect(report.check(.ftsSync)?.summary.contains("ticket_fts") == true)
        #expect(report.check(.ftsTriggers)?.status == .pass)
    }

    @Test func theConnectionIsLeftAsTheAppSetIt() throws {
        try app.execute("PRAGMA query_only = ON; PRAGMA foreign_keys = ON; PRAGMA recursive_triggers = ON; PRAGMA busy_timeout = 1234")
        try app.execute("PRAGMA query_only = OFF; INSERT INTO comment (ticket_id, text) VALUES (3, 'last'); PRAGMA query_only = ON")
        let lastRowID = sqlite3_last_insert_rowid(app.handle)
        let rows = try app.rows()
        do {
            let steward = BorrowedConnection(sqliteConnection: app.handle)
            let report = try steward.check(contractAt: contractPath)
            #expect(report.passed)
        }
        // Released: still open, still the app's settings, nothing of its data changed.
        #expect(try app.integer("PRAGMA query_only") == 1)
        #expect(try app.integer("PRAGMA foreign_keys") == 1)
        #expect(try app.integer("PRAGMA recursive_triggers") == 1)
        #expect(try app.integer("PRAGMA busy_timeout") == 1234)
        #expect(try app.integer("PRAGMA defer_foreign_keys") == 0)
        #expect(app.isAutocommit)
        #expect(sqlite3_last_insert_rowid(app.handle) == lastRowID)
        #expect(try app.rows() == rows)
        #expect(try app.integer("SELECT count(*) FROM ticket_fts WHERE ticket_fts MATCH 'customer'") == 1)
        #expect(try app.integer("SELECT count(*) FROM ticket_fts WHERE ticket_fts MATCH 'printer'") == 0)
    }

    @Test func aConnectionInsideATransactionIsRefused() throws {
        try app.execute("BEGIN; INSERT INTO ticket (id, title) VALUES (9, 'pending')")
        let steward = BorrowedConnection(sqliteConnection: app.handle)
        #expect(throws: StewardError.self) { try steward.checkFullTextSearch() }
        // The app's transaction is still open and still its own.
        #expect(!app.isAutocommit)
        #expect(try app.integer("SELECT count(*) FROM ticket WHERE id = 9") == 1)
        try app.execute("ROLLBACK")
    }

    @Test func aDriftedIndexFailsNamingTheTable() throws {
        try app.driftIndex()
        let report = try BorrowedConnection(sqliteConnection: app.handle).checkFullTextSearch()
        #expect(!report.passed)
        let sync = try #require(report.check(.ftsSync))
        #expect(sync.status == .fail)
        #expect(sync.details.contains { $0.hasPrefix("ticket_fts: the index is out of step with its content table ticket") })
        let triggers = try #require(report.check(.ftsTriggers))
        #expect(triggers.status == .fail)
        #expect(triggers.details.contains { $0.hasPrefix("ticket_fts: no ") })
        // Names, never the rows' text.
        let json = String(decoding: try report.json(), as: UTF8.self)
        #expect(!json.contains("Login") && !json.contains("secret") && !json.contains("Customer"))
    }

    @Test func aContractThatFailsNamesItsCases() throws {
        let broken = AppContract.text.replacingOccurrences(of: #""query": "PRINTER", "expect": [1, 2]"#, with: #""query": "PRINTER", "expect": [2]"#)
        let path = directory.file("broken.contract.json")
        try broken.write(toFile: path, atomically: true, encoding: .utf8)
        let report = try BorrowedConnection(sqliteConnection: app.handle).check(contractAt: path)
        #expect(report.failedCases == ["case-folding"])
        #expect(report.check(.searchContract)?.status == .fail)
        #expect(report.check(.searchContract)?.details == ["case-folding: expected keys [2]; got keys [1, 2]"])
    }

    @Test func aContractForATableTheAppDoesNotHaveFailsAsSuch() throws {
        let other = AppContract.text.replacingOccurrences(of: #""fts_table": "ticket_fts""#, with: #""fts_table": "note_fts""#)
        let path = directory.file("other.contract.json")
        try other.write(toFile: path, atomically: true, encoding: .utf8)
        try app.execute("PRAGMA query_only = ON")
        let report = try BorrowedConnection(sqliteConnection: app.handle).check(contractAt: path)
        #expect(report.check(.searchContract)?.status == .fail)
        #expect(report.check(.searchContract)?.summary.contains("note_fts") == true)
        #expect(app.isAutocommit)
        #expect(try app.integer("PRAGMA query_only") == 1)
    }
}
