import Foundation
import Testing
import ArchiveKit
import TestSupport

/// An error an output closure throws, to check that the writer passes it on unchanged.
struct DiskFull: Error, Equatable {}

/// Collects a writer's output in memory.
final class MemoryOutput: @unchecked Sendable {
    var bytes: [UInt8] = []
    var calls = 0
    var failAfter: Int?

    func write(_ buffer: UnsafeRawBufferPointer) throws {
        calls += 1
        if let failAfter, bytes.count + buffer.count > failAfter { throw DiskFull() }
        bytes.append(contentsOf: buffer)
    }
}

/// Deterministic bytes that compress somewhat, like database pages.
func sampleBytes(count: Int, seed: UInt64 = 1) -> [UInt8] {
    var state = seed &* 0x9E37_79B9_7F4A_7C15
    return (0..<count).map { index in
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return index % 4096 < 1500 ? UInt8(truncatingIfNeeded: state >> 59) : UInt8(truncatingIfNeeded: state >> 33)
    }
}

/// Writes a bundle-shaped archive: two small files and a payload fed in odd-sized blocks.
func makeArchive(payload: [UInt8], options: ArchiveWriter.Options = .init(), blockSize: Int = 7919) throws -> [UInt8] {
    let output = MemoryOutput()
    let writer = try ArchiveWriter(options: options) { try output.write($0) }
    try writer.addFile(name: "manifest.json", contents: Array("{\"formatVersion\":1}\n".utf8))
    try writer.addFile(name: "manifest-sha256.txt", contents: Array("abc  data/app.sqlite\n".utf8))
    try writer.beginFile(name: "data/app.sqlite", size: Int64(payload.count))
    try payload.feed(inBlocksOf: blockSize) { try writer.write($0) }
    try writer.endFile()
    try writer.finish()
    #expect(writer.bytesWritten == Int64(output.bytes.count))
    return output.bytes
}

@Suite struct ArchiveWriterTests {
    @Test func sameEntriesGiveTheSameBytes() throws {
        let payload = sampleBytes(count: 300_000)
        let first = try makeArchive(payload: payload)
        let second = try makeArchive(payload: payload, blockSize: 65536)
        #expect(first == second, "block sizes fed to the writer do not matter")
    }

    @Test func outputDoesNotDependOnTheNumberOfThreads() throws {
        let payload = sampleBytes(count: 3_000_000)
        let one = try makeArchive(payload: payload, options: .init(compressionLevel: 1, threads: 1))
        let two = try makeArchive(payload: payload, options: .init(compressionLevel: 1, threads: 2))
        let four = try makeArchive(payload: payload, options: .init(compressionLevel: 1, threads: 4))
        #expect(one == two)
        #expect(one == four)
    }

    @Test func metadataAndLevelChangeTheBytes() throws {
        let payload = sampleBytes(count: 100_000)
        let base = try makeArchive(payload: payload, options: .init(modificationTime: 1_700_000_000))
        #expect(try makeArchive(payload: payload, options: .init(modificationTime: 1_700_000_001)) != base)
        #expect(try makeArchive(payload: payload, options: .init(compressionLevel: 9, modificationTime: 1_700_000_000)) != base)
    }

    @Test func streamStartsWithTheZstdMagicAndHasNoPadding() throws {
        let bytes = try makeArchive(payload: sampleBytes(count: 10_000))
        #expect(Array(bytes.prefix(4)) == [0x28, 0xB5, 0x2F, 0xFD])
        #expect(bytes.last != 0 || bytes.count % 512 != 0)
    }

