import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// `backup --as-is` and `restore --accept-recorded-failures` read the whole file once per
/// check: the record of failures is made from what `integrity_check` and
/// `foreign_key_check` found, not by running them again (a `StatementWatch` on the test's
/// directory counts the pragmas every connection ran there).
@Suite struct RecordedFailureCheckRunsTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws {
        workspace = try Workspace(database: "tickets.sqlite", making: [.out])
        // A row past its CHECK constraint and two orphans: both kinds of failure recorded.
        let connection = try Connection(path: database)
        try connection.execute(sql: """
            CREATE TABLE parent(id INTEGER PRIMARY KEY);
            CREATE TABLE child(id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id));
            INSERT INTO child(parent_id) VALUES (7), (8);
            CREATE TABLE t(x INTEGER CHECK (x > 0));
            PRAGMA ignore_check_constraints = ON; INSERT INTO t VALUES (-1); PRAGMA ignore_check_constraints = OFF;
            PRAGMA user_version = 4;
            """)
    }

    func backUpAsIs() throws -> BackupReport {
        var options = BackupMaker.Options(databasePath: database, outputDirectory: out)
        options.asIs = .integrityAndForeignKeys
        return try BackupMaker(options: options).run()
    }

    /// The integrity pragmas (`integrity_check`, `quick_check`) and `foreign_key_check`
    /// that `watch` saw.
    func runs(_ watch: StatementWatch) -> (integrity: Int, foreignKeys: Int) {
        (watch.count(startingWith: "PRAGMA integrity_check") + watch.count(startingWith: "PRAGMA quick_check"),
         watch.count(startingWith: "PRAGMA foreign_key_check"))
    }

    @Test func backupAsIsRunsEachCheckOnce() throws {
        let watch = StatementWatch(directory: directory.path)
        let report = try backUpAsIs()
        #expect(runs(watch).integrity == 1, "\(watch.statements)")
        #expect(runs(watch).foreignKeys == 1, "\(watch.statements)")
        let recorded = try #require(report.manifest.recordedFailures)
        #expect(recorded.integrity.problems == 1 && recorded.integrity.tables == ["t"])
        #expect(recorded.foreignKeyViolations.map { "\($0.table)|\($0.parent)|\($0.count)" } == ["child|parent|2"])
    }

    @Test func restoreAcceptingRecordedFailuresRunsEachCheckOnce() throws {
        let bundle = try backUpAsIs().bundle.path
        var options = Restorer.Options(bundlePath: bundle, intoDirectory: directory.file("restored"))
        options.acceptsRecordedFailures = true
        let watch = StatementWatch(directory: directory.path)
        let report = try Restorer(options: options, cancellation: Cancellation(), progress: { _ in }).run()
        #expect(runs(watch).integrity == 1, "\(watch.statements)")
        #expect(runs(watch).foreignKeys == 1, "\(watch.statements)")
        #expect(report.published)
        #expect(report.checks.filter { $0.status == .accepted }.map(\.name) == [.integrity, .foreignKeys])
    }
}
