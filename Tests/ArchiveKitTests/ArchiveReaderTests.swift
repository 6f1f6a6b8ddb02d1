import Foundation
import Testing
import ArchiveKit
import TestSupport

@Suite struct ArchiveReaderTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// Reads every entry to the end; returns names and contents.
    func readAll(_ path: String, limits: ArchiveReader.Limits = .init()) throws -> [(ArchiveReader.Entry, [UInt8], ArchiveReader.DataSummary)] {
        let reader = try ArchiveReader(path: path, limits: limits)
        var result: [(ArchiveReader.Entry, [UInt8], ArchiveReader.DataSummary)] = []
        while let entry = try reader.nextEntry() {
            var bytes: [UInt8] = []
            let summary = try reader.readData { bytes.append(contentsOf: $0) }
            result.append((entry, bytes, summary))
        }
        return result
    }

    // MARK: - Round trip

    @Test func roundTripGivesBackNamesContentsAndHashes() throws {
        let payload = sampleBytes(count: 2_500_000, seed: 3)
        let path = try directory.save(try makeArchive(payload: payload, options: .init(compressionLevel: 1, threads: 2, modificationTime: 1_700_000_000)))
        let entries = try readAll(path)
        #expect(entries.map(\.0.name) == ["manifest.json", "manifest-sha256.txt", "data/app.sqlite"])
        #expect(entries[2].1 == payload)
        #expect(entries[2].2 == .init(size: Int64(payload.count), sha256: try SHA256Hasher.hex(of: payload)))
        #expect(entries[0].1 == Array("{\"formatVersion\":1}\n".utf8))
        for (entry, bytes, summary) in entries {
            #expect(entry.size == Int64(bytes.count))
            #expect(entry.permissions == 0o644)
            #expect(entry.modificationTime == 1_700_000_000)
            #expect(summary.sha256 == (try SHA256Hasher.hex(of: bytes)))
        }
    }

    @Test func anEmptyEntryAndAFileDescriptorReader() throws {
        let output = MemoryOutput()
        let writer = try ArchiveWriter(options: .init()) { try output.write($0) }
        try writer.addFile(name: "empty", contents: [])
        try writer.finish()
        let path = try directory.save(output.bytes)
        let descriptor = open(path, O_RDONLY)
        defer { close(descriptor) }
        let reader = try ArchiveReader(fileDescriptor: descriptor)
        let entry = try #require(try reader.nextEntry())
        #expect(entry.size == 0)
        #expect(try reader.readData { _ in }.sha256 == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(try reader.nextEntry() == nil)
    }

    @Test func unreadEntriesAreSkipped() throws {
        let path = try directory.save(try makeArchive(payload: sampleBytes(count: 100_000)))
        let reader = try ArchiveReader(path: path)
        var names: [String] = []
        while let entry = try reader.nextEntry() { names.append(entry.name) }
        #expect(names == ["manifest.json", "manifest-sha256.txt", "data/app.sqlite"])
    }

    @Test func readContentsRefusesALargeEntryBeforeReadingIt() throws {
        let path = try directory.save(try makeArchive(payload: sampleBytes(count: 100_000)))
        let reader = try ArchiveReader(path: path)
        _ = try reader.nextEntry()
        #expect(try reader.readContents(maximumSize: 1024).bytes == Array("{\"formatVersion\":1}\n".utf8))
        _ = try reader.nextEntry()
        _ = try reader.nextEntry()
        #expect(throws: ArchiveError.tooLarge(name: "data/app.sqlite", limit: 1024)) { try reader.readContents(maximumSize: 1024) }
    }

    // MARK: - Limits

    @Test func anEntryOverTheSizeLimitIsRefusedBeforeItsData() throws {
        let path = try directory.save(try makeArchive(payload: sampleBytes(count: 100_000)))
        #expect(throws: ArchiveError.tooLarge(name: "data/app.sqlite", limit: 99_999)) {
            _ = try readAll(path, limits: .init(maximumEntrySize: 99_999))
        }
    }

    @Test func theTotalSizeIsLimited() throws {
        let path = try directory.save(try makeArchive(payload: sampleBytes(count: 100_000)))
        #expect(throws: ArchiveError.tooLarge(name: "the archive", limit: 100_010)) {
            _ = try readAll(path, limits: .init(maximumTotalSize: 100_010))
        }
    }

    @Test func theNumberOfEntriesIsLimited() throws {
        let path = try directory.save(try makeArchive(payload: sampleBytes(count: 1000)))
        #expect(throws: ArchiveError.tooManyEntries(limit: 2)) { _ = try readAll(path, limits: .init(maximumEntries: 2)) }
    }

    @Test func aDeclaredSizeLargerThanTheDataIsTruncation() throws {
        var tar = TarBuilder()
        tar.header(name: "data/app.sqlite", size: 1_000_000)
        tar.data(sampleBytes(count: 3000))
        let path = try directory.save(try TarBuilder.zstd(tar.bytes))
        #expect(throws: ArchiveError.self) { _ = try readAll(path) }
        do {
            _ = try readAll(path)
        } catch let error as ArchiveError {
            guard case .truncated = error else { Issue.record("expected truncation, got \(error)"); return }
        }
    }

    // MARK: - Hostile entries

    @Test(arguments: [("1", "hard link"), ("2", "symbolic link"), ("5", "directory"), ("3", "character device"), ("6", "fifo")])
    func nonRegularEntriesAreRefused(type: String, _ label: String) throws {
        var tar = TarBuilder()
        tar.file("manifest.json", [1, 2, 3])
        tar.header(name: "data", type: Character(type), size: 0, linkName: type == "1" || type == "2" ? "/etc/passwd" : "")
        tar.end()
        let path = try directory.save(try TarBuilder.zstd(tar.bytes))
        #expect(throws: ArchiveError.notRegularFile("data"), "\(label)") { _ = try readAll(path) }
    }

    @Test(arguments: ["../evil", "/etc/cron.d/x", "data/../../x", ".hidden", "data//x", "a b", "data/x/y/z"])
    func badNamesAreRefused(name: String) throws {
        var tar = TarBuilder()
        tar.file(name, [1])
        tar.end()
        let path = try directory.save(try TarBuilder.zstd(tar.bytes))
        #expect(throws: ArchiveError.invalidName(name)) { _ = try readAll(path) }
    }

    @Test func aPaxPathThatEscapesIsRefused() throws {
        var tar = TarBuilder()
        tar.pax(["path": "../../../tmp/evil"])
        tar.file("innocent", [1, 2])
        tar.end()
        let path = try directory.save(try TarBuilder.zstd(tar.bytes))
        #expect(throws: ArchiveError.invalidName("../../../tmp/evil")) { _ = try readAll(path) }
    }

    @Test func aDuplicateNameIsRefused() throws {
        var tar = TarBuilder()
        tar.file("manifest.json", [1])
        tar.file("manifest.json", [2])
        tar.end()
        let path = try directory.save(try TarBuilder.zstd(tar.bytes))
        #expect(throws: ArchiveError.duplicateName("manifest.json")) { _ = try readAll(path) }
    }

    // MARK: - Hostile streams

    @Test func anUncompressedTarIsRefused() throws {
        var tar = TarBuilder()
        tar.file("manifest.json", [1])
        tar.end()
        let path = try directory.save(tar.bytes)
        #expect(throws: ArchiveError.notZstd) { _ = try readAll(path) }
    }

    @Test func twoLayersOfZstdAreRefused() throws {
        var tar = TarBuilder()
        tar.file("manifest.json", [1])
        tar.end()
        let path = try directory.save(try TarBuilder.zstd(try TarBuilder.zstd(tar.bytes)))
        #expect(throws: ArchiveError.notZstd) { _ = try readAll(path) }
    }

    @Test func gnuTarIsRefused() throws {
        var tar = TarBuilder()
        tar.file("manifest.json", [1], gnu: true)
        tar.end()
        let path = try directory.save(try TarBuilder.zstd(tar.bytes))
        #expect(throws: ArchiveError.notTar("GNU tar format")) { _ = try readAll(path) }
    }

    @Test func somethingElseEntirelyIsRefused() throws {
        let path = try directory.save(Array("this is not an archive at all, just text\n".utf8))
        #expect(throws: ArchiveError.self) { _ = try readAll(path) }
        let empty = try directory.save([], as: "empty.tar.zst")
        #expect(throws: ArchiveError.self) { _ = try readAll(empty) }
    }

    @Test(arguments: [0.1, 0.5, 0.9, 0.999])
    func aTruncatedStreamIsRefused(fraction: Double) throws {
        let bytes = try makeArchive(payload: sampleBytes(count: 400_000, seed: 5), options: .init(compressionLevel: 1))
        let path = try directory.save(Array(bytes.prefix(Int(Double(bytes.count) * fraction))))
        #expect(throws: ArchiveError.self) { _ = try readAll(path) }
    }

    @Test func aMissingFileIsAnInputError() {
        #expect(throws: ArchiveError.input(errno: ENOENT, message: "/nonexistent/x.tar.zst: No such file or directory")) {
            _ = try ArchiveReader(path: "/nonexistent/x.tar.zst")
        }
    }
}
