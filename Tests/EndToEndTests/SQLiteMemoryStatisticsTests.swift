import Foundation
import SQLiteKit
import Testing
import TestSupport

/// verify, backup and restore run SQLite statements on several threads at once (FTS5's
/// check beside integrity_check, the digests beside the checks). SQLite's memory
/// statistics take one process-wide mutex for every allocation and free, and those
/// threads waited on each other on it (strace: about 10,000 contended futex calls in one
/// verify of the 256 MiB bench database, 6 without the statistics). These commands run
/// with the statistics off; migrate keeps them, since a migration may rely on
/// `PRAGMA hard_heap_limit` (`MigrateSafetyTests.outOfMemoryIs74`).
@Suite struct SQLiteMemoryStatisticsTests: WorkspaceSuite {
    static let hook = ["STEWARD_TEST_HOOK_REPORT_SQLITE_MEMORY_STATISTICS": "1"]

    let workspace: Workspace

    init() throws { workspace = try .withExampleDatabase() }

    static func statistics(of run: StewardRun) -> String? {
        run.stderr.firstMatch(of: #/SQLite memory statistics: (on|off)/#).map { String($0.output.1) }
    }

    @Test func verifyBackupAndRestoreRunWithoutThem() throws {
        let verify = try StewardProcess.run(["verify", "--quiet", "--db", database], environment: Self.hook)
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(Self.statistics(of: verify) == "off", "\(verify.stderr)")

        let out = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let backup = try StewardProcess.run(["backup", "--quiet", "--db", database, "--out", out, "--json"], environment: Self.hook)
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(Self.statistics(of: backup) == "off", "\(backup.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(backup.stdout.utf8)) as? [String: Any]
        let bundle = try #require((report?["bundle"] as? [String: Any])?["path"] as? String)

        let restore = try StewardProcess.run(["restore", "--quiet", bundle, "--into", directory.file("restored")],
                                             environment: Self.hook)
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(Self.statistics(of: restore) == "off", "\(restore.stderr)")
    }

    /// A migration may set a heap limit; it is enforced only with the statistics on.
    @Test func migrateKeepsThem() throws {
        let migrate = try StewardProcess.run(["migrate", "--quiet", "--db", database, "--migrations", migrations],
                                             environment: Self.hook)
        #expect(migrate.status == 0, "\(migrate.stderr)")
        #expect(Self.statistics(of: migrate) == "on", "\(migrate.stderr)")
    }
}
