import Foundation
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// A suite with a migration set of its own in its workspace's `migrations` directory.
protocol MigrationSetSuite: WorkspaceSuite {}

/// A suite that migrates its workspace's `database` with its set.
protocol MigratorSuite: MigrationSetSuite {}

extension MigratorSuite {
    /// One run of `Migrator`, with a timeout short enough for a test and `change` applied.
    func migrate(_ change: (inout Migrator.Options) -> Void = { _ in }) throws -> MigrateReport {
        var options = Migrator.Options(databasePath: database, migrationsDirectory: migrations)
        options.timeout = 2
        change(&options)
        return try Migrator(options: options).run().migration
    }

    /// The error of a run that must fail; a run that succeeds is recorded as an issue.
    func failure(_ change: (inout Migrator.Options) -> Void = { _ in }) throws -> StewardError {
        do {
            _ = try migrate(change)
        } catch let error as StewardError {
            return error
        }
        Issue.record("the run succeeded")
        throw StewardError(.internal, "the run succeeded")
    }
}

extension MigrationSetSuite {
    /// Runs a Python expression over a file of the set; `data` is the file's bytes.
    func python(_ expression: String, file: String) throws -> String {
        let path = (migrations as NSString).appendingPathComponent(file)
        let code = "import sys, hashlib, zlib; data = open(sys.argv[1], 'rb').read(); print(\(expression))"
        let result = try systemTool(["python3", "-c", code, path])
        #expect(result.status == 0, "\(result.output)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
