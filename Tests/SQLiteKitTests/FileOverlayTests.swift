import Foundation
import Testing
@testable import SQLiteKit
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `Connection.overlaying`: a database file read in place, every page written kept in
/// memory (verify runs FTS5's check, an INSERT, on the user's file this way).
@Suite struct FileOverlayTests: WorkspaceSuite {
    let workspace: Workspace
    var path: String { database }

    init() throws {
        workspace = try Workspace(database: "source.db", making: [])
        let connection = try Connection(path: path)
        try connection.execute(sql: """
            PRAGMA page_size = 4096;
            CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 2000)
            INSERT INTO t(v) SELECT printf('row %d %s', x, hex(randomblob(40))) FROM n;
            """)
    }

    func openOverlay(maximumWrittenBytes: Int64 = 64 << 20) throws -> (Connection, FileOverlay, Int32) {
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0)
        var info = stat()
        #expect(fstat(descriptor, &info) == 0)
        let overlay = FileOverlay(descriptor: descriptor, size: Int64(info.st_size), maximumWrittenBytes: maximumWrittenBytes)
        return (try Connection.overlaying(overlay), overlay, descriptor)
    }

    @Test func writesStayInMemoryAndNothingIsCreatedBesideTheFile() throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let (connection, overlay, descriptor) = try openOverlay()
        defer { close(descriptor) }
        #expect(try connection.journalMode() == "memory")
        #expect(try connection.integer(sql: "SELECT count(*) FROM t") == 2000)
        try connection.execute(sql: "BEGIN; DELETE FROM t WHERE id % 2 = 0; CREATE TABLE more(x); INSERT INTO more VALUES (1)")
        #expect(try connection.integer(sql: "SELECT count(*) FROM t") == 1000)
        try connection.execute(sql: "ROLLBACK")
        #expect(try connection.integer(sql: "SELECT count(*) FROM t") == 2000)
        try connection.execute(sql: "UPDATE t SET v = 'changed' WHERE id = 1; CREATE TEMP TABLE scratch AS SELECT * FROM t")
        #expect(try connection.scalar(sql: "SELECT v FROM t WHERE id = 1") == .text("changed"))
        #expect(try connection.integer(sql: "SELECT count(*) FROM scratch") == 2000)
        #expect(try connection.integrityCheck() == ["ok"])
        #expect(overlay.writtenBytes > 0)
        #expect(overlay.readProblem == nil)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the file is unchanged")
        #expect(try directory.contents() == ["source.db"], "no journal, no WAL beside it")
    }

    /// A file cut short by another program while it is read: the read is an I/O error on
    /// the statement, recorded, and never a signal (a memory map of the file would raise
    /// SIGBUS here).
    @Test func aFileCutShortIsAReadErrorNotASignal() throws {
        let (connection, overlay, descriptor) = try openOverlay()
        defer { close(descriptor) }
        #expect(try connection.integer(sql: "SELECT count(*) FROM sqlite_schema") == 1)
        #expect(truncate(path, 4096) == 0)
        #expect(throws: SQLiteError.self) { try connection.integer(sql: "SELECT count(*) FROM t WHERE v LIKE '%x%'") }
        do {
            _ = try connection.integer(sql: "SELECT sum(length(v)) FROM t")
        } catch let error as SQLiteError {
            #expect(error.code == .ioError, "\(error)")
        }
        guard case .cutShort(let offset) = overlay.readProblem else {
            Issue.record("no read problem recorded: \(String(describing: overlay.readProblem))")
            return
        }
        #expect(offset >= 4096)
    }

    /// More written than the overlay keeps is SQLITE_FULL (at the commit, when the pages
    /// are written), and the file is left as it was.
    @Test func writingMoreThanTheOverlayKeepsIsFull() throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let (connection, overlay, descriptor) = try openOverlay(maximumWrittenBytes: 16 * 4096)
        defer { close(descriptor) }
        #expect {
            try connection.execute(sql: "UPDATE t SET v = v || hex(randomblob(100))")
        } throws: { error in
            (error as? SQLiteError)?.code == .full
        }
        #expect(overlay.writtenBytes <= 16 * 4096)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// Reads at any offset and length, across the read-ahead window's edges, give the
    /// file's bytes, and written pages come back as written.
    @Test func readsAcrossWindowsGiveTheFilesBytes() throws {
        let (connection, overlay, descriptor) = try openOverlay()
        defer { close(descriptor) }
        _ = connection
        let file = try Data(contentsOf: URL(fileURLWithPath: path))
        let window = FileOverlay.readAhead
        try #require(file.count > 2 * window + 200)
        for (offset, count) in [(0, 100), (window - 10, 20), (window - 4096, 8192), (window + 7, window + 100), (file.count - 50, 50)] {
            var bytes = [UInt8](repeating: 0xAA, count: count)
            let code = bytes.withUnsafeMutableBytes { overlay.read(into: $0.baseAddress!, count: count, at: Int64(offset)) }
            #expect(code == 0, "offset \(offset)")
            #expect(Data(bytes) == file.subdata(in: offset..<offset + count), "offset \(offset)")
        }
    }
}
