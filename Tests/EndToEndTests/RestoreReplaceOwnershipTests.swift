import Foundation
import SQLiteKit
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `restore --replace` keeps the owner, group and mode of the database it replaces
/// (issue 25, item 8): the application that owns it must open it after a rollback.
@Suite struct RestoreReplaceOwnershipTests {
    static let nobody: UInt32 = 65534
    static let isRoot = getuid() == 0
    let directory: TemporaryDirectory
    var migrations: String { Fixtures.exampleMigrations.path }

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// The application's directory, writable by nobody, with its database at version 1,
    /// migrated to 2 with `--backup-dir`: returns the database and the bundle.
    func makeMigratedDatabase(journalMode: String = "delete") throws -> (path: String, bundle: String) {
        let app = directory.file("app")
        try FileManager.default.createDirectory(atPath: app, withIntermediateDirectories: false)
        _ = chmod(app, 0o777)
        let path = app + "/tickets.db"
        do {
            let connection = try Fixtures.makeExampleSetDatabase(at: path, titles: ["Printer is on fire"])
            _ = try connection.setJournalMode(journalMode)
        }
        let bundles = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
        let run = try StewardProcess.run(["migrate", "--migrations", migrations, "--json", "--backup-dir", bundles, "--db", path])
        #expect(run.status == 0, "\(run.allOutput)")
        let backup = try #require(try run.json()["bundle"] as? [String: Any])
        return (path, try #require(backup["path"] as? String))
    }

    static func ownership(_ path: String) -> (owner: UInt32, group: UInt32, mode: UInt32)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (info.st_uid, info.st_gid, info.st_mode & 0o7777)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let owner: UInt32?
        let mode: UInt32
        let journalMode: String
        var testDescription: String { "\(owner.map { "owner \($0), " } ?? "")mode \(String(mode, radix: 8)), \(journalMode)" }
    }

    static let cases: [Case] = [
        Case(owner: nobody, mode: 0o664, journalMode: "delete"),
        Case(owner: nobody, mode: 0o660, journalMode: "wal"),
        Case(owner: nil, mode: 0o664, journalMode: "delete"),
        Case(owner: nil, mode: 0o640, journalMode: "wal"),
    ]

    @Test(.enabled(if: isRoot, "chown to another user needs root"), arguments: cases)
    func theNewDatabaseKeepsOwnerGroupAndModeOfTheReplacedOne(_ item: Case) throws {
        let (path, bundle) = try makeMigratedDatabase(journalMode: item.journalMode)
        if let owner = item.owner { #expect(chown(path, owner, owner) == 0) }
        #expect(chmod(path, mode_t(item.mode)) == 0)
        let before = try #require(Self.ownership(path))
        #expect(before.mode == item.mode)

        let kept = directory.file("kept")
        try FileManager.default.createDirectory(atPath: kept, withIntermediateDirectories: false)
        let run = try StewardProcess.run(["restore", bundle, "--replace", path, "--keep-replaced", kept])
        #expect(run.status == 0, "\(run.allOutput)")
        #expect(try Connection(path: path, mode: .readOnly).userVersion() == 1, "rolled back")
        let after = try #require(Self.ownership(path))
        #expect(after.owner == before.owner && after.group == before.group && after.mode == before.mode, "\(after) instead of \(before)")
        let keptName = try #require(try FileManager.default.contentsOfDirectory(atPath: kept).first)
        let old = try #require(Self.ownership(kept + "/" + keptName))
        #expect(old.owner == before.owner && old.group == before.group && old.mode == before.mode)
        // Nothing beside it belongs to anyone else.
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.file("app")) {
            let entry = try #require(Self.ownership(directory.file("app/\(name)")))
            #expect(entry.owner == before.owner, "\(name) belongs to \(entry.owner)")
        }
        if item.owner == Self.nobody {
            // The application, running as its own user, writes to its database.
            let write = try systemTool(["setpriv", "--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups",
                                        "sqlite3", path, "INSERT INTO ticket(title, body) VALUES ('after the rollback', 'b')"])
            #expect(write.status == 0, "\(write.output)")
        }
    }

    /// Not root, and the database belongs to another user: the restored file could not be
    /// given to that user, so the run refuses before it changes anything (73).
    @Test(.enabled(if: isRoot, "needs a file of another user than the one Steward runs as"))
    func aDatabaseThisUserCannotGiveAwayIsRefusedBeforeAnythingChanges() throws {
        let (path, bundle) = try makeMigratedDatabase()
        _ = chmod(path, 0o666)
        _ = chmod(bundle, 0o644)
        _ = chmod(directory.file("bundles"), 0o755)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let entries = try FileManager.default.contentsOfDirectory(atPath: directory.file("app")).sorted()
        let run = try StewardProcess.run(["restore", bundle, "--replace", path, "--discard-replaced"], asUser: Self.nobody)
        #expect(run.status == 73, "\(run.allOutput)")
        #expect(run.stderr.contains("keeping its owner and group"), "\(run.stderr)")
        #expect(run.stderr.contains("nothing was replaced"), "\(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("app")).sorted() == entries)
        #expect(Self.ownership(path)?.owner == 0)
    }
}
