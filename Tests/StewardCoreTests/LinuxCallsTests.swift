import Foundation
@testable import StewardCore
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
@testable import StewardBase
#endif

/// The GNU-only calls come from the CSystem module: called directly, with the errno the
/// callers' fallbacks rely on.
@Suite struct LinuxCallsTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: directory.file(name)))
    }

    func read(_ name: String) -> String? {
        FileManager.default.contents(atPath: directory.file(name)).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func renameNoReplaceRenamesButNeverReplaces() throws {
        try write("a", "first")
        try write("b", "second")
        #expect(LinuxCalls.renameNoReplace(directory.file("a"), to: directory.file("c")) == 0)
        #expect(read("c") == "first")
        #expect(LinuxCalls.renameNoReplace(directory.file("b"), to: directory.file("c")) == -1)
        #expect(errno == EEXIST)
        #expect(read("b") == "second")
        #expect(read("c") == "first")
    }

    @Test func copyFileRangeCopiesFromTheCurrentOffsets() throws {
        try write("source", "0123456789")
        let source = open(directory.file("source"), O_RDONLY | O_CLOEXEC)
        let target = open(directory.file("target"), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        defer { close(source); close(target) }
        try #require(source >= 0 && target >= 0)
        #expect(lseek(source, 4, SEEK_SET) == 4)
        #expect(LinuxCalls.copyFileRange(from: source, to: target, count: 3) == 3)
        #expect(LinuxCalls.copyFileRange(from: source, to: target, count: 100) == 3)
        #expect(LinuxCalls.copyFileRange(from: source, to: target, count: 100) == 0)
        #expect(read("target") == "456789")
    }

    /// copy_file_range refuses a pipe (EINVAL); the copy falls back to read and write.
    @Test func aCopyFromAPipeFallsBackToReadAndWrite() throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        let text = String(repeating: "steward ", count: 1000)
        #expect(text.utf8.withContiguousStorageIfAvailable { SystemCall.writeAll(ends[1], UnsafeRawBufferPointer($0)) } == 0)
        close(ends[1])
        let target = open(directory.file("target"), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        defer { close(ends[0]); close(target) }
        try #require(target >= 0)
        #expect(LinuxCalls.copyFileRange(from: ends[0], to: target, count: 100) == -1)
        #expect(errno == EINVAL)
        #expect(FileCopy.copy(from: ends[0], to: target, isCancelled: { false }) == 0)
        #expect(read("target") == text)
    }

    @Test func writeBackStartsOnAFileAndFailsOnAPipe() throws {
        try write("file", String(repeating: "x", count: 4096))
        let file = open(directory.file("file"), O_RDWR | O_CLOEXEC)
        defer { close(file) }
        try #require(file >= 0)
        #expect(LinuxCalls.startWriteBack(file, offset: 0, count: 4096) == 0)
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        #expect(LinuxCalls.startWriteBack(ends[1], offset: 0, count: 1) == -1)
        #expect(errno == ESPIPE)
    }
}
