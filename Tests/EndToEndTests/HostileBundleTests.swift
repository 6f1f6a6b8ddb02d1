import ArchiveKit
import Foundation
import SQLiteKit
import Testing
import TestSupport

/// Bundles that were made, or changed, by somebody else, restored by the binary: each is
/// refused with 65 (or 1 when a database check fails), the target does not exist
/// afterwards, no staging directory is left, and no file appears anywhere else (the
/// parent directory, and the places traversal attempts aim at).
@Suite struct HostileBundleTests {
    let directory: TemporaryDirectory
    /// Where every bundle of a test is written and restored from: the parent of the target.
    var work: String { directory.file("work") }
    var into: String { work + "/restored" }
    let parts: BundleParts
    /// A name no test run shares, for files that traversal attempts would create.
    let unique = "steward-evil-\(UUID().uuidString.prefix(8))"

    init() throws {
        directory = try TemporaryDirectory()
        let source = directory.file("tickets.sqlite")
        try Fixtures.makeExampleDatabase(at: source)
        try FileManager.default.createDirectory(atPath: directory.file("work"), withIntermediateDirectories: true)
        let run = try StewardProcess.run(["backup", "--db", source, "--out", directory.path, "--name", "good.tar.zst", "--quiet"])
        try #require(run.status == 0, "\(run.stderr)")
        parts = try BundleParts(reading: directory.file("good.tar.zst"))
    }

    /// Restores `bundle` (inside `work`) and checks that nothing was left anywhere.
    func refuse(_ bundle: String, status expected: Int32 = 65, naming: String, label: String,
                traversalTargets: [String] = []) throws {
        let before = try directory.contents(of: "work")
        let run = try StewardProcess.run(["restore", bundle, "--into", into, "--json"])
        #expect(run.status == expected, "\(label): \(run.stderr)")
        #expect(run.stderr.contains(naming), "\(label): stderr names '\(naming)': \(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: into), "\(label): the target does not exist")
        #expect(try directory.contents(of: "work") == before, "\(label): nothing left beside the target")
        #expect(try directory.contents() == ["good.tar.zst", "tickets.sqlite", "work"], "\(label): nothing in the grandparent")
        for target in traversalTargets {
            #expect(!FileManager.default.fileExists(atPath: target), "\(label): \(target) was not created")
        }
        if expected == 65 {
            #expect(try run.json()["exitCode"] as? Int == 65, "\(label)")
        } else {
            #expect(try run.json()["published"] as? Bool == false, "\(label)")
        }
    }

    func path(_ name: String) -> String {
        work + "/" + name
    }

    // MARK: - After the end of the archive

    /// A bundle with data after tar's end-of-archive blocks is refused
    /// by restore and by inspect (65), whether the data is in the last zstd frame or in a
    /// frame appended to the bundle.
    @Test func dataAfterTheEndOfTheArchiveIsRefused() throws {
        let inFrame = path("trailer.tar.zst")
        try parts.tar(to: inFrame) { tar, parts in
            parts.addEntries(to: &tar)
            tar.end()
            tar.data(Array("\nRestored    /etc/passwd\n".utf8))
        }
        let appended = path("appended.tar.zst")
        let good = try Data(contentsOf: URL(fileURLWithPath: directory.file("good.tar.zst")))
        try (good + Data(try TarBuilder.zstd(Array(repeating: 0x41, count: 4096)))).write(to: URL(fileURLWithPath: appended))
        for bundle in [inFrame, appended] {
            try refuse(bundle, naming: "after the end-of-archive blocks", label: bundle)
            let inspect = try StewardProcess.run(["inspect", bundle])
            #expect(inspect.status == 65, "\(bundle): \(inspect.stderr)")
            #expect(inspect.stderr.contains("after the end-of-archive blocks"))
        }
        // The bundle as backup wrote it still restores: nothing follows its end blocks.
        let run = try StewardProcess.run(["restore", directory.file("good.tar.zst"), "--into", into])
        #expect(run.status == 0, "\(run.stderr)")
    }

