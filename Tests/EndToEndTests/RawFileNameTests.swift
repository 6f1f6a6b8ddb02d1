import FileNames
import Foundation
import SQLiteKit
import Testing
import TestSupport

/// File names that are not UTF-8 reach the system byte for byte in every
/// command (`FileNames`), and are shown with each such byte as `\xHH`, in text and in JSON.
@Suite struct RawFileNameTests {
    let directory: TemporaryDirectory
    /// `x<0xFF>.db`: 0xFF is never part of UTF-8.
    var database: String { directory.path + "/x" + FileName.decode([0xFF]) + ".db" }
    /// What CommandLine.arguments would have made of it.
    var replaced: String { directory.path + "/x\u{FFFD}.db" }

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test func migrateCreatesExactlyTheNamedFile() throws {
        let run = try StewardProcess.run(rawArguments: ["migrate", "--create", "--db", database, "--migrations", Fixtures.exampleMigrations.path])
        #expect(run.status == 0, "\(run.allOutput)")
        #expect(RawFiles.exists(database), "the file with byte 0xFF exists")
        #expect(!RawFiles.exists(replaced), "no file with U+FFFD instead")
        #expect(RawFiles.names(in: directory.path) == ["x" + FileName.decode([0xFF]) + ".db"])
        #expect(run.stdout.contains("Database    \(directory.path)/x\\xFF.db (created)"))
    }

    @Test func inspectVerifyBackupAndRestoreOpenTheNamedFile() throws {
        try Fixtures.makeExampleDatabase(at: directory.file("plain.db"))
        try RawFiles.copy(directory.file("plain.db"), to: database)

        let inspect = try StewardProcess.run(rawArguments: ["inspect", database])
        #expect(inspect.status == 0, "\(inspect.allOutput)")
        #expect(inspect.stdout.contains("Database   \(directory.path)/x\\xFF.db"))
        let json = try StewardProcess.run(rawArguments: ["inspect", "--json", database])
        #expect(json.status == 0)
        #expect((try json.json()["database"] as? [String: Any])?["path"] as? String == "\(directory.path)/x\\xFF.db", "JSON writes the byte as \\xFF")

        let verify = try StewardProcess.run(rawArguments: ["verify", "--db", database])
        #expect(verify.status == 0, "\(verify.allOutput)")

        let out = directory.path + "/out" + FileName.decode([0xFE])
        try #require(mkdir(FileName.cString(out), 0o755) == 0)
        let backup = try StewardProcess.run(rawArguments: ["backup", "--db", database, "--out", out, "--name", "b.tar.zst"])
        #expect(backup.status == 0, "\(backup.allOutput)")
        let bundle = out + "/b.tar.zst"
        #expect(RawFiles.exists(bundle))

        let inspectBundle = try StewardProcess.run(rawArguments: ["inspect", bundle])
        #expect(inspectBundle.status == 0, "\(inspectBundle.allOutput)")

        let into = directory.path + "/r" + FileName.decode([0xC3, 0x28]) + ".db"
        let restore = try StewardProcess.run(rawArguments: ["restore", bundle, "--into", into])
        #expect(restore.status == 0, "\(restore.allOutput)")
        #expect(RawFiles.exists(into))
        #expect(restore.stdout.contains("Restored    \(directory.path)/r\\xC3(.db/data/"), "\(restore.stdout)")
        let restored = try #require(RawFiles.names(in: into + "/data").first)
        #expect(try Connection(path: into + "/data/" + restored).integer(sql: "SELECT count(*) FROM ticket") == 2)
    }

    @Test func migrationDirectoriesAndAssertionFilesAreReadByTheirBytes() throws {
        let migrations = directory.path + "/m" + FileName.decode([0xE9])
        try #require(mkdir(FileName.cString(migrations), 0o755) == 0)
        try RawFiles.copy(Fixtures.exampleMigrations.appendingPathComponent("0001_create_ticket.sql").path,
                          to: migrations + "/0001_create" + FileName.decode([0xFF]) + ".sql")
        let migrate = try StewardProcess.run(rawArguments: ["migrate", "--create", "--dialect", "steward", "--db", database, "--migrations", migrations])
        #expect(migrate.status == 0, "\(migrate.allOutput)")
        #expect(migrate.stdout.contains("0001_create\\xFF.sql"), "\(migrate.stdout)")

        let assertions = directory.path + "/a" + FileName.decode([0xFF]) + ".sql"
        try "SELECT count(*) = 0 FROM ticket;\n".write(toFile: directory.file("a.sql"), atomically: true, encoding: .utf8)
        try RawFiles.copy(directory.file("a.sql"), to: assertions)
        let verify = try StewardProcess.run(rawArguments: ["verify", "--db", database, "--migrations", migrations, "--assert", assertions])
        #expect(verify.status == 0, "\(verify.allOutput)")
    }

    @Test func aMissingFileIsNamedWithItsBytesEscaped() throws {
        let run = try StewardProcess.run(rawArguments: ["inspect", database])
        #expect(run.status == 66)
        #expect(run.stderr.contains("x\\xFF.db: no such file"), "\(run.stderr)")
        let json = try StewardProcess.run(rawArguments: ["verify", "--db", database, "--json"])
        #expect(json.status == 66)
        #expect((try json.json()["error"] as? [String: Any])?["message"] as? String == "\(directory.path)/x\\xFF.db: no such file")
    }
}
