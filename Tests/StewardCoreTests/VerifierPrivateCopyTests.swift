import Foundation
import SQLiteKit
@testable import StewardCore
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
@testable import StewardBase
#endif

/// The private copy verify's FTS5 check and assertions run on, and the private mapping
/// that spares a rollback-journal database the copy when only FTS5's check needs one
/// (issue 14).
@Suite struct VerifierPrivateCopyTests {
    /// Hardened as any file from elsewhere, cell-size checks on, and not memory-mapped:
    /// with a map, every page fetched is checked again (a mapped page is not kept in
    /// the page cache), which made FTS5's check on the copy half as slow again.
    @Test func theCopyIsHardenedAndNotMemoryMapped() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("tickets.db")
        _ = try Fixtures.makeExampleDatabase(at: path)
        let verifier = Verifier(options: .init(databasePath: path), cancellation: Cancellation(), progress: { _ in })
        let source = try DatabaseFile.openReadOnly(path: path, header: try DatabaseFile(path: path).header())
        let made = try verifier.makeCopy(of: source, path: path, header: try DatabaseFile(path: path).header(),
                                         in: directory.path, held: HeldDescriptors())
        defer { made.workspace?.remove() }
        let copy = try #require(made.copy, "\(String(describing: made.failure))")
        #expect(try copy.integer(sql: "PRAGMA mmap_size") == 0)
        #expect(try copy.integer(sql: "PRAGMA cell_size_check") == 1)
        #expect(copy.isDefensive)
        // One thread at a time: FTS5's check would enter a mutex for every page it reads.
        #expect(!copy.isSerialized)
        #expect(try copy.integer(sql: "SELECT count(*) FROM ticket") > 0)
    }

    /// The file read in place is hardened as the copy is, and what is written through it
    /// never reaches the file. (`PRAGMA mmap_size` returns no row on it: the overlay VFS
    /// does not answer SQLITE_FCNTL_MMAP_SIZE; pages are read into the page cache.)
    @Test func theFileReadInPlaceIsHardenedAndPrivate() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("tickets.db")
        _ = try Fixtures.makeExampleDatabase(at: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let verifier = Verifier(options: .init(databasePath: path), cancellation: Cancellation(), progress: { _ in })
        let source = try DatabaseFile.openReadOnly(path: path, header: try DatabaseFile(path: path).header())
        let held = HeldDescriptors()
        defer { held.closeAll() }
        try source.execute(sql: "BEGIN")
        _ = try source.integer(sql: "SELECT count(*) FROM sqlite_schema")
        do {
            let opened = try #require(try verifier.openInPlace(of: source, path: path, held: held))
            let mapped = opened.connection
            #expect(try mapped.integer(sql: "PRAGMA cell_size_check") == 1)
            #expect(mapped.isDefensive)
            #expect(!mapped.isSerialized, "FTS5's check on it would enter a mutex for every page")
            #expect(try mapped.journalMode() == "memory")
            #expect(try mapped.integer(sql: "SELECT count(*) FROM ticket") == (try source.integer(sql: "SELECT count(*) FROM ticket")))
            try FTS5IntegrityCheck.check("ticket_fts", rank: 1, on: mapped)
            try mapped.execute(sql: "PRAGMA user_version = 4242")
            #expect(try mapped.userVersion() == 4242)
            #expect(opened.overlay.writtenBytes > 0)
            #expect(Verifier.changeWhileRead(opened.overlay, path: path) == nil)
        }
        source.rollbackIfNeeded()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try directory.contents() == ["tickets.db"], "no journal beside it")
    }

    /// A file read in place is read at 64-bit offsets: a sparse file just over 4 GiB
    /// whose one table's root is its last page; reading and writing that page goes past
    /// 4 GiB, and nothing reaches the file.
    @Test func aFileLargerThanFourGiBIsReadInPlaceWhole() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("sparse.db")
        let pageSize = 4096
        let pages = (4 << 30) / pageSize + 16
        try Connection(path: path).execute(sql: "PRAGMA page_size = \(pageSize); CREATE TABLE far(x)")
        try Connection(path: path).execute(sql: "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET rootpage = \(pages) WHERE name = 'far'")
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        // An empty table leaf page (0x0D, no cells, content area at the page's end), last.
        var leaf = Data(count: pageSize)
        leaf[0] = 0x0D
        leaf[5] = UInt8(pageSize >> 8)
        try file.seek(toOffset: UInt64((pages - 1) * pageSize))
        try file.write(contentsOf: leaf)
        // The header's page count (offset 28, big-endian), valid as long as the change
        // counter (24) equals version-valid-for (92), which SQLite's last write left so.
        try file.seek(toOffset: 28)
        try file.write(contentsOf: Data([UInt8(pages >> 24 & 0xFF), UInt8(pages >> 16 & 0xFF), UInt8(pages >> 8 & 0xFF), UInt8(pages & 0xFF)]))
        try file.close()

        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let overlay = FileOverlay(descriptor: descriptor, size: Int64(pages * pageSize))
        let connection = try Connection.overlaying(overlay)
        try connection.harden()
        #expect(try connection.integer(sql: "PRAGMA page_count") == Int64(pages))
        #expect(try connection.integer(sql: "SELECT count(*) FROM far") == 0)
        try connection.execute(sql: "INSERT INTO far VALUES (1)")
        #expect(try connection.integer(sql: "SELECT count(*) FROM far") == 1)
        var stored = [UInt8](repeating: 0xFF, count: 8)
        #expect(pread(descriptor, &stored, 8, off_t((pages - 1) * pageSize)) == 8)
        #expect(stored == [0x0D, 0, 0, 0, 0, UInt8(pageSize >> 8), 0, 0], "the file's last page is still empty")
        #expect(overlay.readProblem == nil)
    }
}
