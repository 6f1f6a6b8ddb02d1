import FileNames
import Foundation
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

@Suite struct PathsTests {
    @Test(arguments: [
        ("a/b/c", "a/b"), ("/c", "/"), ("c", ""), ("a/b/", "a"), ("/", "/"), ("a//", ""), ("", ""),
    ])
    func directory(_ path: String, _ expected: String) {
        #expect(Paths.directory(of: path) == expected)
    }

    @Test(arguments: [("c", "."), ("a/c", "a"), ("/c", "/")])
    func directoryOrCurrent(_ path: String, _ expected: String) {
        #expect(Paths.directoryOrCurrent(of: path) == expected)
    }

    @Test(arguments: [("a/b/c.db", "c.db"), ("c/", "c"), ("c", "c"), ("/", ""), ("x", "x")])
    func fileName(_ path: String, _ expected: String) {
        #expect(Paths.fileName(of: path) == expected)
    }

    @Test(arguments: [("a.tar.zst", "a.tar"), (".hidden", ".hidden"), ("plain", "plain"), ("a.", "a")])
    func removingExtension(_ name: String, _ expected: String) {
        #expect(Paths.removingExtension(name) == expected)
    }

    @Test(arguments: [("", "n", "n"), ("d", "n", "d/n"), ("d/", "n", "d/n"), ("/", "n", "/n")])
    func join(_ directory: String, _ name: String, _ expected: String) {
        #expect(Paths.join(directory, name) == expected)
    }

    @Test(arguments: [("a///", "a"), ("/", "/"), ("///", "/"), ("a", "a")])
    func trimmingTrailingSlashes(_ path: String, _ expected: String) {
        #expect(Paths.trimmingTrailingSlashes(path) == expected)
    }

    @Test func namesKeepBytesThatAreNotUTF8() throws {
        let directory = try TemporaryDirectory()
        let raw = FileName.decode([0x66, 0xFF, 0x2E, 0x64, 0x62])  // "f\xFF.db"
        let path = Paths.join(directory.path, raw)
        let descriptor = open(FileName.cString(path), O_CREAT | O_WRONLY, 0o600)
        try #require(descriptor >= 0)
        close(descriptor)
        try FileManager.default.createDirectory(atPath: directory.file("sub"), withIntermediateDirectories: false)

        #expect(try Set(Paths.names(in: directory.path)) == [raw, "sub"])
        #expect(Paths.exists(path))
        #expect(!Paths.isDirectory(path))
        #expect(Paths.isDirectory(directory.file("sub")))
        #expect(Paths.contents(of: path) == Data())
        #expect(Paths.contents(of: directory.file("absent")) == nil)
        #expect(throws: POSIXError.self) { try Paths.names(in: directory.file("absent")) }
    }

    @Test func contentsReadsTheWholeFile() throws {
        let directory = try TemporaryDirectory()
        let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
        try bytes.write(to: URL(fileURLWithPath: directory.file("big")))
        #expect(Paths.contents(of: directory.file("big")) == bytes)
    }
}