    @Test func systemTarListsTheEntriesInOrderWithFixedOwnerAndMode() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("a.tar.zst")
        try Data(try makeArchive(payload: sampleBytes(count: 5000), options: .init(modificationTime: 1_700_000_000)))
            .write(to: URL(fileURLWithPath: path))
        let listing = try run(["tar", "--zstd", "-tvf", path, "--numeric-owner", "--full-time", "--utc"])
        let lines = listing.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.map { $0.split(separator: " ").last.map(String.init) } == ["manifest.json", "manifest-sha256.txt", "data/app.sqlite"])
        for line in lines {
            #expect(line.hasPrefix("-rw-r--r-- 0/0"), "\(line)")
            #expect(line.contains("2023-11-14 22:13:20"), "\(line)")
        }
    }

    @Test func twoFramesOneAfterTheOtherHoldOneArchive() throws {
        let payload = sampleBytes(count: 1_500_000, seed: 11)
        let head = MemoryOutput(), tail = MemoryOutput()
        let first = try ArchiveWriter(options: .init(compressionLevel: 1, modificationTime: 1_700_000_000, endsArchive: false)) {
            try head.write($0)
        }
        try first.addFile(name: "manifest.json", contents: Array("{\"formatVersion\":1}\n".utf8))
        try first.addFile(name: "manifest-sha256.txt", contents: Array("abc  data/app.sqlite\n".utf8))
        try first.finish()
        let second = try ArchiveWriter(options: .init(compressionLevel: 1, modificationTime: 1_700_000_000)) { try tail.write($0) }
        try second.addFile(name: "data/app.sqlite", contents: payload)
        try second.finish()

        let joined = head.bytes + tail.bytes
        let single = try makeArchive(payload: payload, options: .init(compressionLevel: 1, modificationTime: 1_700_000_000))
        #expect(try decompress(joined) == decompress(single), "the same tar stream as one writer makes")

        let directory = try TemporaryDirectory()
        let path = directory.file("joined.tar.zst")
        try Data(joined).write(to: URL(fileURLWithPath: path))
        #expect(try run(["tar", "-tf", path]) == "manifest.json\nmanifest-sha256.txt\ndata/app.sqlite\n")
        let reader = try ArchiveReader(path: path)
        var names: [String] = []
        var last: [UInt8] = []
        while let entry = try reader.nextEntry() {
            names.append(entry.name)
            last = []
            try reader.readData { last.append(contentsOf: $0) }
        }
        #expect(names == ["manifest.json", "manifest-sha256.txt", "data/app.sqlite"])
        #expect(last == payload)
    }

    @Test(arguments: ["", "/etc/passwd", "../x", "data/../x", "a//b", "data/", ".hidden", "-rf", "data/.x",
                      "a b", "é.sqlite", "x\ny", "a/b/c/d/e", String(repeating: "a", count: 201)])
    func invalidNamesAreRefused(name: String) throws {
        let writer = try ArchiveWriter(options: .init()) { _ in }
        #expect(throws: ArchiveError.invalidName(name)) { try writer.beginFile(name: name, size: 0) }
    }

    @Test(arguments: ["manifest.json", "data/app-1.2_x.sqlite", "A", "_x", "0"])
    func validNamesAreAccepted(name: String) throws {
        let writer = try ArchiveWriter(options: .init()) { _ in }
        try writer.addFile(name: name, contents: [1, 2, 3])
        try writer.finish()
    }

    @Test func duplicateNamesAreRefused() throws {
        let writer = try ArchiveWriter(options: .init()) { _ in }
        try writer.addFile(name: "a", contents: [])
        #expect(throws: ArchiveError.duplicateName("a")) { try writer.addFile(name: "a", contents: []) }
    }

    @Test func writingPastTheDeclaredSizeIsRefused() throws {
        let writer = try ArchiveWriter(options: .init()) { _ in }
        try writer.beginFile(name: "a", size: 4)
        try writer.write([1, 2, 3])
        #expect(throws: ArchiveError.sizeMismatch(name: "a", declared: 4, actual: 5)) { try writer.write([4, 5]) }
    }

    @Test func endingShortOfTheDeclaredSizeIsRefused() throws {
        let writer = try ArchiveWriter(options: .init()) { _ in }
        try writer.beginFile(name: "a", size: 4)
        try writer.write([1, 2, 3])
        #expect(throws: ArchiveError.sizeMismatch(name: "a", declared: 4, actual: 3)) { try writer.endFile() }
    }

    @Test func misuseIsRefused() throws {
        let writer = try ArchiveWriter(options: .init()) { _ in }
        #expect(throws: ArchiveError.self) { try writer.write([1]) }
        #expect(throws: ArchiveError.self) { try writer.endFile() }
        try writer.beginFile(name: "a", size: 1)
        #expect(throws: ArchiveError.self) { try writer.beginFile(name: "b", size: 1) }
        #expect(throws: ArchiveError.self) { try writer.finish() }
    }

    @Test(arguments: [0, 20, 40])
    func invalidLevelsAreRefused(level: Int) {
        #expect(throws: ArchiveError.self) { _ = try ArchiveWriter(options: .init(compressionLevel: level)) { _ in } }
    }

    @Test func theOutputsErrorComesBackUnchangedAndNothingIsWrittenAfterIt() throws {
        let output = MemoryOutput()
        output.failAfter = 50_000
        var writer: ArchiveWriter? = try ArchiveWriter(options: .init(compressionLevel: 1)) { try output.write($0) }
        let payload = sampleBytes(count: 2_000_000, seed: 7)
        #expect(throws: DiskFull.self) {
            try writer?.beginFile(name: "data/app.sqlite", size: Int64(payload.count))
            try payload.withUnsafeBytes { try writer?.write($0) }
            try writer?.endFile()
            try writer?.finish()
        }
        let calls = output.calls
        writer = nil
        #expect(output.calls == calls, "a writer dropped after a failure writes nothing more")
    }

    @Test func droppingAnUnfinishedWriterWritesNothingMore() throws {
        let output = MemoryOutput()
        var writer: ArchiveWriter? = try ArchiveWriter(options: .init()) { try output.write($0) }
        try writer?.addFile(name: "a", contents: [1, 2, 3])
        let count = output.bytes.count
        writer = nil
        #expect(output.bytes.count == count)
    }

    /// The tar stream inside, by the system `zstd`.
    private func decompress(_ bytes: [UInt8]) throws -> [UInt8] {
        let directory = try TemporaryDirectory()
        return Array(try standardOutput(["zstd", "-q", "-d", "-c", try directory.save(bytes, as: "x.zst")]))
    }

    private func run(_ arguments: [String]) throws -> String {
        String(decoding: try standardOutput(arguments), as: UTF8.self)
    }

    private func standardOutput(_ arguments: [String]) throws -> Data {
        let (status, output) = try systemToolStandardOutput(arguments)
        #expect(status == 0)
        return output
    }
}
