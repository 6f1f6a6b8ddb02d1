import Foundation
import SQLiteKit
import Testing
import TestSupport

/// `steward inspect` on real files: reports, safety (nothing changed or created), bad input.
@Suite struct InspectCommandTests {
    /// An unprivileged user for permission tests (root ignores file modes).
    static let nobody: UInt32 = 65534

    /// Names and content hashes of every file in a directory.
    static func snapshot(_ directory: TemporaryDirectory) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try directory.contents() {
            result[name] = FileManager.default.contents(atPath: directory.file(name)) ?? Data()
        }
        return result
    }

    @Test func exampleDatabaseText() throws {
        let directory = try TemporaryDirectory()
        try Fixtures.makeExampleDatabase(at: directory.file("tickets.db"))
        let run = try StewardProcess.run(["inspect", directory.file("tickets.db")])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        #expect(run.stdout.contains("ticket      2 rows"))
        #expect(run.stdout.contains("ticket_fts"))
        #expect(run.stdout.contains("tokenize       unicode61 remove_diacritics 2"))
        #expect(run.stdout.contains("content        ticket (external), content_rowid id"))
        #expect(run.stdout.contains("ticket_fts_after_insert  AFTER INSERT on ticket"))
        #expect(run.stdout.contains("ticket_fts_after_delete  AFTER DELETE on ticket"))
        #expect(run.stdout.contains("ticket_fts_after_update  AFTER UPDATE on ticket"))
        #expect(run.stdout.contains("user_version 2"))
        #expect(run.stdout.contains("FTS5 available"))
    }

    @Test func exampleDatabaseJSON() throws {
        let directory = try TemporaryDirectory()
        try Fixtures.makeExampleDatabase(at: directory.file("tickets.db"))
        let run = try StewardProcess.run(["inspect", "--json", directory.file("tickets.db")])
        #expect(run.status == 0)
        let report = try run.json()
        #expect(report["command"] as? String == "inspect")
        let sqlite = try #require(report["sqlite"] as? [String: Any])
        #expect(sqlite["fts5Available"] as? Bool == true)
        #expect((sqlite["version"] as? String)?.hasPrefix("3.") == true)
        let database = try #require(report["database"] as? [String: Any])
        #expect(database["userVersion"] as? Int == 2)
        #expect(database["textEncoding"] as? String == "UTF-8")
        let header = try #require(report["fileHeader"] as? [String: Any])
        #expect(header["userVersion"] as? Int == 2)
        #expect(header["journalMode"] as? String == "rollback")
        #expect(header["pageSize"] as? Int == 4096)
        let tables = try #require(report["tables"] as? [[String: Any]])
        let ticket = try #require(tables.first { $0["name"] as? String == "ticket" })
        #expect(ticket["rowCount"] as? Int == 2)
        let indexes = try #require(report["indexes"] as? [[String: Any]])
        #expect(indexes.contains { $0["name"] as? String == "ticket_status" && ($0["columns"] as? [String]) == ["status", "created_at"] })
        let fts = try #require((report["ftsTables"] as? [[String: Any]])?.first)
        #expect(fts["name"] as? String == "ticket_fts")
        #expect(fts["content"] as? String == "ticket")
        #expect(fts["contentRowID"] as? String == "id")
        #expect(fts["tokenize"] as? String == "unicode61 remove_diacritics 2")
        #expect(fts["columns"] as? [String] == ["title", "body"])
        #expect((fts["missingSyncTriggers"] as? [String])?.isEmpty == true)
        let file = try #require(report["file"] as? [String: Any])
        #expect(file["walExists"] as? Bool == false)
    }

    @Test func missingSyncTriggerIsShown() throws {
        let directory = try TemporaryDirectory()
        let connection = try Fixtures.makeExampleDatabase(at: directory.file("tickets.db"))
        try connection.execute(sql: "DROP TRIGGER ticket_fts_after_update")
        let run = try StewardProcess.run(["inspect", "--json", directory.file("tickets.db")])
        #expect(run.status == 0)
        let fts = try #require((try run.json()["ftsTables"] as? [[String: Any]])?.first)
        #expect(fts["missingSyncTriggers"] as? [String] == ["update"])
        let text = try StewardProcess.run(["inspect", directory.file("tickets.db")])
        #expect(text.stdout.contains("update MISSING"))
    }

    @Test func walDatabaseWithoutWalFilesIsLeftAlone() throws {
        let directory = try TemporaryDirectory()
        do {
            let connection = try Fixtures.makeExampleDatabase(at: directory.file("live.db"), journalMode: "wal")
            #expect(try connection.journalMode() == "wal")
        }
        // The last connection closed: SQLite checkpointed and removed -wal and -shm.
        #expect(try directory.contents() == ["live.db"])
        let before = try Self.snapshot(directory)

        let run = try StewardProcess.run(["inspect", "--json", directory.file("live.db")])
        #expect(run.status == 0)
        let report = try run.json()
        #expect((report["fileHeader"] as? [String: Any])?["journalMode"] as? String == "wal")
        #expect((report["file"] as? [String: Any])?["openedAs"] as? String == "immutable")
        #expect(try Self.snapshot(directory) == before, "no file changed or created")
    }

    @Test(arguments: ["delete", "wal"])
    func readOnlyDirectory(journalMode: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("sub/tickets.db")
        try FileManager.default.createDirectory(atPath: directory.file("sub"), withIntermediateDirectories: true)
        do { try Fixtures.makeExampleDatabase(at: path, journalMode: journalMode) }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory.file("sub"))
        let before = try directory.contents(of: "sub")

        let run = try StewardProcess.run(["inspect", path], asUser: Self.nobody)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.contains("ticket_fts"))
        #expect(try directory.contents(of: "sub") == before)
    }

    /// A zero-byte file is 65, as in every other command.
    @Test func zeroLengthFileExits65() throws {
        let directory = try TemporaryDirectory()
        #expect(FileManager.default.createFile(atPath: directory.file("empty.db"), contents: Data()))
        let run = try StewardProcess.run(["inspect", directory.file("empty.db")])
        #expect(run.status == 65)
        #expect(run.stderr.contains("empty (0 bytes)"))
        let json = try StewardProcess.run(["inspect", "--json", directory.file("empty.db")])
        #expect(json.status == 65)
        #expect(try json.json()["status"] as? String == "error")
        #expect(try directory.contents() == ["empty.db"])
    }

    /// On a live WAL database, `database` is what a reader sees, while
    /// `fileHeader` is the main file's stale header, labelled as such.
    @Test func liveWALDatabaseReportsWhatAReaderSees() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("live.db")
        let writer = try Connection(path: path)
        #expect(try writer.setJournalMode("wal") == "wal")
        try writer.execute(sql: "CREATE TABLE t(x); PRAGMA user_version = 1")
        try withExtendedLifetime(writer) {
            let run = try StewardProcess.run(["inspect", "--json", path])
            #expect(run.status == 0, "\(run.stderr)")
            let report = try run.json()
            let database = try #require(report["database"] as? [String: Any])
            #expect(database["userVersion"] as? Int == 1)
            #expect(database["textEncoding"] as? String == "UTF-8")
            let header = try #require(report["fileHeader"] as? [String: Any])
            #expect(header["userVersion"] as? Int == 0)
            let text = try StewardProcess.run(["inspect", path])
            #expect(text.stdout.contains("user_version 1, application_id 0, schema version"))
            #expect(text.stdout.contains("File header (the main file on disk, without the -wal applied)"))
        }
    }

    @Test func missingPathExits66WithThePath() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("nope.db")
        let run = try StewardProcess.run(["inspect", path])
        #expect(run.status == 66)
        #expect(run.stderr.contains(path))
        #expect(run.stdout.isEmpty)
        #expect(try directory.contents().isEmpty, "nothing created")
    }

    enum BadFile: String, CaseIterable, Sendable {
        case directory, textFile, damagedMagic, damagedPageSize, shortFile
    }

    @Test(arguments: BadFile.allCases)
    func notADatabaseExits65(kind: BadFile) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("input")
        switch kind {
        case .directory:
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        case .textFile:
            try "just some text, not a database\n".write(toFile: path, atomically: false, encoding: .utf8)
        case .damagedMagic, .damagedPageSize:
            try Fixtures.makeExampleDatabase(at: path)
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
            try handle.seek(toOffset: kind == .damagedMagic ? 0 : 16)
            handle.write(Data(kind == .damagedMagic ? Array("SQLite format 4".utf8) : [0x03, 0x00]))
            try handle.close()
        case .shortFile:
            try Data("SQLite format 3\0".utf8).write(to: URL(fileURLWithPath: path))
        }
        let run = try StewardProcess.run(["inspect", path])
        #expect(run.status == 65, "stderr: \(run.stderr)")
        #expect(run.stderr.contains("not a SQLite database"))
        #expect(run.stderr.contains(path))
        #expect(!run.stderr.contains("Fatal error"))
    }

    @Test func unreadableFileIsAClearError() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("secret.db")
        try Fixtures.makeExampleDatabase(at: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: path)
        let run = try StewardProcess.run(["inspect", path], asUser: Self.nobody)
        #expect(run.status == 66)
        #expect(run.stderr.contains("cannot read \(path)"))
        #expect(run.stderr.contains("Permission denied"))
    }

    @Test func rowDataNeverAppearsInOutput() throws {
        let directory = try TemporaryDirectory()
        let marker = "zq-private-\(UUID().uuidString)"
        let path = directory.file("private.db")
        let connection = try Fixtures.makeExampleDatabase(at: path, titles: ["\(marker) title"])
        try connection.execute(sql: "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT DEFAULT 'x')")
        try connection.execute(sql: "INSERT INTO notes(body) VALUES (?)", bindings: [.text(marker)])
        for arguments in [["inspect", path], ["inspect", "--json", path]] {
            let run = try StewardProcess.run(arguments)
            #expect(run.status == 0)
            #expect(!run.allOutput.contains(marker))
            #expect(!run.allOutput.contains("zq-private"))
        }
    }

    @Test func controlCharactersInNamesAreNotPrinted() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("odd.db")
        try Connection(path: path).execute(sql: "CREATE TABLE \"evil\u{1B}[2Jname\"(x); CREATE TABLE \"del\u{7F}c1\u{85}\"(y)")
        let run = try StewardProcess.run(["inspect", path])
        #expect(run.status == 0)
        #expect(!run.stdout.contains("\u{1B}"))
        #expect(run.stdout.contains("evil\\x1B[2Jname"), "escaped as steward(1), Names in output, says")
        #expect(run.stdout.contains("del\\x7Fc1\\x85"))
        let json = try StewardProcess.run(["inspect", "--json", path])
        let names = (try json.json()["tables"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(names == ["del\u{7F}c1\u{85}", "evil\u{1B}[2Jname"], "JSON keeps names exactly")
        #expect(!json.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0.value == 0x7F || (0x80...0x9F).contains($0.value) })
    }
}