    // MARK: - Entries no bundle holds

    @Test func absolutePathsAndTraversalAreRefusedAndCreateNothing() throws {
        let absolute = "/tmp/\(unique)"
        let traversals = ["../\(unique)", "data/../../\(unique)", "../../\(unique)"]
        var tar = TarBuilder()
        parts.addEntries(to: &tar, payload: false)
        tar.file(absolute, Array("owned".utf8))
        tar.end()
        try Data(try TarBuilder.zstd(tar.bytes)).write(to: URL(fileURLWithPath: path("absolute.tar.zst")))
        try refuse(path("absolute.tar.zst"), naming: "'\(absolute)'", label: "absolute", traversalTargets: [absolute])

        for (index, name) in traversals.enumerated() {
            let bundle = path("traversal\(index).tar.zst")
            try parts.tar(to: bundle) { tar, parts in
                parts.addEntries(to: &tar, payload: false)
                tar.file(name, Array("owned".utf8))
                tar.end()
            }
            // Relative to the staging directory (in work/), its parent and grandparent.
            let targets = [directory.file(unique), directory.url.deletingLastPathComponent().appendingPathComponent(unique).path,
                           path(unique)]
            try refuse(bundle, naming: "'\(name)'", label: name, traversalTargets: targets)
        }
        // A pax header can give any path, whatever the ustar name says.
        try parts.tar(to: path("pax.tar.zst")) { tar, parts in
            parts.addEntries(to: &tar, payload: false)
            tar.pax(["path": "../\(unique)"])
            tar.file(parts.payloadName, parts.payload)
            tar.end()
        }
        try refuse(path("pax.tar.zst"), naming: "'../\(unique)'", label: "pax path", traversalTargets: [directory.file(unique)])
    }

    /// A directory holding a bundle's three names, archived by the system tar (pax, zstd).
    func systemTarBundle(_ name: String, payload make: (String) throws -> Void) throws -> String {
        let tree = directory.file("tree-\(name)")
        try FileManager.default.createDirectory(atPath: tree + "/data", withIntermediateDirectories: true)
        try Data(parts.manifestBytes).write(to: URL(fileURLWithPath: tree + "/manifest.json"))
        try Data(parts.checksumList).write(to: URL(fileURLWithPath: tree + "/manifest-sha256.txt"))
        try make(tree + "/" + parts.payloadName)
        let bundle = path(name)
        let tar = try systemTool(["tar", "--zstd", "--format=pax", "-cf", bundle, "-C", tree,
                                  "manifest.json", "manifest-sha256.txt", parts.payloadName])
        try #require(tar.status == 0, "\(tar.output)")
        try FileManager.default.removeItem(atPath: tree)
        return bundle
    }

    @Test func linksFIFOsAndDevicesAreRefused() throws {
        let symlink = try systemTarBundle("symlink.tar.zst") { payload in
            try FileManager.default.createSymbolicLink(atPath: payload, withDestinationPath: "/etc/passwd")
        }
        try refuse(symlink, naming: "'data/tickets.sqlite' is not a regular file", label: "symlink")

        let hardlink = try systemTarBundle("hardlink.tar.zst") { payload in
            try FileManager.default.linkItem(atPath: (payload as NSString).deletingLastPathComponent + "/../manifest.json", toPath: payload)
        }
        try refuse(hardlink, naming: "'data/tickets.sqlite' is not a regular file", label: "hard link")

        let fifo = try systemTarBundle("fifo.tar.zst") { payload in
            #expect(mkfifo(payload, 0o644) == 0)
        }
        try refuse(fifo, naming: "'data/tickets.sqlite' is not a regular file", label: "fifo")

        for (type, label) in [("3", "character device"), ("4", "block device"), ("5", "directory")] {
            let bundle = path("device\(type).tar.zst")
            try parts.tar(to: bundle) { tar, parts in
                parts.addEntries(to: &tar, payload: false)
                tar.header(name: parts.payloadName, type: Character(type), size: 0)
                tar.end()
            }
            try refuse(bundle, naming: "'data/tickets.sqlite' is not a regular file", label: label)
        }
    }

