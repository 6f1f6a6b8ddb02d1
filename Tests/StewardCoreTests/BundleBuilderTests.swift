import ArchiveKit
@testable import BundleFormat
import Foundation
@testable import StewardBase
@testable import StewardCore
import Synchronization
import TestSupport
import Testing

@Suite struct BundleBuilderTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    /// A payload file and a manifest that describes it.
    func makePayload(size: Int = 300_000) throws -> (path: String, manifest: BundleManifest) {
        let path = directory.file("copy.sqlite")
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 1000) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let manifest = BundleManifest(
            stewardVersion: "0.1.0", sqliteVersion: "3.40.1", createdAt: "2026-11-30T04:28:30Z",
            source: .init(fileName: "tickets.sqlite", userVersion: 2, applicationID: 0, pageSize: 4096, pageCount: 74, journalMode: "wal"),
            snapshot: .init(durationSeconds: 0.01, sourceHeldSeconds: 0.009, lockWaitSeconds: 0, restarts: 0, pagesPerStep: 4096, steps: 1),
            checks: .init(integrityCheck: "ok", foreignKeyViolations: 0, userVersion: 2, userVersionMatchesSource: true,
                          journalMode: "delete", writeVersion: 1, readVersion: 1, durationSeconds: 0.002),
            files: [.init(path: "data/tickets.sqlite", size: Int64(size), sha256: try SHA256Hasher.hex(of: bytes))])
        return (path, manifest)
    }

    /// The payload frame into a temporary file, then the bundle into `name`.
    func build(_ manifest: BundleManifest, payload: String, into name: String, threads: Int = 2,
               failAfter: Int64? = nil, cancellation: Cancellation = Cancellation()) throws -> BundleBuilder.Output {
        var builder = BundleBuilder(compressionLevel: 3, threads: threads, cancellation: cancellation)
        builder.failWritesAfterBytes = failAfter
        let framePath = directory.file(name + ".frame")
        let frame = open(framePath, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        #expect(frame >= 0)
        defer { close(frame) }
        let compression = builder.startPayload(
            path: payload, entryName: manifest.files[0].path, size: manifest.files[0].size,
            modificationTime: try #require(BackupNaming.seconds(ofTimestamp: manifest.createdAt)),
            into: frame, outputName: name) { _, _ in }
        _ = try compression.wait()

        let descriptor = open(directory.file(name), O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        return try builder.write(manifest: manifest, payload: compression, payloadFramePath: framePath, to: descriptor, outputName: name)
    }

    @Test func theSameSnapshotGivesTheSameBytes() throws {
        let (payload, manifest) = try makePayload()
        let one = try build(manifest, payload: payload, into: "one.tar.zst", threads: 1)
        let two = try build(manifest, payload: payload, into: "two.tar.zst", threads: 2)
        #expect(one.sha256 == two.sha256)
        #expect(FileManager.default.contents(atPath: directory.file("one.tar.zst"))
            == FileManager.default.contents(atPath: directory.file("two.tar.zst")))
        let bytes = try #require(FileManager.default.contents(atPath: directory.file("one.tar.zst")))
        #expect(one.sizeBytes == Int64(bytes.count))
        #expect(one.sha256 == (try SHA256Hasher.hex(of: Array(bytes))))
    }

    /// The payload's frame is written without a hash of its own (nothing read it: the
    /// bundle's hash is taken as the frame is copied in); the bundle's sink hashes what
    /// it writes.
    @Test func onlyTheBundlesSinkHashesWhatItWrites() throws {
        let bytes = Array("a frame of compressed bytes".utf8)
        for hashing in [true, false] {
            let path = directory.file("sink-\(hashing)")
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            #expect(descriptor >= 0)
            defer { close(descriptor) }
            let sink = try BundleBuilder.Sink(descriptor: descriptor, failAfter: nil, cancellation: Cancellation(), hashing: hashing)
            try bytes.withUnsafeBytes { try sink.write($0) }
            #expect(sink.bytesWritten == Int64(bytes.count))
            #expect(FileManager.default.contents(atPath: path) == Data(bytes))
            if hashing {
                #expect(try sink.sha256() == SHA256Hasher.hex(of: bytes))
            } else {
                #expect(sink.hasher == nil)
                #expect(throws: StewardError.self) { try sink.sha256() }
            }
        }
    }

    /// The compression runs below the checks' priority (so that the single-threaded
    /// checks are not left alone on one core at the end): its thread's nice value, seen
    /// from its progress callback, is this thread's plus the increment.
    @Test func thePayloadIsCompressedAtALowerPriority() throws {
        let (payload, manifest) = try makePayload()
        let builder = BundleBuilder(compressionLevel: 1, threads: 2, cancellation: Cancellation())
        let frame = open(directory.file("frame"), O_WRONLY | O_CREAT | O_EXCL, 0o600)
        #expect(frame >= 0)
        defer { close(frame) }
        let seen = Mutex<Int32?>(nil)
        let compression = builder.startPayload(
            path: payload, entryName: manifest.files[0].path, size: manifest.files[0].size, modificationTime: 0,
            into: frame, outputName: "frame") { _, _ in
                let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
                seen.withLock { $0 = nice }
            }
        _ = try compression.wait()
        let mine = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        #expect(BackgroundPriority.compressionNiceIncrement > 0)
        #expect(seen.withLock { $0 } == min(19, mine + BackgroundPriority.compressionNiceIncrement))
    }

    /// The payload's frame written behind `reserved` bytes of `name`, then the head into them.
    func buildInPlace(_ manifest: BundleManifest, payload: String, into name: String, reserved: Int64) throws -> Bool {
        let builder = BundleBuilder(compressionLevel: 3, threads: 2, cancellation: Cancellation())
        let descriptor = open(directory.file(name), O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        #expect(lseek(descriptor, off_t(reserved), SEEK_SET) == off_t(reserved))
        let compression = builder.startPayload(
            path: payload, entryName: manifest.files[0].path, size: manifest.files[0].size,
            modificationTime: try #require(BackupNaming.seconds(ofTimestamp: manifest.createdAt)),
            into: descriptor, behindHead: reserved, outputName: name) { _, _ in }
        _ = try compression.wait()
        return try builder.writeHead(manifest: manifest, payload: compression, reservedHead: reserved, into: descriptor, outputName: name)
    }

    /// In place, the bundle is the bundle written the other way with a skippable frame
    /// between the head's frame and the payload's, ending where the reserved room does.
    @Test func aBundleWrittenInPlaceIsTheSameFramesWithPaddingBetween() throws {
        let (payload, manifest) = try makePayload()
        _ = try build(manifest, payload: payload, into: "copied.tar.zst")
        #expect(try buildInPlace(manifest, payload: payload, into: "in-place.tar.zst", reserved: 4096))
        let copied = Array(try #require(FileManager.default.contents(atPath: directory.file("copied.tar.zst"))))
        let inPlace = Array(try #require(FileManager.default.contents(atPath: directory.file("in-place.tar.zst"))))
        let frame = 4096 - (inPlace.count - copied.count)
        #expect(frame > 0 && frame < 4096 - 8)
        let padding = try #require(BundleBuilder.skippableFrame(filling: 4096 - frame))
        #expect(inPlace == Array(copied[..<frame]) + padding + Array(copied[frame...]))
        let reader = try ArchiveReader(path: directory.file("in-place.tar.zst"))
        var names: [String] = []
        while let entry = try reader.nextEntry() {
            names.append(entry.name)
            _ = try reader.readData { _ in }
        }
        #expect(names == ["manifest.json", "manifest-sha256.txt", "data/tickets.sqlite"])
    }

    @Test func aHeadLargerThanItsRoomIsNotWritten() throws {
        let (payload, manifest) = try makePayload()
        #expect(try !buildInPlace(manifest, payload: payload, into: "b.tar.zst", reserved: 64))
        let bytes = try #require(FileManager.default.contents(atPath: directory.file("b.tar.zst")))
        #expect(bytes.prefix(64).allSatisfy { $0 == 0 }, "the room is left as it was")
    }

    @Test func skippableFramesHaveTheSizeAsked() throws {
        #expect(BundleBuilder.skippableFrame(filling: 0) == [])
        for count in [-1, 1, 7] { #expect(BundleBuilder.skippableFrame(filling: count) == nil) }
        #expect(BundleBuilder.skippableFrame(filling: 8) == [0x50, 0x2A, 0x4D, 0x18, 0, 0, 0, 0])
        #expect(BundleBuilder.skippableFrame(filling: 300) == [0x50, 0x2A, 0x4D, 0x18, 0x24, 0x01, 0, 0] + [UInt8](repeating: 0, count: 292))
    }

    /// Only a plain bundle written to a file, of a source of 64 MiB or more, is written in
    /// place: a streamed or encrypted bundle's head comes first in the stream or cipher.
    @Test func whichBundlesAreWrittenInPlace() {
        let large: Int64 = 64 << 20
        #expect(BackupMaker.reservedHead(sourceBytes: large, streams: false, encrypts: false) == 16384)
        #expect(BackupMaker.reservedHead(sourceBytes: large - 1, streams: false, encrypts: false) == nil)
        #expect(BackupMaker.reservedHead(sourceBytes: large, streams: true, encrypts: false) == nil)
        #expect(BackupMaker.reservedHead(sourceBytes: large, streams: false, encrypts: true) == nil)
    }

    @Test func entriesComeInOrderWithTheManifestAndSums() throws {
        let (payload, manifest) = try makePayload()
        _ = try build(manifest, payload: payload, into: "b.tar.zst")
        let reader = try ArchiveReader(path: directory.file("b.tar.zst"))
        var entries: [ArchiveReader.Entry] = []
        var contents: [[UInt8]] = []
        var summaries: [ArchiveReader.DataSummary] = []
        while let entry = try reader.nextEntry() {
            entries.append(entry)
            var bytes: [UInt8] = []
            summaries.append(try reader.readData { bytes.append(contentsOf: $0) })
            contents.append(bytes)
        }
        #expect(entries.map(\.name) == ["manifest.json", "manifest-sha256.txt", "data/tickets.sqlite"])
        #expect(entries.allSatisfy { $0.modificationTime == 1_796_012_910 && $0.permissions == 0o644 })
        #expect(try JSONDecoder().decode(BundleManifest.self, from: Data(contents[0])) == manifest)
        #expect(String(decoding: contents[1], as: UTF8.self) == "\(manifest.files[0].sha256)  data/tickets.sqlite\n")
        #expect(summaries[2].sha256 == manifest.files[0].sha256)
        #expect(contents[2] == Array(try Data(contentsOf: URL(fileURLWithPath: payload))))
    }

    @Test func manifestJSONHasSortedKeysAndNoRowData() throws {
        let (_, manifest) = try makePayload()
        let text = String(decoding: try manifest.encoded(), as: UTF8.self)
        #expect(text.hasPrefix("{\n  \"checks\" : {"))
        #expect(text.contains("\"format\" : \"steward-bundle\""))
        #expect(text.contains("\"formatVersion\" : 1"))
        #expect(text.hasSuffix("}\n"))
    }

    @Test func aPayloadThatChangedSizeIsRefused() throws {
        let (payload, manifest) = try makePayload()
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: payload))
        #expect(throws: StewardError.self) { _ = try build(manifest, payload: payload, into: "b.tar.zst") }
    }

    @Test func aManifestForAnotherPayloadIsRefused() throws {
        let (payload, manifest) = try makePayload()
        var builder = BundleBuilder(compressionLevel: 1, threads: 1, cancellation: Cancellation())
        builder.failWritesAfterBytes = nil
        let framePath = directory.file("frame")
        let frame = open(framePath, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        defer { close(frame) }
        let compression = builder.startPayload(path: payload, entryName: "data/other.sqlite", size: manifest.files[0].size,
                                               modificationTime: 0, into: frame, outputName: "b") { _, _ in }
        _ = try compression.wait()
        let output = open(directory.file("b"), O_WRONLY | O_CREAT | O_EXCL, 0o600)
        defer { close(output) }
        do {
            _ = try builder.write(manifest: manifest, payload: compression, payloadFramePath: framePath, to: output, outputName: "b")
            Issue.record("the manifest names another entry")
        } catch let error as StewardError {
            #expect(error.kind == .internal)
        }
    }

    @Test func aFullDiskIsAnInputOutputError() throws {
        let (payload, manifest) = try makePayload()
        do {
            _ = try build(manifest, payload: payload, into: "b.tar.zst", failAfter: 100)
            Issue.record("the write should fail")
        } catch let error as StewardError {
            #expect(error.kind == .inputOutput)
            #expect(error.message.contains("No space left on device"))
        }
    }

    @Test func cancellationStopsTheBundle() throws {
        let (payload, manifest) = try makePayload()
        let cancellation = Cancellation()
        cancellation.cancel(reason: "SIGINT")
        do {
            _ = try build(manifest, payload: payload, into: "b.tar.zst", cancellation: cancellation)
            Issue.record("a cancelled bundle should not be finished")
        } catch let error as StewardError {
            #expect(error.kind == .interrupted)
            #expect(error.message.contains("SIGINT"))
        }
    }
}
