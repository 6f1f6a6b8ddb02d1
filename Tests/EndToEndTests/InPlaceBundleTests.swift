import Foundation
import SQLiteKit
import Testing
import TestSupport

/// A large plain bundle gets its payload's zstd frame written straight into it, behind
/// room kept for the head, which is filled at the end with the head's frame and a zstd
/// skippable frame (`BackupMaker.reservedHead`; design notes, "Bundle format"). The
/// hooks make a small source take that way, and make the head too large for its room.
@Suite struct InPlaceBundleTests {
    let directory: TemporaryDirectory
    var database: String { directory.file("tickets.sqlite") }
    var out: String { directory.file("out") }
    var bundle: String { out + "/b.tar.zst" }

    static let inPlace = ["STEWARD_TEST_HOOK_BUNDLE_IN_PLACE_FROM_BYTES": "1"]
    static let reserved = 16384
    /// The first skippable frame's magic number, 0x184D2A50, little-endian (RFC 8878, 3.1.2).
    static let skippableMagic: [UInt8] = [0x50, 0x2A, 0x4D, 0x18]
    static let zstdMagic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]

    init() throws {
        directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try Fixtures.makeExampleDatabase(at: database, titles: ["Printer is on fire", "Café au lait spilled"])
        // 2 MiB that zstd cannot shrink, so that the payload's frame is written in many pieces.
        try Connection(path: database).execute(sql: """
            CREATE TABLE filler(id INTEGER PRIMARY KEY, b BLOB);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 512)
            INSERT INTO filler(b) SELECT randomblob(4000) FROM c;
            """)
    }

    func backup(_ environment: [String: String]) throws -> StewardRun {
        try StewardProcess.run(["backup", "--db", database, "--out", out, "--name", "b.tar.zst", "--json"], environment: environment)
    }

    /// Where the skippable frame starts in `bytes`, if anywhere before the reserved room ends.
    func skippableFrameOffset(_ bytes: [UInt8]) -> Int? {
        (4..<min(bytes.count, Self.reserved) - 4).first { Array(bytes[$0..<$0 + 4]) == Self.skippableMagic }
    }

    /// The report names the bundle's size and SHA-256 as they are on disk; the system's
    /// zstd and tar read it; the extracted payload matches its checksum list and is the
    /// source; inspect and restore take it; nothing but the bundle is left.
    func expectAGoodBundle(_ run: StewardRun) throws -> [UInt8] {
        #expect(run.status == 0, "\(run.stderr)")
        let bytes = Array(try #require(FileManager.default.contents(atPath: bundle)))
        let reported = try #require(try run.json()["bundle"] as? [String: Any])
        #expect(reported["sizeBytes"] as? Int == bytes.count)
        #expect(reported["sha256"] as? String == String(try systemTool(["sha256sum", bundle]).output.prefix(64)))
        #expect(try systemTool(["zstd", "-t", "-q", bundle]).status == 0)
        #expect(try systemTool(["tar", "--zstd", "-tf", bundle]).output == "manifest.json\nmanifest-sha256.txt\ndata/tickets.sqlite\n")
        let extracted = directory.file("extracted")
        try FileManager.default.createDirectory(atPath: extracted, withIntermediateDirectories: true)
        #expect(try systemTool(["tar", "--zstd", "-xf", bundle, "-C", extracted]).status == 0)
        #expect(try systemTool(["sha256sum", "-c", "manifest-sha256.txt"], in: extracted).output == "data/tickets.sqlite: OK\n")
        #expect(try DatabaseState(path: extracted + "/data/tickets.sqlite") == DatabaseState(path: database))
        let inspected = try StewardProcess.run(["inspect", "--json", bundle])
        #expect(inspected.status == 0, "\(inspected.allOutput)")
        #expect((try inspected.json()["bundle"] as? [String: Any])?["sizeBytes"] as? Int == bytes.count)
        let restored = try StewardProcess.run(["restore", "--quiet", "--into", directory.file("restored"), bundle])
        #expect(restored.status == 0, "\(restored.allOutput)")
        #expect(try directory.contents(of: "out") == ["b.tar.zst"], "no temporaries left")
        return bytes
    }

    @Test func theFrameIsWrittenBehindTheHeadAndItsPadding() throws {
        let bytes = try expectAGoodBundle(try backup(Self.inPlace))
        #expect(Array(bytes[0..<4]) == Self.zstdMagic, "the head's frame first")
        let padding = try #require(skippableFrameOffset(bytes), "a skippable frame pads the head out")
        let size = bytes[padding + 4..<padding + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
        #expect(padding + 8 + size == Self.reserved, "the padding ends where the room for the head does")
        #expect(bytes[padding + 8..<Self.reserved].allSatisfy { $0 == 0 })
        #expect(Array(bytes[Self.reserved..<Self.reserved + 4]) == Self.zstdMagic, "the payload's frame right behind")
    }

    @Test func aSmallSourceGetsNoPadding() throws {
        let bytes = try expectAGoodBundle(try backup([:]))
        #expect(skippableFrameOffset(bytes) == nil)
    }

    /// A head larger than its room: the bundle is written anew, head then frame, as for
    /// a small source.
    @Test func aHeadLargerThanItsRoomIsWrittenAnew() throws {
        var environment = Self.inPlace
        environment["STEWARD_TEST_HOOK_BUNDLE_HEAD_RESERVE_BYTES"] = "64"
        let bytes = try expectAGoodBundle(try backup(environment))
        #expect(skippableFrameOffset(bytes) == nil)
    }

    /// The kernel copy fails after the frame was compressed behind it: the online backup
    /// API copies again, and the frame is compressed again into the same room.
    @Test func aFrameCompressedAgainGoesBehindTheSameRoom() throws {
        var environment = Self.inPlace
        environment["STEWARD_TEST_HOOK_KERNEL_COPY_FAILS"] = "1"
        let run = try backup(environment)
        let snapshot = try #require((try run.json()["manifest"] as? [String: Any])?["snapshot"] as? [String: Any])
        #expect(snapshot["pagesPerStep"] as? Int == 4096, "the online backup API made the copy: \(snapshot)")
        let bytes = try expectAGoodBundle(run)
        #expect(skippableFrameOffset(bytes) != nil)
        #expect(Array(bytes[Self.reserved..<Self.reserved + 4]) == Self.zstdMagic)
    }

    @Test(arguments: ["100000", "1000"])
    func aFullDiskWhileTheFrameIsWrittenExits74AndLeavesNothing(limit: String) throws {
        var environment = Self.inPlace
        environment["STEWARD_TEST_HOOK_BUNDLE_ENOSPC_AFTER_BYTES"] = limit
        let run = try backup(environment)
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains("No space left on device"), "\(run.stderr)")
        #expect(try directory.contents(of: "out").isEmpty)
    }
}
