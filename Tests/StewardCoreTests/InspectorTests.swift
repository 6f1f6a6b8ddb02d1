import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

@Suite struct InspectorTests {
    private func inspectionError(_ path: String) throws -> StewardError {
        try #require(throws: StewardError.self) { try Inspector().inspect(path: path) }
    }

    private func fileBytes(_ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path))
    }

    // MARK: - The example database

    @Test func inspectsTheExampleDatabase() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("example.sqlite")
        try Fixtures.makeExampleDatabase(at: path, titles: ["one", "two", "three"])

        let report = try Inspector().inspect(path: path)
        #expect(report.command == "inspect")
        #expect(report.kind == .database)
        #expect(report.database.path == path)
        #expect(report.stewardVersion == StewardVersion.current)
        #expect(report.sqlite.version == SQLiteLibrary.version)
        #expect(report.sqlite.fts5Available)
        #expect(report.journalMode == "delete")
        #expect(report.warnings.isEmpty)

        let size = try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(report.file.sizeBytes == Int64(size))
        #expect(!report.file.isEmpty)
        #expect(report.file.openedAs == .readOnly)
        #expect(!report.file.walExists && !report.file.shmExists && !report.file.journalExists)

        #expect(report.database.userVersion == 2)
        #expect(report.database.textEncoding == "UTF-8")
        #expect(report.database.pageSize * report.database.pageCount == size)
        #expect(report.database.autoVacuum == "none")
        let header = report.fileHeader
        #expect(header.userVersion == 2)
        #expect(header.journalMode == "rollback")
        #expect(header.textEncoding == "UTF-8")
        #expect(header.pageSize * header.pageCount == size)
        #expect(header.writeVersion == 1 && header.readVersion == 1)

        let ticket = try #require(report.tables.first { $0.name == "ticket" })
        #expect(ticket.rowCount == 3)
        #expect(ticket.type == .table)
        #expect(ticket.columnCount == 6)
        #expect(ticket.error == nil)
        let ftsTable = try #require(report.tables.first { $0.name == "ticket_fts" })
        #expect(ftsTable.type == .virtual)
        #expect(ftsTable.rowCount == nil)
        #expect(report.tables.first { $0.name == "ticket_fts_data" }?.type == .shadow)

        // Besides ticket_status, only the primary keys of FTS5's WITHOUT ROWID shadow tables.
        #expect(report.indexes.filter { $0.origin == .createIndex }.map(\.name) == ["ticket_status"])
        #expect(report.indexes.filter { $0.origin != .createIndex }.map(\.table) == ["ticket_fts_config", "ticket_fts_idx"])
        #expect(report.indexes.filter { $0.origin != .createIndex }.allSatisfy { $0.origin == .primaryKey && $0.isUnique })
        #expect(report.triggers.map(\.name) == [
            "ticket_fts_after_delete", "ticket_fts_after_insert", "ticket_fts_after_update",
        ])
        #expect(report.triggers.allSatisfy { $0.table == "ticket" && $0.timing == "AFTER" })
        #expect(report.views.isEmpty)

        #expect(report.ftsTables.count == 1)
        let fts = try #require(report.ftsTables.first)
        #expect(fts.name == "ticket_fts")
        #expect(fts.columns == ["title", "body"])
        #expect(fts.contentMode == "external")
        #expect(fts.content == "ticket")
        #expect(fts.contentRowID == "id")
        #expect(fts.tokenize == "unicode61 remove_diacritics 2")
        #expect(fts.options["content"] == "ticket")
        #expect(fts.syncTriggers?.insert == "ticket_fts_after_insert")
        #expect(fts.missingSyncTriggers.isEmpty)
    }

    @Test func missingSyncTriggerIsAWarning() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("example.sqlite")
        try Fixtures.makeExampleDatabase(at: path).execute(sql: "DROP TRIGGER ticket_fts_after_delete")
        let report = try Inspector().inspect(path: path)
        #expect(report.ftsTables.first?.missingSyncTriggers == ["delete"])
        #expect(report.warnings == ["ticket_fts has no delete sync trigger on ticket"])
    }

    @Test func inspectingChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("example.sqlite")
        try Fixtures.makeExampleDatabase(at: path)
        let before = try fileBytes(path)
        let modified = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        _ = try Inspector().inspect(path: path)
        #expect(try fileBytes(path) == before)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date == modified)
        #expect(try directory.contents() == ["example.sqlite"])
    }

    @Test func pathWithURIReservedCharactersIsReadAndReportedAsGiven() throws {
        let directory = try TemporaryDirectory()
        try Fixtures.makeExampleDatabase(at: directory.file("a b#?%é.sqlite"))
        let report = try Inspector().inspect(path: directory.file("a b#?%é.sqlite"))
        #expect(report.database.path == directory.file("a b#?%é.sqlite"))
        #expect(report.tables.first { $0.name == "ticket" }?.rowCount == 2)
    }

    @Test func tablesWithOddNamesAreCounted() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("odd.sqlite")
        let name = "we\"ird [name] 'x' 客户"
        try Connection(path: path).execute(sql: """
            CREATE TABLE \(Connection.quote(identifier: name))(a);
            INSERT INTO \(Connection.quote(identifier: name)) VALUES (1), (2), (3);
            """)
        let report = try Inspector().inspect(path: path)
        let table = try #require(report.tables.first)
        #expect(table.name == name)
        #expect(table.rowCount == 3)
        #expect(table.error == nil)
    }

    // MARK: - WAL

    @Test func walDatabaseWithoutItsWALIsReadImmutableAndLeavesNoFiles() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("wal.sqlite")
        do {
            let connection = try Fixtures.makeExampleDatabase(at: path, journalMode: "wal")
            #expect(try connection.journalMode() == "wal")
        }
        // The last connection checkpointed and removed its -wal and -shm.
        #expect(try directory.contents() == ["wal.sqlite"])

        let report = try Inspector().inspect(path: path)
        #expect(report.file.openedAs == .immutable)
        #expect(report.fileHeader.journalMode == "wal")
        #expect(report.fileHeader.writeVersion == 2)
        #expect(!report.file.walExists)
        #expect(report.tables.first { $0.name == "ticket" }?.rowCount == 2)
        #expect(try directory.contents() == ["wal.sqlite"])
    }

    @Test func liveWALDatabaseIsReadWithItsWAL() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("live.sqlite")
        let writer = try Fixtures.makeExampleDatabase(at: path, journalMode: "wal")
        try writer.execute(sql: "INSERT INTO ticket(title) VALUES ('only in the wal')")
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))

        // The writer must stay open: closing it would checkpoint and remove the -wal.
        let report = try withExtendedLifetime(writer) { try Inspector().inspect(path: path) }
        #expect(report.file.openedAs == .readOnly)
        #expect(report.file.walExists)
        #expect(report.file.shmExists)
        #expect(report.journalMode == "wal")
        #expect(report.tables.first { $0.name == "ticket" }?.rowCount == 3)
        #expect(report.warnings.isEmpty)
    }

    /// The main file's header of a live WAL database is stale; what a
    /// reader sees comes from the connection, the header is reported as the file's.
    @Test func liveWALDatabaseReportsWhatAReaderSeesBesideTheStaleHeader() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("live.sqlite")
        let writer = try Connection(path: path)
        #expect(try writer.setJournalMode("wal") == "wal")
        try writer.execute(sql: "CREATE TABLE t(x); PRAGMA user_version = 7; PRAGMA application_id = 42")
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))

        let report = try withExtendedLifetime(writer) { try Inspector().inspect(path: path) }
        #expect(report.file.openedAs == .readOnly)
        #expect(report.database.userVersion == 7)
        #expect(report.database.applicationID == 42)
        #expect(report.database.textEncoding == "UTF-8")
        #expect(report.database.pageCount >= 2)
        #expect(report.database.schemaVersion >= 1)
        // The header on disk does not have the commits the -wal holds.
        #expect(report.fileHeader.userVersion == 0)
        #expect(report.fileHeader.journalMode == "wal")
    }

    @Test func leftoverJournalIsAWarning() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("db.sqlite")
        try Fixtures.makeExampleDatabase(at: path)
        _ = FileManager.default.createFile(atPath: path + "-journal", contents: Data())
        let report = try Inspector().inspect(path: path)
        #expect(report.file.journalExists)
        #expect(report.warnings.contains { $0.contains("-journal") })
    }

    // MARK: - Files that are not databases

    /// SQLite would take a zero-byte file for an empty database, but
    /// every command refuses it alike (only `migrate --create` accepts it).
    @Test func emptyFileIsRefusedAsBadInput() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("empty.sqlite")
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        let error = try #require(throws: StewardError.self) { try Inspector().inspect(path: path) }
        #expect(error.kind == .badInput)
        #expect(error.message.contains("empty (0 bytes)"))
        #expect(try directory.contents() == ["empty.sqlite"])
    }

    @Test(arguments: ["absent.sqlite", "missing-dir/absent.sqlite"])
    func missingPathIsNotFound(_ name: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file(name)
        let error = try inspectionError(path)
        #expect(error.kind == .notFound)
        #expect(error.message.contains(path))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func pathThroughAFileIsNotFound() throws {
        let directory = try TemporaryDirectory()
        _ = FileManager.default.createFile(atPath: directory.file("plain"), contents: Data("x".utf8))
        #expect(try inspectionError(directory.file("plain/db.sqlite")).kind == .notFound)
    }

    @Test func directoryIsBadInput() throws {
        let directory = try TemporaryDirectory()
        let error = try inspectionError(directory.path)
        #expect(error.kind == .badInput)
        #expect(error.message.contains(directory.path))
        #expect(error.message.contains("directory"))
    }

    @Test(arguments: [
        "hello",
        String(repeating: "This is a text file, not a database. ", count: 20),
        "SQLite format 3",
    ])
    func textFileIsBadInput(_ text: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("notes.txt")
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        let error = try inspectionError(path)
        #expect(error.kind == .badInput)
        #expect(error.message.hasPrefix("not a SQLite database: \(path)"))
        #expect(try directory.contents() == ["notes.txt"])
    }

    @Test func damagedHeaderIsBadInput() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("damaged.sqlite")
        try Fixtures.makeExampleDatabase(at: path)
        var bytes = try fileBytes(path)
        bytes[16] = 0x03  // page size 768
        bytes[17] = 0x00
        try bytes.write(to: URL(fileURLWithPath: path))
        let error = try inspectionError(path)
        #expect(error.kind == .badInput)
        #expect(error.message.contains("768"))
    }

    @Test func truncatedDatabaseIsBadInput() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("truncated.sqlite")
        try Fixtures.makeExampleDatabase(at: path)
        let bytes = try fileBytes(path)
        try bytes.prefix(100).write(to: URL(fileURLWithPath: path))
        #expect(try inspectionError(path).kind == .badInput)
    }

    @Test func specialFileIsBadInput() throws {
        let error = try inspectionError("/dev/null")
        #expect(error.kind == .badInput)
        #expect(error.message.contains("not a regular file"))
    }

    // MARK: - Privacy

    @Test func reportHoldsNoRowData() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("private.sqlite")
        let secret = "PLANTED-\(UUID().uuidString)"
        let connection = try Fixtures.makeExampleDatabase(at: path, titles: ["harmless", "客户 \(secret) 🔥"])
        try connection.execute(sql: """
            CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT);
            CREATE VIEW recent AS SELECT text FROM note;
            """)
        try connection.execute(sql: "INSERT INTO note(text) VALUES (?)", bindings: [.text(secret)])
        try connection.execute(sql: "UPDATE ticket SET body = ? WHERE id = 1", bindings: [.text(secret)])
        // The secret is really in the file, so its absence from the report means something.
        #expect(try fileBytes(path).range(of: Data(secret.utf8)) != nil)

        let report = try Inspector().inspect(path: path)
        #expect(report.tables.first { $0.name == "note" }?.rowCount == 1)
        let json = try JSONEncoder().encode(report)
        #expect(json.range(of: Data(secret.utf8)) == nil)
        #expect(!String(decoding: json, as: UTF8.self).contains(secret))
        #expect(!"\(report)".contains(secret))
    }

    @Test func reportIsOneJSONObjectWithTheExpectedKeys() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("example.sqlite")
        try Fixtures.makeExampleDatabase(at: path)
        let json = try JSONEncoder().encode(try Inspector().inspect(path: path))
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect((object["database"] as? [String: Any])?["path"] as? String == path)
        for key in ["command", "stewardVersion", "kind", "sqlite", "file", "database", "fileHeader", "journalMode",
                    "tables", "indexes", "triggers", "views", "ftsTables", "warnings"] {
            #expect(object[key] != nil, "missing \(key)")
        }
    }

    @Test func libraryFactsKeepInterestingOptionsOnly() {
        let facts = Inspector.libraryFacts()
        #expect(facts.version == SQLiteLibrary.version)
        #expect(facts.sourceID == SQLiteLibrary.sourceID)
        #expect(facts.fts5Available)
        #expect(facts.compileOptions.allSatisfy { option in
            Inspector.interestingOptionPrefixes.contains { option.hasPrefix($0) }
        })
        #expect(Set(facts.compileOptions).isSubset(of: Set(SQLiteLibrary.compileOptions)))
    }
}
