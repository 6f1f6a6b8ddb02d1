import ArchiveKit
import Foundation
import Testing
import TestSupport

/// The reader's additions for restoring bundles: a per-entry size cap enforced while
/// reading, overlapped decompression of large entries, the end-of-archive check and the
/// zstd magic.
@Suite struct ArchiveReaderLimitsTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A reader positioned on the payload entry of a bundle-shaped archive.
    func readerAtPayload(_ path: String) throws -> ArchiveReader {
        let reader = try ArchiveReader(path: path)
        while let entry = try reader.nextEntry() {
            if entry.name == "data/app.sqlite" { return reader }
        }
        throw ArchiveError.invalidState("no payload")
    }

    // MARK: - Size cap

    @Test func anEntryDeclaredLargerThanTheCapIsRefusedBeforeItsData() throws {
        let path = try directory.save(try makeArchive(payload: sampleBytes(count: 50_000)))
        let reader = try readerAtPayload(path)
        var received = 0
        #expect(throws: ArchiveError.tooLarge(name: "data/app.sqlite", limit: 49_999)) {
            try reader.readData(maximumSize: 49_999) { received += $0.count }
        }
        #expect(received == 0, "no data was decompressed for the caller")
    }

    @Test func anEntryOfExactlyTheCapIsRead() throws {
        let payload = sampleBytes(count: 50_000)
        let path = try directory.save(try makeArchive(payload: payload))
        let reader = try readerAtPayload(path)
        var bytes: [UInt8] = []
        let summary = try reader.readData(maximumSize: 50_000) { bytes.append(contentsOf: $0) }
        #expect(bytes == payload)
        #expect(summary.size == 50_000)
        #expect(try reader.nextEntry() == nil)
    }

    // MARK: - Overlapped decompression

    @Test(arguments: [4096, 65_536, 1 << 20])
    func largeEntriesGiveTheSameBytesAndHashOnTheOverlappedPath(blockSize: Int) throws {
        let payload = sampleBytes(count: 5_000_000, seed: 21)
        let path = try directory.save(try makeArchive(payload: payload, options: .init(compressionLevel: 1)))
        let reader = try readerAtPayload(path)
        var bytes: [UInt8] = []
        var largest = 0
        let summary = try reader.readData(blockSize: blockSize) { block in
            largest = max(largest, block.count)
            bytes.append(contentsOf: block)
        }
        #expect(bytes == payload)
        #expect(largest <= blockSize)
        #expect(summary == .init(size: Int64(payload.count), sha256: try SHA256Hasher.hex(of: payload)))
        #expect(try reader.nextEntry() == nil)
    }

    struct Stop: Error, Equatable {}

    @Test func aConsumerThatThrowsStopsTheWorkerAndTheReaderRefusesFurtherUse() throws {
        let path = try directory.save(try makeArchive(payload: sampleBytes(count: 6_000_000, seed: 4), options: .init(compressionLevel: 1)))
        let reader = try readerAtPayload(path)
        var blocks = 0
        #expect(throws: Stop()) {
            try reader.readData(blockSize: 65_536) { _ in
                blocks += 1
                if blocks == 3 { throw Stop() }
            }
        }
        #expect(blocks == 3)
        #expect(throws: ArchiveError.invalidState("the archive cannot be read after a failed read")) { _ = try reader.nextEntry() }
    }

    @Test(arguments: [0.3, 0.6, 0.95])
    func aTruncatedLargeEntryFailsOnTheOverlappedPath(fraction: Double) throws {
        let bytes = try makeArchive(payload: sampleBytes(count: 3_000_000, seed: 8), options: .init(compressionLevel: 1))
        let path = try directory.save(Array(bytes.prefix(Int(Double(bytes.count) * fraction))))
        #expect(throws: ArchiveError.self) {
            let reader = try readerAtPayload(path)
            try reader.readData(blockSize: 65_536) { _ in }
            _ = try reader.nextEntry()
        }
    }

    // MARK: - End of archive

    @Test func anArchiveWithoutItsEndBlocksIsTruncated() throws {
        var tar = TarBuilder()
        tar.file("manifest.json", [1, 2, 3])
        let path = try directory.save(try TarBuilder.zstd(tar.bytes))
        let reader = try ArchiveReader(path: path)
        #expect(try reader.nextEntry()?.name == "manifest.json")
        #expect(throws: ArchiveError.truncated("the end-of-archive blocks are missing")) { _ = try reader.nextEntry() }
    }

    @Test func anArchiveWithOneEndBlockOfTwoIsTruncated() throws {
        var tar = TarBuilder()
        tar.file("manifest.json", [1, 2, 3])
        tar.data([UInt8](repeating: 0, count: 512))
        let path = try directory.save(try TarBuilder.zstd(tar.bytes))
        let reader = try ArchiveReader(path: path)
        _ = try reader.nextEntry()
        try reader.readData { _ in }
        #expect(throws: ArchiveError.truncated("the end-of-archive blocks are missing")) { _ = try reader.nextEntry() }
    }

    @Test func theEndBlocksAreFoundAfterUnreadAndPartlyPaddedEntries() throws {
        var tar = TarBuilder()
        tar.file("a", [1])
        tar.file("b", Array(repeating: 7, count: 1024))
        tar.file("c", Array(repeating: 9, count: 700))
        tar.end()
        // System tar pads the archive to 10 KiB with more zeros; that is fine too.
        tar.data([UInt8](repeating: 0, count: 10240 - tar.bytes.count))
        let path = try directory.save(try TarBuilder.zstd(tar.bytes))
        let reader = try ArchiveReader(path: path)
        var names: [String] = []
        while let entry = try reader.nextEntry() {
            names.append(entry.name)
            if entry.name == "b" { try reader.readData { _ in } }
        }
        #expect(names == ["a", "b", "c"])
    }

    /// After the end-of-archive blocks, only the zero padding of the
    /// last 10240-byte record may follow.
    @Test(arguments: ["a byte that is not zero", "text", "zeros past the record"])
    func dataAfterTheEndBlocksIsRefused(label: String) throws {
        let trailer: [UInt8] = switch label {
        case "text": Array("Restored    /etc/passwd".utf8)
        case "zeros past the record": [UInt8](repeating: 0, count: 10240)
        default: [UInt8](repeating: 0, count: 100) + [1]
        }
        var tar = TarBuilder()
        tar.file("a", [1])
        tar.end()
        tar.data(trailer)
        let path = try directory.save(try TarBuilder.zstd(tar.bytes))
        let reader = try ArchiveReader(path: path)
        #expect(try reader.nextEntry()?.name == "a")
        let error = try #require(throws: ArchiveError.self, "\(label)") { _ = try reader.nextEntry() }
        guard case .corrupt(let message) = error else {
            Issue.record("\(label): \(error)")
            return
        }
        #expect(message.contains("after the end-of-archive blocks"), "\(label)")
    }

    /// Junk in a zstd frame of its own, appended to a finished archive: the frames
    /// decompress into one stream, so the junk follows the end-of-archive blocks.
    @Test func aFrameAppendedAfterTheArchiveIsRefused() throws {
        var tar = TarBuilder()
        tar.file("a", [1])
        tar.end()
        let junk = try TarBuilder.zstd(Array(repeating: 0x41, count: 600))
        let path = try directory.save(try TarBuilder.zstd(tar.bytes) + junk)
        let reader = try ArchiveReader(path: path)
        _ = try reader.nextEntry()
        #expect(throws: ArchiveError.self) { _ = try reader.nextEntry() }
    }

    @Test func zerosUpToTheRecordBoundaryAreAccepted() throws {
        var tar = TarBuilder()
        tar.file("a", [1])
        tar.end()
        tar.data([UInt8](repeating: 0, count: 10240 - tar.bytes.count))
        let path = try directory.save(try TarBuilder.zstd(tar.bytes))
        let reader = try ArchiveReader(path: path)
        #expect(try reader.nextEntry()?.name == "a")
        #expect(try reader.nextEntry() == nil)
        #expect(try reader.nextEntry() == nil, "asking again changes nothing")
    }

    @Test func anEmptyArchiveHasItsEndBlocks() throws {
        var tar = TarBuilder()
        tar.end()
        let reader = try ArchiveReader(path: try directory.save(try TarBuilder.zstd(tar.bytes)))
        #expect(try reader.nextEntry() == nil)
    }

    // MARK: - Magic

    @Test func zstdMagicIsRecognisedFromTheFirstBytes() throws {
        let bundle = try makeArchive(payload: [1, 2, 3])
        #expect(ArchiveReader.startsWithZstdMagic(bundle))
        #expect(ArchiveReader.startsWithZstdMagic(bundle.prefix(4)))
        #expect(!ArchiveReader.startsWithZstdMagic(bundle.prefix(3)))
        #expect(!ArchiveReader.startsWithZstdMagic(Array("SQLite format 3\u{0}".utf8)))
        #expect(!ArchiveReader.startsWithZstdMagic([UInt8]()))
    }
}
