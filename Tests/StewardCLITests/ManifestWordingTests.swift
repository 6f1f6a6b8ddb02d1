import Foundation
import StewardCore
import Testing
import TestSupport
@testable import StewardCLI

/// `backup` and `inspect` word a manifest's source and checks alike (`ManifestWording`),
/// each under its own label and with its own ending: both lines pinned word for word.
@Suite struct ManifestWordingTests {
    @Test func backupAndInspectWordTheSourceAndTheChecksAlike() throws {
        let directory = try TemporaryDirectory()
        let database = directory.file("tickets.sqlite")
        _ = try Fixtures.makeExampleDatabase(at: database)
        let out = directory.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let backup = try BackupMaker(options: .init(databasePath: database, outputDirectory: out)).run()
        let source = backup.manifest.source
        let checks = backup.manifest.checks
        let sourceWords = "user_version \(source.userVersion), application_id \(source.applicationID), "
            + "\(source.pageCount) pages of \(source.pageSize) bytes, journal mode delete"
        let checkWords = "integrity_check ok, 0 foreign key violations, user_version \(checks.userVersion)"

        let backupLines = BackupCommand.render(backup).components(separatedBy: "\n")
        #expect(backupLines.contains("Source      \(database): \(sourceWords)"), "\(backupLines)")
        #expect(backupLines.contains {
            $0.hasPrefix("Checks      \(checkWords) as in the source, journal mode delete (header 1, 1) in ")
        }, "\(backupLines)")

        let inspected = try BundleInspector().inspect(path: backup.bundle.path)
        let inspectLines = InspectCommand.render(.bundle(inspected)).components(separatedBy: "\n")
        #expect(inspectLines.contains("Source     tickets.sqlite: \(sourceWords)"), "\(inspectLines)")
        #expect(inspectLines.contains("Checks     \(checkWords), journal mode delete at backup"), "\(inspectLines)")
    }
}
