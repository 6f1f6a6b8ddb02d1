import Foundation
import SQLiteKit
import Testing
import TestSupport

/// Every command run on a database, tables, triggers, migrations and a
/// bundle whose names hold newlines, carriage returns, tabs, escape sequences and whole
/// report lines (`HostileNames`). Text output shows them escaped (`\n`, `\r`, `\t`, `\\`,
/// `\xHH`) on their own line; no forged line, escape character or carriage return ever
/// reaches stdout or stderr; JSON carries the names exactly.
@Suite struct HostileNameTests {
    let directory: TemporaryDirectory
    var database: String { directory.file(HostileNames.databaseFileName) }
    var migrations: String { directory.file("migrations") }

    init() throws {
        directory = try TemporaryDirectory()
        try HostileNames.writeMigrations(into: migrations)
    }

    func expectClean(_ run: StewardRun, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let forgeries = HostileNames.forgeries(in: run.stdout) + HostileNames.forgeries(in: run.stderr)
        #expect(forgeries.isEmpty, "\(label): \(forgeries)\n\(run.allOutput)", sourceLocation: sourceLocation)
    }

    @Test func migrateCreatesTheDatabaseAndPrintsTheNamesEscaped() throws {
        for arguments in [["--dry-run"], [], ["--status"]] {
            let create = arguments.isEmpty ? ["--create"] : []
            if arguments == ["--dry-run"] { try HostileNames.makeDatabase(at: directory.file("scratch.db")) }
            let target = arguments == ["--dry-run"] ? directory.file("scratch.db") : database
            let run = try StewardProcess.run(["migrate", "--db", target, "--migrations", migrations] + create + arguments)
            expectClean(run, "migrate \(arguments)")
            #expect(run.status == 0, "\(run.allOutput)")
        }
        let run = try StewardProcess.run(["migrate", "--db", database, "--migrations", migrations, "--status"])
        #expect(run.stdout.contains("Database    \(directory.path)/db\\nRestored    forged.db\\r\\nResult"))
        let json = try StewardProcess.run(["migrate", "--db", database, "--migrations", migrations, "--status", "--json"])
        #expect((try json.json()["database"] as? [String: Any])?["path"] as? String == database, "JSON carries the name exactly")
    }

    @Test func inspectVerifyBackupAndRestoreNeverPrintAForgedLine() throws {
        try HostileNames.makeDatabase(at: database)

        let inspect = try StewardProcess.run(["inspect", database])
        expectClean(inspect, "inspect")
        #expect(inspect.status == 0)
        #expect(inspect.stdout.contains("tbl\\nRestored    forged.db\\r\\nResult     PASSED: 42 checks passed\\rVerified"))
        #expect(inspect.stdout.contains("\\t\\x1B[2J\\\\"), "tab, escape and backslash escaped")
        let inspectJSON = try StewardProcess.run(["inspect", "--json", database])
        expectClean(inspectJSON, "inspect --json")
        let tables = try #require(try inspectJSON.json()["tables"] as? [[String: Any]])
        #expect(tables.contains { $0["name"] as? String == HostileNames.tableName }, "JSON carries the name exactly")

        for arguments in [["--db", database], ["--db", database, "--migrations", migrations], ["--db", database, "--json"]] {
            let verify = try StewardProcess.run(["verify"] + arguments)
            expectClean(verify, "verify \(arguments)")
            #expect(verify.status == 1, "the FTS table has no update trigger: \(verify.allOutput)")
        }

        let out = directory.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let backup = try StewardProcess.run(["backup", "--db", database, "--out", out, "--name", "b.tar.zst"])
        expectClean(backup, "backup")
        #expect(backup.status == 0, "\(backup.allOutput)")
        #expect(backup.stdout.contains("Source      \(directory.path)/db\\nRestored"))

        let bundle = out + "/b.tar.zst"
        let inspectBundle = try StewardProcess.run(["inspect", bundle])
        expectClean(inspectBundle, "inspect bundle")
        #expect(inspectBundle.status == 0)

        let into = directory.file("restored-" + HostileNames.name("target") + ".db")
        let restore = try StewardProcess.run(["restore", bundle, "--into", into])
        expectClean(restore, "restore")
        #expect(restore.status == 0, "\(restore.allOutput)")
        #expect(FileManager.default.fileExists(atPath: into))
        #expect(restore.stdout.contains("Restored    \(directory.path)/restored-target\\nRestored    forged.db\\r"))

        // Refusals name the paths too: an existing target, a missing database.
        let again = try StewardProcess.run(["restore", bundle, "--into", into])
        expectClean(again, "restore onto an existing file")
        #expect(again.status != 0)
        let missing = try StewardProcess.run(["verify", "--db", directory.file(HostileNames.name("missing"))])
        expectClean(missing, "verify of a missing file")
        #expect(missing.status == 66)
    }

    @Test func craftedManifestStringsArePrintedEscaped() throws {
        try HostileNames.makeDatabase(at: directory.file("plain.db"))
        let made = try StewardProcess.run(["backup", "--db", directory.file("plain.db"), "--out", directory.path, "--name", "plain.tar.zst", "--quiet"])
        try #require(made.status == 0, "\(made.allOutput)")
        var parts = try BundleParts(reading: directory.file("plain.tar.zst"))
        HostileNames.forgeManifestStrings(&parts)
        let crafted = directory.file("crafted.tar.zst")
        try parts.bundle(to: crafted)

        let inspect = try StewardProcess.run(["inspect", crafted])
        expectClean(inspect, "inspect")
        #expect(inspect.status == 0, "\(inspect.allOutput)")
        #expect(inspect.stdout.contains("Source     source\\nRestored    forged.db\\r\\n"))
        let restore = try StewardProcess.run(["restore", crafted, "--into", directory.file("r.db")])
        expectClean(restore, "restore")
        #expect(restore.status == 0, "\(restore.allOutput)")
        #expect(restore.stdout.contains("by Steward 0.1.0\\nRestored    forged.db\\r"))
    }

    /// A `createdAt` that is not an RFC 3339 time makes the manifest malformed (65).
    @Test(arguments: [HostileNames.name("2026-11-30T04:15:00Z"), "yesterday", "2026-02-30T04:15:00Z", "2026-11-30 04:15:00", ""])
    func aCreatedAtThatIsNotATimeIsRefused(_ createdAt: String) throws {
        try HostileNames.makeDatabase(at: directory.file("plain.db"))
        let made = try StewardProcess.run(["backup", "--db", directory.file("plain.db"), "--out", directory.path, "--name", "plain.tar.zst", "--quiet"])
        try #require(made.status == 0, "\(made.allOutput)")
        var parts = try BundleParts(reading: directory.file("plain.tar.zst"))
        parts.manifest["createdAt"] = createdAt
        let crafted = directory.file("crafted.tar.zst")
        try parts.bundle(to: crafted)
        for command in [["inspect", crafted], ["restore", crafted, "--into", directory.file("r.db")]] {
            let run = try StewardProcess.run(command)
            expectClean(run, command[0])
            #expect(run.status == 65, "\(command[0]): \(run.allOutput)")
            #expect(run.stderr.contains("createdAt is not an RFC 3339 time"), "\(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("r.db")))
    }
}