    @Test func duplicateUnlistedAndMissingEntriesAreRefused() throws {
        try parts.tar(to: path("duplicate.tar.zst")) { tar, parts in
            parts.addEntries(to: &tar)
            tar.file(parts.payloadName, parts.payload)
            tar.end()
        }
        try refuse(path("duplicate.tar.zst"), naming: "'data/tickets.sqlite' appears twice", label: "duplicate")

        try parts.bundle(parts.entries + [.init("data/extra.sqlite", parts.payload)], to: path("unlisted.tar.zst"))
        try refuse(path("unlisted.tar.zst"), naming: "'data/extra.sqlite' is not listed in manifest.json", label: "unlisted")

        try parts.bundle(Array(parts.entries.prefix(2)), to: path("missing.tar.zst"))
        try refuse(path("missing.tar.zst"), naming: "'data/tickets.sqlite' listed in manifest.json is missing", label: "missing")
    }

    // MARK: - Sizes

    @Test func dataLongerOrShorterThanTheManifestSaysIsRefused() throws {
        var shorter = parts
        var file = shorter.file
        file["size"] = parts.payload.count - 4096
        shorter.file = file
        try shorter.bundle(to: path("longer.tar.zst"))
        try refuse(path("longer.tar.zst"), naming: "'data/tickets.sqlite' holds \(parts.payload.count) bytes, more than the \(parts.payload.count - 4096) bytes",
                   label: "data longer than listed")

        var longer = parts
        file = longer.file
        file["size"] = parts.payload.count + 4096
        longer.file = file
        try longer.bundle(to: path("shorter.tar.zst"))
        try refuse(path("shorter.tar.zst"), naming: "fewer than the \(parts.payload.count + 4096) bytes", label: "data shorter than listed")

        // A tar header that lies about its own data: the stream runs out.
        try parts.tar(to: path("header.tar.zst")) { tar, parts in
            parts.addEntries(to: &tar, payload: false)
            tar.header(name: parts.payloadName, size: parts.payload.count)
            tar.data(Array(parts.payload.prefix(4096)))
        }
        try refuse(path("header.tar.zst"), naming: "truncated", label: "tar size lies")
    }

    @Test func aManifestWhosePageCountLiesFailsItsCheckWith1() throws {
        var liar = parts
        liar.setSource("pageCount", 1)
        try liar.bundle(to: path("pages.tar.zst"))
        try refuse(path("pages.tar.zst"), status: 1, naming: "payload-size failed", label: "page count lies")
    }

    // MARK: - Manifests

    @Test func missingMalformedAndUnknownManifestsAreRefused() throws {
        try parts.bundle([parts.entries[1], parts.entries[2]], to: path("nomanifest.tar.zst"))
        try refuse(path("nomanifest.tar.zst"), naming: "manifest.json", label: "missing manifest")

        try parts.bundle([.init("manifest.json", Array("{\"format\": \"steward-bundle\", ".utf8)), parts.entries[1], parts.entries[2]],
                         to: path("malformed.tar.zst"))
        try refuse(path("malformed.tar.zst"), naming: "manifest.json is malformed", label: "malformed manifest")

        var future = parts
        future.manifest["formatVersion"] = 2
        try future.bundle(to: path("future.tar.zst"))
        try refuse(path("future.tar.zst"), naming: "manifest.json has the unknown format version 2", label: "unknown version")

        var incomplete = parts
        incomplete.manifest["checks"] = nil
        try incomplete.bundle(to: path("incomplete.tar.zst"))
        try refuse(path("incomplete.tar.zst"), naming: "manifest.json is malformed: checks is missing", label: "incomplete manifest")
    }

    // MARK: - Streams and payloads

    @Test func truncatedStreamsAreRefused() throws {
        let bytes = try #require(FileManager.default.contents(atPath: directory.file("good.tar.zst")))
        for cut in [0, 4, bytes.count / 4, bytes.count / 2, bytes.count - 8, bytes.count - 1] {
            let bundle = path("cut\(cut).tar.zst")
            try Data(bytes.prefix(cut)).write(to: URL(fileURLWithPath: bundle))
            try refuse(bundle, naming: "refusing the bundle", label: "cut at \(cut) of \(bytes.count)")
        }
    }

