import ArchiveKit
@testable import BundleFormat
import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// A bundle made by `BackupMaker` of the example database, taken apart for editing.
struct ExampleBundle {
    let directory: TemporaryDirectory
    let path: String
    let parts: BundleParts
    let database: String

    init(journalMode: String = "delete", titles: [String] = ["Printer is on fire", "Café au lait spilled"]) throws {
        directory = try TemporaryDirectory()
        database = directory.file("tickets.sqlite")
        try Fixtures.makeExampleDatabase(at: database, titles: titles, journalMode: journalMode)
        try FileManager.default.createDirectory(atPath: directory.file("out"), withIntermediateDirectories: true)
        var options = BackupMaker.Options(databasePath: database, outputDirectory: directory.file("out"))
        options.bundleName = "tickets.tar.zst"
        path = try BackupMaker(options: options).run().bundle.path
        parts = try BundleParts(reading: path)
    }
}

@Suite struct BundleReaderTests {
    let example: ExampleBundle

    init() throws {
        example = try ExampleBundle()
    }

    final class Collect: BundleReader.Sink {
        var bytes: [UInt8] = []
        var finished = false
        func write(_ block: UnsafeRawBufferPointer) throws { bytes.append(contentsOf: block) }
        func finish() throws { finished = true }
    }

    func read(_ path: String) throws -> (BundleReader.Outcome, Collect) {
        let sink = Collect()
        let outcome = try BundleReader(path: path, cancellation: Cancellation()).read { _ in sink }
        return (outcome, sink)
    }

    /// The message of the `.badInput` refusal, or nil when the bundle was accepted.
    func refusal(_ path: String) -> String? {
        do {
            _ = try read(path)
            return nil
        } catch let error as StewardError {
            #expect(error.kind == .badInput, "\(error)")
            return error.message
        } catch {
            Issue.record("unexpected \(error)")
            return "\(error)"
        }
    }

    func variant(_ name: String = "v.tar.zst", _ edit: (inout BundleParts) throws -> [BundleParts.Entry]?) throws -> String {
        var parts = example.parts
        let entries = try edit(&parts)
        let path = example.directory.file(name)
        try parts.bundle(entries, to: path)
        return path
    }

    @Test func aBundleFromBackupIsReadWithItsHashes() throws {
        let (outcome, sink) = try read(example.path)
        #expect(outcome.entries.map(\.name) == ["manifest.json", "manifest-sha256.txt", "data/tickets.sqlite"])
        #expect(outcome.manifest.source.fileName == "tickets.sqlite")
        #expect(outcome.files.count == 1)
        #expect(outcome.files[0].matches)
        #expect(outcome.files[0].sha256 == (try SHA256Hasher.hex(of: example.parts.payload)))
        #expect(sink.bytes == example.parts.payload)
        #expect(sink.finished)
        #expect(outcome.checksumListBytes == outcome.manifest.checksumList())
    }

    @Test func anAlteredPayloadIsReadButDoesNotMatch() throws {
        let path = try variant { parts in
            parts.payload[5000] ^= 0x01
            return nil
        }
        let (outcome, _) = try read(path)
        #expect(!outcome.files[0].matches)
        #expect(outcome.files[0].expectedSHA256 == example.parts.file["sha256"] as? String)
    }

    @Test func theManifestMustComeFirst() throws {
        let path = try variant { parts in
            [BundleParts.Entry("manifest-sha256.txt", parts.checksumList), .init("manifest.json", parts.manifestBytes),
             .init(parts.payloadName, parts.payload)]
        }
        #expect(refusal(path)?.contains("the first entry is 'manifest-sha256.txt', not manifest.json") == true)
        let none = try variant("none.tar.zst") { parts in [.init(parts.payloadName, parts.payload)] }
        #expect(refusal(none)?.contains("the manifest is missing") == true)
        let empty = try variant("empty.tar.zst") { _ in [] }
        #expect(refusal(empty)?.contains("it holds no entries") == true)
    }

    @Test func theChecksumListMustFollowAndMatch() throws {
        let missing = try variant { parts in [.init("manifest.json", parts.manifestBytes), .init(parts.payloadName, parts.payload)] }
        #expect(refusal(missing)?.contains("the second entry is 'data/tickets.sqlite', not manifest-sha256.txt") == true)
        let wrong = try variant("wrong.tar.zst") { parts in
            [.init("manifest.json", parts.manifestBytes), .init("manifest-sha256.txt", Array("0000  data/tickets.sqlite\n".utf8)),
             .init(parts.payloadName, parts.payload)]
        }
        #expect(refusal(wrong)?.contains("manifest-sha256.txt does not list exactly the files") == true)
    }

