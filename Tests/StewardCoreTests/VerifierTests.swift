import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// `Verifier` as a library, on example databases of each test's own: report fields,
/// skipped checks, FTS5 variants, interruption, and that nothing is written or left behind.
@Suite struct VerifierTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace(database: "tickets.db", making: []) }

    func options(_ change: (inout Verifier.Options) -> Void = { _ in }) -> Verifier.Options {
        var options = Verifier.Options(databasePath: database)
        options.timeout = 2
        change(&options)
        return options
    }

    func verify(
        _ change: (inout Verifier.Options) -> Void = { _ in },
        cancellation: Cancellation = Cancellation(), progress: @escaping @Sendable (Verifier.Event) -> Void = { _ in }
    ) throws -> VerifyReport {
        try Verifier(options: options(change), cancellation: cancellation, progress: progress).run()
    }

    func makeExample() throws {
        try Fixtures.makeExampleDatabase(at: database)
    }

    /// A database of its own, made by `sql`.
    func makeDatabase(_ sql: String) throws {
        try Connection(path: database).execute(sql: sql)
    }

    func write(_ text: String, to name: String) throws -> String {
        let path = directory.file(name)
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func check(_ report: VerifyReport, _ name: String) throws -> CheckResult {
        try #require(report.checks.first { $0.name.rawValue == name })
    }

    // MARK: - A healthy database

    @Test func aHealthyDatabasePasses() throws {
        try makeExample()
        let report = try verify()
        #expect(report.passed)
        #expect(report.failedChecks == [])
        #expect(report.checks.map(\.name.rawValue) == Verifier.checkOrder)
        for name in ["sqlite", "integrity", "foreign-keys", "fts-sync", "fts-triggers"] {
            #expect(try check(report, name).status == .pass, "\(name)")
        }
        #expect(try check(report, "integrity").summary == "integrity_check returned ok")
        #expect(try check(report, "foreign-keys").summary == "foreign_key_check found no violations")
        #expect(try check(report, "fts-sync").summary == "FTS5 integrity-check passed for ticket_fts")
        #expect(try check(report, "fts-triggers").summary == "insert, delete and update sync triggers present for ticket_fts")
        #expect(report.command == "verify")
        #expect(report.stewardVersion == StewardVersion.current)
        #expect(report.sqliteVersion == SQLiteLibrary.version)
        #expect(report.fts5Available)
        #expect(report.contractVersion == nil)
        #expect(report.contractCases.isEmpty)
        #expect(report.failedCases == [])
    }

    @Test func theReportDescribesTheDatabase() throws {
        try makeExample()
        let report = try verify()
        let described = try #require(report.database)
        #expect(described.fileName == "tickets.db")
        #expect(described.path == database)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: database)[.size] as? NSNumber)
        #expect(described.sizeBytes == size.int64Value)
        #expect(described.userVersion == 2)
        let table = try #require(described.ftsTables.first)
        #expect(described.ftsTables.count == 1)
        #expect(table.name == "ticket_fts")
        #expect(table.columns == ["title", "body"])
        #expect(table.contentMode == "external")
        #expect(table.content == "ticket")
        #expect(table.contentRowID == "id")
        #expect(table.tokenize == "unicode61 remove_diacritics 2")
    }

    @Test func progressReportsEveryCheckThatRuns() throws {
        try makeExample()
        let events = Recording<Verifier.Event>()
        let report = try verify(progress: { events.append($0) })
        let ran = report.checks.filter { $0.status != .skipped }.map(\.name.rawValue)
        #expect(Set(events.started) == Set(ran))
        #expect(Set(events.finished) == Set(ran))
        #expect(events.started.count == ran.count)
    }

    // MARK: - Skipped checks

    @Test func withoutADatabaseEveryDatabaseCheckIsSkipped() throws {
        let report = try Verifier(options: .init(databasePath: nil)).run()
        #expect(report.database == nil)
        #expect(report.passed)
        for check in report.checks where check.name.rawValue != "search-contract" {
            #expect(check.status == .skipped)
            #expect(check.missingInput == .database)
            #expect(check.summary == "no database given")
        }
        #expect(try check(report, "search-contract").missingInput == .contract)
        #expect(report.checks.count == Verifier.checkOrder.count)
    }

    @Test func skippedReasons() throws {
        try makeExample()
        let report = try verify()
        for (name, input) in [
            ("version", CheckResult.MissingInput.expectedVersion),
            ("assertions", .assertions),
            ("search-contract", .contract),
        ] {
            let skipped = try check(report, name)
            #expect(skipped.status == .skipped)
            #expect(skipped.missingInput == input)
            #expect(skipped.durationSeconds == 0)
        }
    }

    /// A contract asked for always runs: without a set to build its databases from, the
    /// run is refused, never reported as a skipped check that passes.
    @Test func aContractWithoutMigrationsIsRefused() throws {
        try makeExample()
        let contract = Fixtures.exampleMigrations.appendingPathComponent("ticket-search.contract.json").path
        let error = try #require(throws: StewardError.self) { try verify { $0.contractPath = contract } }
        #expect(error.kind == .usage)
    }

    // MARK: - Options

    @Test func quickUsesQuickCheck() throws {
        try makeExample()
        let integrity = try check(try verify { $0.quick = true }, "integrity")
        #expect(integrity.status == .pass)
        #expect(integrity.summary == "quick_check returned ok")
    }

    @Test func versionComesFromTheMigrationSetUnlessExpectedVersionIsGiven() throws {
        try makeExample()
        _ = try write("SELECT 1;\n", to: "migrations/0007_last.sql")
        _ = try write("SELECT 1;\n", to: "migrations/0001_first.sql")
        let migrations = directory.file("migrations")

        let fromSet = try verify { $0.migrationsDirectory = migrations }
        #expect(try check(fromSet, "version").status == .fail)
        #expect(try check(fromSet, "version").summary == "user_version is 2, expected 7")
        // Version 2 is no file of the set: the schema cannot be compared, which fails it.
        #expect(fromSet.failedChecks == ["version", "schema"])
        #expect(try check(fromSet, "schema").summary == "cannot run: no migration of the set has version 2")
        #expect(!fromSet.passed)

        let expected = try verify { $0.migrationsDirectory = migrations; $0.expectedVersion = 2 }
        #expect(try check(expected, "version").status == .pass)
        #expect(try check(expected, "version").summary == "user_version is 2")

        let wrong = try verify { $0.expectedVersion = 3 }
        #expect(try check(wrong, "version").summary == "user_version is 2, expected 3")
    }

    // MARK: - FTS5 variants

    @Test func aDatabaseWithoutFTSTables() throws {
        try makeDatabase("CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT); INSERT INTO ticket(title) VALUES ('x');")
        let report = try verify()
        #expect(report.passed)
        #expect(try check(report, "fts-sync").status == .pass)
        #expect(try check(report, "fts-sync").summary == "no full-text tables (FTS3, FTS4 or FTS5)")
        #expect(try check(report, "fts-triggers").status == .pass)
        #expect(try check(report, "fts-triggers").summary == "no full-text tables (FTS3, FTS4 or FTS5)")
        #expect(report.database?.ftsTables.isEmpty == true)
        #expect(report.database?.userVersion == 0)
    }

    @Test func contentlessAndInternalContentTablesUseTheDefaultCheck() throws {
        try makeDatabase("""
            CREATE VIRTUAL TABLE note_index USING fts5(body, content='');
            CREATE VIRTUAL TABLE note_copy USING fts5(body, tokenize='trigram');
            INSERT INTO note_index(rowid, body) VALUES (1, 'printer on fire'), (2, 'café au lait');
            INSERT INTO note_copy(body) VALUES ('printer on fire'), ('客户工单搜索');
            PRAGMA user_version = 5;
            """)
        let report = try verify()
        #expect(report.passed, "\(report.checks.map { "\($0.name): \($0.summary)" })")
        let sync = try check(report, "fts-sync")
        #expect(sync.status == .pass)
        #expect(sync.summary.hasPrefix("FTS5 integrity-check passed for "))
        #expect(sync.summary.contains("note_index") && sync.summary.contains("note_copy"))
        #expect(try check(report, "fts-triggers").summary
            == "no external-content or trigger-filled full-text tables; none of note_copy, note_index needs sync triggers")
        let modes = Dictionary(uniqueKeysWithValues: (report.database?.ftsTables ?? []).map { ($0.name, $0.contentMode) })
        #expect(modes == ["note_index": "contentless", "note_copy": "internal"])
        #expect(report.database?.userVersion == 5)
    }

    @Test func aDamagedExternalContentIndexFailsFTSSync() throws {
        try makeExample()
        // Losing a row's document size is invisible to the default integrity-check, but
        // not to the form with rank 1 that compares the index with its content table.
        try Connection(path: database).execute(sql: "DELETE FROM ticket_fts_docsize WHERE id = 1")
        let report = try verify()
        let sync = try check(report, "fts-sync")
        #expect(sync.status == .fail)
        #expect(sync.summary == "full-text check failed: ticket_fts (drift from ticket)")
        #expect(sync.details.count == 1)
        #expect(sync.details.first?.hasPrefix("ticket_fts: the index is out of step with its content table ticket (drift, not damage to the file; ") == true)
        #expect(sync.details.first?.hasSuffix(
            "rebuild it with INSERT INTO \"ticket_fts\"(\"ticket_fts\") VALUES('rebuild'), or with '-- steward: rebuild-fts ticket_fts' in the migration that changes ticket") == true,
            "drift is worded with its remedy: \(sync.details)")
        #expect(sync.details.first?.contains("malformed") == false, "never worded as a damaged file")
        #expect(sync.details.first?.contains("SQLite error \(ResultCode.corruptVirtualTable)") == true)
        #expect(report.failedChecks == ["fts-sync"])
        #expect(try check(report, "integrity").status == .pass, "the file itself is sound")
    }

    @Test func aDamagedInternalContentIndexFailsFTSSync() throws {
        try makeDatabase("""
            CREATE VIRTUAL TABLE note USING fts5(body);
            INSERT INTO note(body) VALUES ('alpha beta'), ('gamma delta');
            DELETE FROM note_data WHERE id > 10;
            """)
        let report = try verify()
        let sync = try check(report, "fts-sync")
        #expect(sync.status == .fail)
        #expect(sync.summary == "full-text check failed: note (damaged index)")
        #expect(sync.details.first?.hasPrefix("note: the index is damaged (") == true)
    }

    // MARK: - Assertions and contracts through the verifier

    @Test func assertionsRunOnAPrivateCopy() throws {
        try makeExample()
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let assertions = try write("""
            DELETE FROM ticket;
            -- name: the copy is empty now
            SELECT count(*) = 0 FROM ticket;
            -- name: fails
            SELECT 0;
            """, to: "checks.sql")
        let report = try verify { $0.assertionFiles = [assertions, assertions] }
        let check = try check(report, "assertions")
        #expect(check.status == .fail)
        #expect(check.summary == "2 of 6 statements failed: fails, fails")
        #expect(check.details == ["fails: the first column is not 1 in 1 of 1 row", "fails: the first column is not 1 in 1 of 1 row"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
        #expect(try Connection(path: database, mode: [.readOnly]).integer(sql: "SELECT count(*) FROM ticket") == 2)
    }

    @Test func aContractThatCannotRunStopsTheRun() throws {
        try makeExample()
        var object = ContractJSON.valid()
        object["table"] = "ticket"
        object["fts_table"] = "ticket_fts"
        object["records"] = [["id": 1]]
        let contract = try write(String(decoding: try ContractJSON.data(object), as: UTF8.self), to: "contract.json")
        let error = try #require(throws: StewardError.self) {
            try verify { $0.contractPath = contract; $0.migrationsDirectory = Fixtures.exampleMigrations.path }
        }
        #expect(error.kind == .badInput)
        #expect(error.message.hasPrefix("the contract's records cannot be inserted into 'ticket'"))
    }

    @Test func inputsAreCheckedBeforeAnyCheckRuns() throws {
        try makeExample()
        let events = Recording<Verifier.Event>()
        let missing = try #require(throws: StewardError.self) {
            try verify({ $0.assertionFiles = [directory.file("none.sql")] }, progress: { events.append($0) })
        }
        #expect(missing.kind == .notFound)
        let notADatabase = try write("not a database, only text that is long enough to be read as a header", to: "text.db")
        let bad = try #require(throws: StewardError.self) {
            try verify({ $0.databasePath = notADatabase }, progress: { events.append($0) })
        }
        #expect(bad.kind == .badInput)
        #expect(events.started.isEmpty)
    }

    // MARK: - Interruption and leftovers

    @Test func aCancelledRunIsInterrupted() throws {
        try makeExample()
        let cancellation = Cancellation()
        cancellation.cancel(reason: "SIGTERM")
        let error = try #require(throws: StewardError.self) { try verify(cancellation: cancellation) }
        #expect(error == StewardError(.interrupted, "interrupted by SIGTERM"))
    }

    @Test func theFileIsNotModified() throws {
        try makeExample()
        let path = URL(fileURLWithPath: database)
        let before = try Data(contentsOf: path)
        let modified = try FileManager.default.attributesOfItem(atPath: database)[.modificationDate] as? Date
        _ = try verify { $0.quick = false; $0.expectedVersion = 2 }
        #expect(try Data(contentsOf: path) == before)
        #expect(try FileManager.default.attributesOfItem(atPath: database)[.modificationDate] as? Date == modified)
        #expect(try directory.contents() == ["tickets.db"], "no journal, WAL or copy next to the database")
    }

    /// A copy is made for a WAL database and for assertions (a rollback-journal database
    /// whose only writing check is FTS5's gets a private mapping instead).
    @Test(arguments: [false, true], ["wal", "assertions"])
    func thePrivateCopyIsRemoved(cancelled: Bool, copyFor reason: String) throws {
        // Tests run in parallel, so other runs' workspaces come and go in the same
        // temporary directory: find this run's own by a marker only its copy holds.
        let marker = "marker_\(UUID().uuidString.replacingOccurrences(of: "-", with: ""))"
        try makeExample()
        try Connection(path: database).execute(sql: "CREATE TABLE \(marker)(x)")
        if reason == "wal" {
            #expect(try Connection(path: database).setJournalMode("wal") == "wal")
        }
        let assertions = reason == "assertions" ? [try write("SELECT 1;\n", to: "checks.sql")] : []
        let workspaces = WorkspaceLog()
        let cancellation = Cancellation()
        if cancelled { cancellation.cancel(reason: "SIGINT") }
        let run = {
            try verify({ $0.assertionFiles = assertions }, cancellation: cancellation, progress: { event in
                if case .started(check: .ftsSync) = event { workspaces.find(holding: marker) }
            })
        }
        if cancelled {
            #expect(throws: StewardError.self) { try run() }
        } else {
            _ = try run()
        }
        let workspace = try #require(workspaces.found, "the copy was made under the temporary directory")
        #expect((workspace as NSString).lastPathComponent.hasPrefix("steward-verify-"))
        #expect(!FileManager.default.fileExists(atPath: workspace))
    }
}

/// The verifier's workspace whose copy holds a marker, found while the run is going on.
private final class WorkspaceLog: @unchecked Sendable {
    private let lock = NSLock()
    private var path: String?

    var found: String? {
        lock.lock(); defer { lock.unlock() }
        return path
    }

    func find(holding marker: String) {
        let base = FileManager.default.temporaryDirectory.path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []
        for name in names where name.hasPrefix("steward-verify-") {
            let workspace = (base as NSString).appendingPathComponent(name)
            let copy = (workspace as NSString).appendingPathComponent("copy.sqlite")
            guard let data = FileManager.default.contents(atPath: copy), data.range(of: Data(marker.utf8)) != nil else { continue }
            lock.lock(); path = workspace; lock.unlock()
            return
        }
    }
}
