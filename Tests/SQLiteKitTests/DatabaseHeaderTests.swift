import Foundation
import Testing
import SQLiteKit
import TestSupport

@Suite struct DatabaseHeaderTests {
    private func headerBytes(of path: String) throws -> [UInt8] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return Array(data.prefix(DatabaseHeader.size))
    }

    /// The header of a freshly made example database, to damage in the tests.
    private func validHeader() throws -> [UInt8] {
        let directory = try TemporaryDirectory()
        let path = directory.file("example.sqlite")
        try Fixtures.makeExampleDatabase(at: path)
        return try headerBytes(of: path)
    }

    private func header(_ bytes: [UInt8], changing changes: [Int: UInt8]) -> [UInt8] {
        var bytes = bytes
        for (offset, value) in changes { bytes[offset] = value }
        return bytes
    }

    // MARK: - Real files

    @Test func parsesTheHeaderOfARealDatabase() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("example.sqlite")
        let connection = try Fixtures.makeExampleDatabase(at: path)
        try connection.execute(sql: "PRAGMA application_id = 1398035020")
        let pageSize = try connection.integer(sql: "PRAGMA page_size")
        let pageCount = try connection.integer(sql: "PRAGMA page_count")
        let schemaVersion = try connection.integer(sql: "PRAGMA schema_version")

        let header = try DatabaseHeader(bytes: try headerBytes(of: path))
        #expect(header.pageSize == Int(pageSize))
        #expect(header.pageCount == UInt32(pageCount))
        #expect(header.isPageCountValid)
        #expect(header.writeVersion == 1)
        #expect(header.readVersion == 1)
        #expect(!header.isWAL)
        #expect(header.journalName == "rollback")
        #expect(header.userVersion == 2)
        #expect(header.applicationID == 1_398_035_020)
        #expect(header.textEncoding == 1)
        #expect(header.textEncodingName == "UTF-8")
        #expect(header.schemaCookie == UInt32(schemaVersion))
        #expect(header.schemaFormat == 4)
        #expect(header.freelistCount == 0)
        #expect(header.autoVacuumName == "none")
        #expect(header.sqliteVersionNumber == UInt32(SQLiteLibrary.versionNumber))
    }

    @Test func walDatabaseHasVersionsTwo() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("wal.sqlite")
        let connection = try Fixtures.makeExampleDatabase(at: path, journalMode: "wal")
        try connection.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        let header = try DatabaseHeader(bytes: try headerBytes(of: path))
        #expect(header.writeVersion == 2)
        #expect(header.readVersion == 2)
        #expect(header.isWAL)
        #expect(header.journalName == "wal")
    }

    @Test func negativeUserVersionAndApplicationIDAreSigned() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("signed.sqlite")
        try Connection(path: path).execute(sql: "CREATE TABLE t(x); PRAGMA user_version = -1; PRAGMA application_id = -2")
        let header = try DatabaseHeader(bytes: try headerBytes(of: path))
        #expect(header.userVersion == -1)
        #expect(header.applicationID == -2)
    }

    @Test(arguments: [("full", "full"), ("incremental", "incremental"), ("none", "none")])
    func autoVacuumIsNamed(_ pragma: String, _ expected: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("vacuum.sqlite")
        try Connection(path: path).execute(sql: "PRAGMA auto_vacuum = \(pragma); CREATE TABLE t(x)")
        #expect(try DatabaseHeader(bytes: try headerBytes(of: path)).autoVacuumName == expected)
    }

    @Test(arguments: [512, 1024, 8192, 65536])
    func pageSizesAreRead(_ pageSize: Int) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("pages.sqlite")
        try Connection(path: path).execute(sql: "PRAGMA page_size = \(pageSize); CREATE TABLE t(x)")
        let header = try DatabaseHeader(bytes: try headerBytes(of: path))
        #expect(header.pageSize == pageSize)
    }

    @Test func parsesOnlyTheFirstHundredBytesOfALongerInput() throws {
        let bytes = try validHeader()
        let longer = bytes + Array(repeating: 0xFF, count: 4000)
        #expect(try DatabaseHeader(bytes: longer) == DatabaseHeader(bytes: bytes))
        #expect(try DatabaseHeader(bytes: longer[...]) == DatabaseHeader(bytes: bytes))
    }

    // MARK: - Problems

    @Test(arguments: [0, 1, 16, 99])
    func shortInputIsTooShort(_ count: Int) throws {
        let bytes = Array(try validHeader().prefix(count))
        #expect(throws: DatabaseHeader.Problem.tooShort(count)) { try DatabaseHeader(bytes: bytes) }
    }

    @Test(arguments: [0, 7, 14, 15])
    func anyChangeToTheMagicIsBadMagic(_ offset: Int) throws {
        var bytes = try validHeader()
        bytes[offset] ^= 0x20
        #expect(throws: DatabaseHeader.Problem.badMagic) { try DatabaseHeader(bytes: bytes) }
    }

    @Test func textFileIsBadMagic() throws {
        let text = Array(String(repeating: "not a database, just some text. ", count: 5).utf8)
        #expect(throws: DatabaseHeader.Problem.badMagic) { try DatabaseHeader(bytes: text) }
    }

    @Test(arguments: [
        (UInt8(0x00), UInt8(0x00), 0),
        (0x01, 0x00, 256),
        (0x03, 0x00, 768),
        (0x10, 0x01, 4097),
        (0x80, 0x01, 32769),
        (0xFF, 0xFF, 65535),
        (0x00, 0x02, 2),
    ])
    func badPageSizeIsReportedRaw(_ high: UInt8, _ low: UInt8, _ raw: Int) throws {
        let bytes = header(try validHeader(), changing: [16: high, 17: low])
        #expect(throws: DatabaseHeader.Problem.badPageSize(raw)) { try DatabaseHeader(bytes: bytes) }
    }

    @Test func pageSizeOneMeans65536() throws {
        let bytes = header(try validHeader(), changing: [16: 0x00, 17: 0x01])
        #expect(try DatabaseHeader(bytes: bytes).pageSize == 65536)
    }

    @Test(arguments: [(UInt8(0), UInt8(1)), (1, 0), (3, 1), (1, 3), (2, 255), (0, 0)])
    func badFileFormatVersions(_ write: UInt8, _ read: UInt8) throws {
        let bytes = header(try validHeader(), changing: [18: write, 19: read])
        #expect(throws: DatabaseHeader.Problem.badFileFormat(write: write, read: read)) {
            try DatabaseHeader(bytes: bytes)
        }
    }

    @Test(arguments: [(UInt8(1), UInt8(2)), (2, 1), (2, 2), (1, 1)])
    func goodFileFormatVersions(_ write: UInt8, _ read: UInt8) throws {
        let bytes = header(try validHeader(), changing: [18: write, 19: read])
        let parsed = try DatabaseHeader(bytes: bytes)
        #expect(parsed.writeVersion == write)
        #expect(parsed.readVersion == read)
        #expect(parsed.isWAL == (write == 2 || read == 2))
    }

    @Test(arguments: [(21, UInt8(65)), (21, 0), (22, 33), (22, 0), (23, 31), (23, 64)])
    func badPayloadFractions(_ offset: Int, _ value: UInt8) throws {
        let bytes = header(try validHeader(), changing: [offset: value])
        #expect(throws: DatabaseHeader.Problem.badPayloadFractions) { try DatabaseHeader(bytes: bytes) }
    }

    @Test(arguments: [UInt8(4), 255])
    func badTextEncoding(_ low: UInt8) throws {
        let bytes = header(try validHeader(), changing: [56: 0, 57: 0, 58: 0, 59: low])
        #expect(throws: DatabaseHeader.Problem.badTextEncoding(UInt32(low))) { try DatabaseHeader(bytes: bytes) }
    }

    @Test(arguments: [(UInt8(0), "unset"), (1, "UTF-8"), (2, "UTF-16le"), (3, "UTF-16be")])
    func textEncodingNames(_ value: UInt8, _ name: String) throws {
        let bytes = header(try validHeader(), changing: [56: 0, 57: 0, 58: 0, 59: value])
        #expect(try DatabaseHeader(bytes: bytes).textEncodingName == name)
    }

    @Test func pageCountIsNotTrustedWhenTheVersionValidForDiffers() throws {
        var bytes = try validHeader()
        #expect(try DatabaseHeader(bytes: bytes).isPageCountValid)
        bytes[95] &+= 1
        #expect(try !DatabaseHeader(bytes: bytes).isPageCountValid)
    }

    @Test func problemDescriptionsNameTheValues() {
        #expect(DatabaseHeader.Problem.tooShort(42).description.contains("42"))
        #expect(DatabaseHeader.Problem.badMagic.description.contains("SQLite format 3"))
        #expect(DatabaseHeader.Problem.badPageSize(768).description.contains("768"))
        let format = DatabaseHeader.Problem.badFileFormat(write: 3, read: 7).description
        #expect(format.contains("3") && format.contains("7"))
        #expect(DatabaseHeader.Problem.badPayloadFractions.description.contains("64, 32, 32"))
        #expect(DatabaseHeader.Problem.badTextEncoding(9).description.contains("9"))
    }
}