    @Test func otherFormatsAreRefused() throws {
        var tar = TarBuilder()
        parts.addEntries(to: &tar)
        tar.end()
        try Data(tar.bytes).write(to: URL(fileURLWithPath: path("plain.tar.zst")))
        try refuse(path("plain.tar.zst"), naming: "refusing the bundle", label: "uncompressed tar")
        let gzip = try systemTool(["sh", "-c", "tar -czf '\(path("gzip.tar.zst"))' -C '\(directory.path)' tickets.sqlite"])
        try #require(gzip.status == 0)
        try refuse(path("gzip.tar.zst"), naming: "refusing the bundle", label: "gzip")
    }

    @Test func anAlteredPayloadIsDamagedOrAltered() throws {
        var altered = parts
        altered.payload[altered.payload.count / 2] ^= 0x40
        try altered.bundle(to: path("altered.tar.zst"))
        try refuse(path("altered.tar.zst"), naming: "bundle is damaged or was altered", label: "altered payload")
    }

    @Test func aPayloadThatIsNotSQLiteIsRefusedWith65() throws {
        var text = parts
        try text.replacePayload(with: Array(String(repeating: "not a database\n", count: 600).utf8))
        try text.bundle(to: path("text.tar.zst"))
        try refuse(path("text.tar.zst"), naming: "is not a SQLite database", label: "text payload")

        var short = parts
        try short.replacePayload(with: Array("SQLite format 3\u{0}".utf8))
        try short.bundle(to: path("short.tar.zst"))
        try refuse(path("short.tar.zst"), naming: "is not a SQLite database", label: "header only")
    }

    @Test func aDatabaseWithADamagedPageFailsIntegrityCheckWith1() throws {
        let source = directory.file("indexed.sqlite")
        try Fixtures.makeIndexedDatabase(at: source, userVersion: 0)
        let bytes = try Fixtures.damagedIndexBytes(of: source)
        try FileManager.default.removeItem(atPath: source)

        var damaged = parts
        try damaged.replacePayload(with: bytes)
        damaged.setSource("userVersion", 0)
        damaged.setSource("pageCount", bytes.count / 4096)
        try damaged.bundle(to: path("damaged.tar.zst"))
        try refuse(path("damaged.tar.zst"), status: 1, naming: "integrity failed", label: "damaged page")
    }

    // MARK: - Mutations through the binary

    /// A subset of the mutation test (the rest runs in-process in StewardCoreTests): the
    /// binary never crashes or hangs, and exits 0 only with the original payload.
    @Test func mutatedBundlesThroughTheBinary() throws {
        let original = Array(try #require(FileManager.default.contents(atPath: directory.file("good.tar.zst"))))
        var statuses: [Int32: Int] = [:]
        for (index, mutant) in BundleMutation.mutants(of: original, count: 24, seed: 65_001).enumerated() {
            let bundle = path("m\(index).tar.zst")
            try Data(mutant.bytes).write(to: URL(fileURLWithPath: bundle))
            let target = work + "/r\(index)"
            let run = try StewardProcess.run(["restore", bundle, "--into", target], timeout: 20)
            #expect([0, 1, 65].contains(run.status), "\(mutant.description): status \(run.status): \(run.stderr)")
            statuses[run.status, default: 0] += 1
            if run.status == 0 {
                #expect(Array(FileManager.default.contents(atPath: target + "/data/tickets.sqlite") ?? Data()) == parts.payload,
                        "\(mutant.description)")
                try FileManager.default.removeItem(atPath: target)
            }
            try FileManager.default.removeItem(atPath: bundle)
            #expect(try directory.contents(of: "work").isEmpty, "\(mutant.description)")
        }
        #expect(statuses.values.reduce(0, +) == 24, "\(statuses)")
    }
}
