import ArchiveKit
@testable import BundleFormat
import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

@Suite struct BackupMakerTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace(database: "tickets.sqlite", making: [.out]) }

    func options(_ name: String? = nil) -> BackupMaker.Options {
        var options = BackupMaker.Options(databasePath: database, outputDirectory: out)
        options.bundleName = name
        return options
    }

    @Test(arguments: ["delete", "wal"])
    func reportMatchesTheBundle(journalMode: String) throws {
        try Fixtures.makeExampleDatabase(at: database, journalMode: journalMode)
        let events = Recording<BackupMaker.Event>()
        let report = try BackupMaker(options: options("t.tar.zst")) { events.append($0) }.run()
        #expect(report.bundle.path == out + "/t.tar.zst")
        #expect(report.manifest.source.journalMode == journalMode)
        #expect(report.manifest.source.userVersion == 2)
        #expect(report.manifest.snapshot.restarts == 0)
        #expect(report.manifest.checks.writeVersion == 1 && report.manifest.checks.readVersion == 1)
        #expect(report.manifest.files.map(\.path) == ["data/tickets.sqlite"])
        #expect(report.checks.map(\.name.rawValue)
            == ["integrity", "foreign-keys", "version", "journal-mode", "payload-size", "schema-objects", "tables", "fts-sync"])
        #expect(report.checks.map(\.status) == [.pass, .pass, .pass, .pass, .pass, .pass, .pass, .pass])
        #expect(report.failedChecks.isEmpty)
        #expect(try directory.contents(of: "out") == ["t.tar.zst"])
        #expect(events.names.first == "copying")
        #expect(events.names.contains("checking"))
        #expect(events.names.last == "published")

        let bundle = try BundleContents(reading: report.bundle.path, extractingInto: directory.path)
        #expect(bundle.databaseSHA256 == report.manifest.files[0].sha256)
        #expect(try DatabaseState(path: bundle.databasePath) == DatabaseState(path: database))
    }

    @Test func defaultNameIsTakenWhilePinnedAndNeverReplaced() throws {
        try Fixtures.makeExampleDatabase(at: database)
        let first = try BackupMaker(options: options()).run()
        let name = (first.bundle.path as NSString).lastPathComponent
        #expect(name.hasPrefix("tickets-v2-"))
        #expect(name == BackupNaming.defaultBundleName(database: database, userVersion: 2,
                                                       at: try #require(BackupNaming.seconds(ofTimestamp: first.manifest.createdAt))))
        // The same second gives the same name: refused, and the first bundle stays.
        let before = FileManager.default.contents(atPath: first.bundle.path)
        let second = errorKind {
            var again = options()
            again.bundleName = name
            _ = try BackupMaker(options: again).run()
        }
        #expect(second == .cannotCreate)
        #expect(FileManager.default.contents(atPath: first.bundle.path) == before)
        #expect(try directory.contents(of: "out") == [name])
    }

    @Test func aCancelledRunLeavesNothing() throws {
        try Fixtures.makeExampleDatabase(at: database)
        let cancellation = Cancellation()
        cancellation.cancel(reason: "SIGTERM")
        #expect(errorKind { _ = try BackupMaker(options: options(), cancellation: cancellation).run() } == .interrupted)
        #expect(try directory.contents(of: "out").isEmpty)
    }

    @Test func integrityFailureIsRefused() throws {
        // An index whose definition no longer matches its entries: integrity_check says so.
        let connection = try Connection(path: database)
        try connection.execute(sql: """
            CREATE TABLE t(a INTEGER, b INTEGER);
            CREATE INDEX t_a ON t(a);
            INSERT INTO t VALUES (1, 10), (2, 20), (3, 30);
            """)
        try connection.setConfiguration(1010 /* SQLITE_DBCONFIG_DEFENSIVE */, enabled: false)
        try connection.execute(sql: """
            PRAGMA writable_schema = ON;
            UPDATE sqlite_schema SET sql = 'CREATE INDEX t_a ON t(b)' WHERE name = 't_a';
            PRAGMA writable_schema = OFF;
            """)
        do {
            _ = try BackupMaker(options: options()).run()
            Issue.record("a copy that fails integrity_check must not be published")
        } catch let error as StewardError {
            #expect(error.kind == .checkFailed)
            #expect(error.message.contains("integrity: "), "\(error.message)")
        }
        #expect(try directory.contents(of: "out").isEmpty)
    }

    @Test func userVersionMismatchIsRefused() throws {
        try Fixtures.makeExampleDatabase(at: database)
        let copy = directory.file("copy.sqlite")
        try Connection(path: database).backup(to: try Connection(path: copy))
        let source = BundleManifest.Source(fileName: "tickets.sqlite", userVersion: 9, applicationID: 0, pageSize: 4096,
                                           pageCount: 7, journalMode: "delete")
        do {
            _ = try SnapshotVerification(copyPath: copy, source: source, cancellation: Cancellation()).run()
            Issue.record("a different user_version must be refused")
        } catch let error as StewardError {
            #expect(error.kind == .checkFailed)
            #expect(error.message.contains("user_version is 2, the source's is 9"), "\(error.message)")
        }
    }

    @Test func aCopyStillMarkedWALIsRefused() throws {
        let copy = directory.file("copy.sqlite")
        let connection = try Connection(path: copy)
        try connection.setJournalMode("wal")
        try connection.execute(sql: "CREATE TABLE t(x)")
        let source = BundleManifest.Source(fileName: "x", userVersion: 0, applicationID: 0, pageSize: 4096, pageCount: 2, journalMode: "wal")
        #expect(throws: StewardError.self) {
            _ = try SnapshotVerification(copyPath: copy, source: source, cancellation: Cancellation()).run()
        }
    }

    @Test func theLockAllowanceRunsOutAndCancellationStopsWaiting() throws {
        let waits = LockWaits(timeout: 0.05, cancellation: Cancellation())
        var attempts = 0
        while waits.pause(attempt: attempts) { attempts += 1 }
        #expect(attempts > 1)
        #expect(waits.secondsWaited >= 0.05)
        #expect(waits.secondsWaited < 0.2)

        let cancellation = Cancellation()
        cancellation.cancel(reason: "SIGINT")
        #expect(!LockWaits(timeout: 10, cancellation: cancellation).pause(attempt: 0))
    }
}
