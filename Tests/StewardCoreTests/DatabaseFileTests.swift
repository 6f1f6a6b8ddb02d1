import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

@Suite struct DatabaseFileTests {
    @Test(arguments: [
        ("/tmp/db.sqlite", "file:/tmp/db.sqlite?mode=ro"),
        ("/tmp/a b.sqlite", "file:/tmp/a%20b.sqlite?mode=ro"),
        ("/tmp/what?#.sqlite", "file:/tmp/what%3F%23.sqlite?mode=ro"),
        ("/tmp/100%.sqlite", "file:/tmp/100%25.sqlite?mode=ro"),
        ("/tmp/é.sqlite", "file:/tmp/%C3%A9.sqlite?mode=ro"),
        ("/tmp/a&b=c.sqlite", "file:/tmp/a%26b%3Dc.sqlite?mode=ro"),
        ("/tmp/~user/x-y_z.db", "file:/tmp/~user/x-y_z.db?mode=ro"),
    ])
    func uriPercentEncodesReservedBytes(_ path: String, _ uri: String) {
        #expect(DatabaseFile.uri(for: path, query: "mode=ro") == uri)
    }

    @Test func relativePathIsMadeAbsolute() {
        let uri = DatabaseFile.uri(for: "db.sqlite", query: "mode=ro&immutable=1")
        #expect(uri.hasPrefix("file:/"))
        #expect(uri.hasSuffix("/db.sqlite?mode=ro&immutable=1"))
    }

    @Test func probeReadsSizeAndHeaderBytes() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("db.sqlite")
        try Fixtures.makeExampleDatabase(at: path)
        let probe = try DatabaseFile(path: path)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(probe.size == Int64(data.count))
        #expect(probe.headerBytes == Array(data.prefix(100)))
        #expect(probe.path == path)
    }

    @Test func probeOfAShortFileReadsWhatThereIs() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("short")
        _ = FileManager.default.createFile(atPath: path, contents: Data("SQLite".utf8))
        let probe = try DatabaseFile(path: path)
        #expect(probe.size == 6)
        #expect(probe.headerBytes == Array("SQLite".utf8))
    }

    @Test func existsSeesDanglingSymlinks() throws {
        let directory = try TemporaryDirectory()
        #expect(!DatabaseFile.exists(directory.file("nothing")))
        try FileManager.default.createSymbolicLink(atPath: directory.file("link"), withDestinationPath: directory.file("nothing"))
        #expect(DatabaseFile.exists(directory.file("link")))
    }

    @Test func openNeverCreatesTheFileAndFollowsLinksOnlyWhenAsked() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.file("missing.sqlite")
        #expect(throws: SQLiteError.self) { try DatabaseFile.open(path: missing, .readWrite) }
        #expect(!DatabaseFile.exists(missing))

        let path = directory.file("real.sqlite")
        try Fixtures.makeExampleDatabase(at: path)
        try FileManager.default.createSymbolicLink(atPath: directory.file("link.sqlite"), withDestinationPath: path)
        #expect(throws: SQLiteError.self) { try DatabaseFile.open(path: directory.file("link.sqlite"), .readOnly) }
        let followed = try DatabaseFile.open(path: directory.file("link.sqlite"), .readOnly, followLinks: true)
        #expect(try followed.integer(sql: "SELECT count(*) FROM ticket") > 0)
        let writer = try DatabaseFile.open(path: path, .readWrite, parameters: "&nolock=1")
        #expect(!writer.isReadOnly)
    }

    // MARK: - Explaining SQLite errors

    @Test(arguments: [
        (ResultCode.notADatabase, StewardError.Kind.badInput),
        (.corrupt, .badInput),
        (.corruptVirtualTable, .badInput),
        (.busy, .busy),
        (.locked, .busy),
        (.busySnapshot, .busy),
        (.full, .inputOutput),
        (.ioError, .inputOutput),
        (.ioErrorRead, .inputOutput),
        (.error, .badInput),
    ])
    func explainMapsSQLiteErrors(_ code: ResultCode, _ kind: StewardError.Kind) {
        // A message that names only the schema is quoted (`SQLiteMessage`); one of unknown
        // shape gives way to the code's generic text.
        let error = DatabaseFile.explain(SQLiteError(extendedCode: code, message: "no such table: the_table"), path: "some/db.sqlite")
        #expect(error.kind == kind)
        #expect(error.message.contains("some/db.sqlite"))
        #expect(error.message.contains("no such table: the_table"))
        let unknown = DatabaseFile.explain(SQLiteError(extendedCode: code, message: "the message"), path: "some/db.sqlite")
        #expect(unknown.kind == kind)
        #expect(!unknown.message.contains("the message"))
        #expect(unknown.message.contains(code.genericMessage))
    }
}
