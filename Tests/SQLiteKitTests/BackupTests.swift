import Foundation
import Testing
import SQLiteKit
import TestSupport

@Suite struct BackupTests {
    /// A file database of several pages: 200 rows of 1 KiB blobs on 1 KiB pages.
    private func makeSource(in directory: TemporaryDirectory) throws -> Connection {
        let source = try Connection(path: directory.file("source.sqlite"))
        try source.execute(sql: """
            PRAGMA page_size = 1024;
            CREATE TABLE payload(id INTEGER PRIMARY KEY, bytes BLOB NOT NULL);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
            INSERT INTO payload(id, bytes) SELECT i, randomblob(1024) FROM n;
            PRAGMA user_version = 9;
            """)
        return source
    }

    @Test func steppedBackupCopiesEveryPageWithProgress() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(in: directory)
        let sourcePages = try source.integer(sql: "PRAGMA page_count")
        #expect(sourcePages > 200)

        let destination = try Connection.inMemory()
        let backup = try Backup(from: source, to: destination)
        #expect(backup.source === source)
        #expect(backup.destination === destination)

        var remaining: [Int] = []
        var steps = 0
        var done = false
        while !done {
            done = try backup.step(pages: 50)
            steps += 1
            remaining.append(backup.remainingPages)
            #expect(backup.totalPages == Int(sourcePages))
            #expect(steps < 100, "the backup does not make progress")
            if steps >= 100 { break }
        }
        try backup.finish()

        #expect(steps == (Int(sourcePages) + 49) / 50)
        #expect(remaining.last == 0)
        #expect(remaining == remaining.sorted(by: >))
        #expect(remaining.first == Int(sourcePages) - 50)

        #expect(try destination.integer(sql: "SELECT count(*) FROM payload") == 200)
        #expect(try destination.userVersion() == 9)
        #expect(try destination.integrityCheck() == ["ok"])
        #expect(try destination.rows(sql: "SELECT id, hex(bytes) FROM payload ORDER BY id")
            == source.rows(sql: "SELECT id, hex(bytes) FROM payload ORDER BY id"))
    }

    @Test func stepWithMinusOneCopiesEverythingAtOnce() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(in: directory)
        let destination = try Connection.inMemory()
        let backup = try Backup(from: source, to: destination)
        #expect(try backup.step(pages: -1))
        #expect(backup.remainingPages == 0)
        try backup.finish()
        // finish is idempotent.
        try backup.finish()
        #expect(try destination.integer(sql: "SELECT count(*) FROM payload") == 200)
    }

    @Test func backupToConvenienceCopiesAFileIntoAnotherFile() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(in: directory)
        let copyPath = directory.file("copy.sqlite")
        let destination = try Connection(path: copyPath)
        try source.backup(to: destination)

        let reopened = try Connection(path: copyPath, mode: .readOnly)
        #expect(try reopened.integer(sql: "SELECT count(*) FROM payload") == 200)
        #expect(try reopened.userVersion() == 9)
        #expect(try reopened.integrityCheck() == ["ok"])
        #expect(try reopened.rows(sql: "SELECT sum(length(bytes)) FROM payload") == [[.integer(200 * 1024)]])
    }

    @Test func backupFromMemoryIntoAFile() throws {
        let directory = try TemporaryDirectory()
        let memory = try Connection.inMemory()
        try memory.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES ('中文'), ('🔥')")
        let file = try Connection(path: directory.file("out.sqlite"))
        try memory.backup(to: file)
        #expect(try Connection(path: directory.file("out.sqlite")).rows(sql: "SELECT x FROM t ORDER BY rowid")
            == [["中文"], ["🔥"]])
    }

    @Test func backupOntoItselfIsRefused() throws {
        let connection = try Connection.inMemory()
        let error = try #require(throws: SQLiteError.self) { try Backup(from: connection, to: connection) }
        #expect(error.extendedCode == ResultCode.error)
    }

    @Test func unknownSchemaNameIsRefused() throws {
        let source = try Connection.inMemory()
        let destination = try Connection.inMemory()
        let error = try #require(throws: SQLiteError.self) {
            try Backup(from: source, to: destination, sourceName: "nope")
        }
        #expect(error.extendedCode == ResultCode.error)
    }

    @Test func destinationInATransactionIsRefused() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(in: directory)
        let destination = try Connection(path: directory.file("dest.sqlite"))
        try destination.execute(sql: "CREATE TABLE t(x); BEGIN; INSERT INTO t VALUES (1)")
        // > If the destination database is in use by an open read or write transaction
        // > on the destination connection, sqlite3_backup_init fails.
        let error = try #require(throws: SQLiteError.self) { try Backup(from: source, to: destination) }
        #expect(error.extendedCode == ResultCode.error)
        destination.rollbackIfNeeded()
    }

    @Test func lockedSourceThrowsBusyAndTheBackupCanStepAgain() throws {
        let directory = try TemporaryDirectory()
        let source = try makeSource(in: directory)
        source.setBusyTimeout(milliseconds: 0)
        let writer = try Connection(path: directory.file("source.sqlite"))
        try writer.execute(sql: "BEGIN EXCLUSIVE; INSERT INTO payload(id, bytes) VALUES (1000, x'00')")

        let destination = try Connection.inMemory()
        let backup = try Backup(from: source, to: destination)
        let error = try #require(throws: SQLiteError.self) { try backup.step(pages: 10) }
        #expect(error.isBusy)

        try writer.execute(sql: "COMMIT")
        #expect(try backup.step(pages: -1))
        try backup.finish()
        #expect(try destination.integer(sql: "SELECT count(*) FROM payload") == 201)
    }
}