    @Test func unlistedExtraAndMissingEntriesAreRefused() throws {
        let extra = try variant { parts in parts.entries + [.init("data/extra.sqlite", [1, 2, 3])] }
        #expect(refusal(extra)?.contains("the entry 'data/extra.sqlite' is not listed in manifest.json") == true)
        let missing = try variant("missing.tar.zst") { parts in Array(parts.entries.prefix(2)) }
        #expect(refusal(missing)?.contains("the entry 'data/tickets.sqlite' listed in manifest.json is missing") == true)
    }

    @Test func anEntryLargerOrSmallerThanListedIsRefusedBeforeItsData() throws {
        for (delta, word) in [(-1, "more than"), (1, "fewer than")] {
            let path = try variant("size\(delta).tar.zst") { parts in
                var file = parts.file
                file["size"] = parts.payload.count + delta
                parts.file = file
                return nil
            }
            var written = 0
            final class Count: BundleReader.Sink {
                var count: () -> Void
                init(_ count: @escaping () -> Void) { self.count = count }
                func write(_ block: UnsafeRawBufferPointer) throws { count() }
                func finish() throws {}
            }
            do {
                _ = try BundleReader(path: path, cancellation: Cancellation()).read { _ in Count { written += 1 } }
                Issue.record("a size of \(delta) bytes off was accepted")
            } catch let error as StewardError {
                #expect(error.kind == .badInput)
                #expect(error.message.contains("holds \(example.parts.payload.count) bytes, \(word) the \(example.parts.payload.count + delta) bytes"), "\(error)")
            }
            #expect(written == 0, "no payload data was handed on")
        }
    }

    @Test func aTruncatedBundleIsRefused() throws {
        let bytes = try #require(FileManager.default.contents(atPath: example.path))
        for cut in [10, bytes.count / 3, bytes.count / 2, bytes.count - 20, bytes.count - 1] {
            let path = example.directory.file("cut\(cut).tar.zst")
            try Data(bytes.prefix(cut)).write(to: URL(fileURLWithPath: path))
            #expect(refusal(path) != nil, "cut at \(cut) of \(bytes.count)")
        }
    }

    @Test func aMissingBundleIsNotFound() throws {
        do {
            _ = try read(example.directory.file("nope.tar.zst"))
            Issue.record("read a missing file")
        } catch let error as StewardError {
            #expect(error.kind == .notFound)
        }
    }

    @Test func cancellationStopsReadingThePayload() throws {
        let cancellation = Cancellation()
        cancellation.cancel(reason: "SIGINT")
        do {
            _ = try BundleReader(path: example.path, cancellation: cancellation).read { _ in Collect() }
            Issue.record("not interrupted")
        } catch let error as StewardError {
            #expect(error.kind == .interrupted)
            #expect(error.message == "interrupted by SIGINT")
        }
    }

    @Test func hostileEntriesAreRefusedByName() throws {
        let cases: [(String, (inout TarBuilder, BundleParts) -> Void, String)] = [
            ("absolute", { tar, parts in parts.addEntries(to: &tar, payload: false); tar.file("/tmp/evil", [1]); tar.end() },
             "the entry '/tmp/evil' has a name no bundle holds"),
            ("dotdot", { tar, parts in parts.addEntries(to: &tar, payload: false); tar.file("../evil", [1]); tar.end() },
             "the entry '../evil' has a name no bundle holds"),
            ("symlink", { tar, parts in
                parts.addEntries(to: &tar, payload: false)
                tar.header(name: parts.payloadName, type: "2", size: 0, linkName: "/etc/passwd")
                tar.end()
            }, "the entry 'data/tickets.sqlite' is not a regular file"),
            ("hardlink", { tar, parts in
                parts.addEntries(to: &tar, payload: false)
                tar.header(name: parts.payloadName, type: "1", size: 0, linkName: "manifest.json")
                tar.end()
            }, "the entry 'data/tickets.sqlite' is not a regular file"),
            ("device", { tar, parts in
                parts.addEntries(to: &tar, payload: false)
                tar.header(name: parts.payloadName, type: "3", size: 0)
                tar.end()
            }, "the entry 'data/tickets.sqlite' is not a regular file"),
            ("duplicate", { tar, parts in parts.addEntries(to: &tar); tar.file(parts.payloadName, parts.payload); tar.end() },
             "the entry 'data/tickets.sqlite' appears twice"),
            ("no end", { tar, parts in parts.addEntries(to: &tar) }, "the stream is truncated"),
        ]
        for (name, build, expected) in cases {
            let path = example.directory.file("\(name).tar.zst")
            try example.parts.tar(to: path, build)
            let message = refusal(path)
            #expect(message?.contains(expected) == true, "\(name): \(message ?? "accepted")")
        }
    }
}
