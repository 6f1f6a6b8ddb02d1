import Foundation
import Testing
import SQLiteKit
import TestSupport

/// `Connection.deserializing`: a database image in memory the caller owns (verify maps
/// the user's file privately and runs FTS5's check on it).
@Suite struct ConnectionDeserializeTests {
    /// A heap copy of a database file, which records when it is freed.
    final class HeapImage: DatabaseImage {
        let bytes: UnsafeMutableRawBufferPointer
        let onFree: () -> Void

        init(_ data: Data, onFree: @escaping () -> Void = {}) {
            bytes = .allocate(byteCount: data.count, alignment: 16)
            _ = data.copyBytes(to: bytes)
            self.onFree = onFree
        }

        deinit {
            onFree()
            bytes.deallocate()
        }
    }

    final class Flag: @unchecked Sendable { var isSet = false }

    func makeDatabase(in directory: TemporaryDirectory) throws -> Data {
        let path = directory.file("source.db")
        let connection = try Connection(path: path)
        try connection.execute(sql: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);
            INSERT INTO t(v) VALUES ('one'), ('two'), ('three');
            """)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    @Test func readsAndWritesTheImageInPlace() throws {
        let directory = try TemporaryDirectory()
        let data = try makeDatabase(in: directory)
        let image = HeapImage(data)
        let connection = try Connection.deserializing(image)
        #expect(try connection.integer(sql: "SELECT count(*) FROM t") == 3)
        // No file, no lock: the rollback journal is in memory.
        #expect(try connection.journalMode() == "memory")
        try connection.execute(sql: "UPDATE t SET v = 'four' WHERE id = 1")
        #expect(Data(image.bytes) != data, "the change is in the image")
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("source.db"))) == data, "and only there")
    }

    /// `oneThread` opens the connection without its mutex (SQLITE_OPEN_NOMUTEX); by
    /// default SQLite's serialized mode gives it one.
    @Test func oneThreadOpensTheConnectionWithoutItsMutex() throws {
        let directory = try TemporaryDirectory()
        let data = try makeDatabase(in: directory)
        #expect(try Connection.deserializing(HeapImage(data)).isSerialized)
        let single = try Connection.deserializing(HeapImage(data), oneThread: true)
        #expect(!single.isSerialized)
        #expect(try single.integer(sql: "SELECT count(*) FROM t") == 3)
    }

    /// Flags 0: SQLite neither frees nor grows the image; a change that needs another page
    /// fails with SQLITE_FULL and leaves the database as it was.
    @Test func aChangeThatWouldGrowTheImageIsFull() throws {
        let directory = try TemporaryDirectory()
        let image = HeapImage(try makeDatabase(in: directory))
        let connection = try Connection.deserializing(image)
        let error = try #require(throws: SQLiteError.self) {
            try connection.execute(sql: "INSERT INTO t(v) VALUES (?)", bindings: [.text(String(repeating: "x", count: 100_000))])
        }
        #expect(error.code == .full)
        #expect(try connection.integer(sql: "SELECT count(*) FROM t") == 3)
        #expect(try connection.integer(sql: "PRAGMA page_count") * connection.integer(sql: "PRAGMA page_size") == Int64(image.bytes.count))
    }

    @Test func theImageLivesUntilTheConnectionIsClosed() throws {
        let directory = try TemporaryDirectory()
        let freed = Flag()
        var connection: Connection? = try Connection.deserializing(HeapImage(try makeDatabase(in: directory)) { freed.isSet = true })
        var statement: Statement? = try connection?.prepare(sql: "SELECT v FROM t ORDER BY id")
        connection = nil
        #expect(!freed.isSet, "a statement keeps its connection, and so the image")
        #expect(try statement?.step() == true)
        statement = nil
        #expect(freed.isSet)
    }
}
