import Foundation
import SQLiteKit
import Testing
import TestSupport

/// `steward inspect BUNDLE`: the manifest, and every hash verified by streaming through
/// the bundle without extracting it. A bundle is told by zstd's magic bytes, not its name.
@Suite struct InspectBundleTests {
    let directory: TemporaryDirectory
    var bundle: String { directory.file("tickets.tar.zst") }
    let parts: BundleParts

    init() throws {
        directory = try TemporaryDirectory()
        let source = directory.file("tickets.sqlite")
        try Fixtures.makeExampleDatabase(at: source, titles: ["Printer is on fire", "Café au lait spilled"])
        let run = try StewardProcess.run(["backup", "--db", source, "--out", directory.path, "--name", "tickets.tar.zst", "--quiet"])
        try #require(run.status == 0, "\(run.stderr)")
        parts = try BundleParts(reading: directory.file("tickets.tar.zst"))
    }

    @Test func aBundleShowsItsManifestAndVerifiesWithoutExtracting() throws {
        let before = try directory.contents()
        let run = try StewardProcess.run(["inspect", bundle])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Bundle     \(bundle)"))
        #expect(run.stdout.contains("Format     steward-bundle version 1"))
        #expect(run.stdout.contains("Source     tickets.sqlite: user_version 2"))
        #expect(run.stdout.contains("data/tickets.sqlite"))
        #expect(run.stdout.contains("sha256 verified"))
        #expect(run.stdout.contains("Verified   every SHA-256 matches the manifest"))
        #expect(!run.allOutput.contains("Printer is on fire"), "no row data")
        #expect(try directory.contents() == before, "nothing extracted")
    }

    @Test func theJSONCarriesTheManifestAndTheVerification() throws {
        let run = try StewardProcess.run(["inspect", "--json", bundle])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.json()
        #expect(report["command"] as? String == "inspect")
        #expect(report["kind"] as? String == "bundle")
        let manifest = try #require(report["manifest"] as? [String: Any])
        #expect(manifest["formatVersion"] as? Int == 1)
        #expect(manifest["files"] as? NSArray == parts.manifest["files"] as? NSArray)
        let entries = try #require(report["entries"] as? [[String: Any]])
        #expect(entries.map { $0["name"] as? String } == ["manifest.json", "manifest-sha256.txt", "data/tickets.sqlite"])
        let verification = try #require(report["verification"] as? [String: Any])
        #expect(verification["passed"] as? Bool == true)
        let files = try #require(verification["files"] as? [[String: Any]])
        #expect(files.first?["matches"] as? Bool == true)
        #expect(files.first?["sha256"] as? String == parts.file["sha256"] as? String)
    }

    @Test func theMagicBytesDecideNotTheName() throws {
        let disguised = directory.file("looks-like.sqlite")
        try FileManager.default.copyItem(atPath: bundle, toPath: disguised)
        let asBundle = try StewardProcess.run(["inspect", "--json", disguised])
        #expect(asBundle.status == 0, "\(asBundle.stderr)")
        #expect(try asBundle.json()["kind"] as? String == "bundle")

        let database = directory.file("looks-like.tar.zst")
        try FileManager.default.copyItem(atPath: directory.file("tickets.sqlite"), toPath: database)
        let asDatabase = try StewardProcess.run(["inspect", "--json", database])
        #expect(asDatabase.status == 0, "\(asDatabase.stderr)")
        #expect(try asDatabase.json()["kind"] as? String == "database")
    }

    @Test func anAlteredPayloadExits65WithTheReport() throws {
        var altered = parts
        altered.payload[9000] ^= 0x01
        let path = directory.file("altered.tar.zst")
        try altered.bundle(to: path)
        let run = try StewardProcess.run(["inspect", "--json", path])
        #expect(run.status == 65)
        #expect(run.stderr.contains("Error: the bundle is damaged or was altered"), "\(run.stderr)")
        let verification = try #require(try run.json()["verification"] as? [String: Any])
        #expect(verification["passed"] as? Bool == false)
        #expect((verification["files"] as? [[String: Any]])?.first?["matches"] as? Bool == false)
        let text = try StewardProcess.run(["inspect", path])
        #expect(text.status == 65)
        #expect(text.stdout.contains("SHA-256 MISMATCH"))
        #expect(text.stdout.contains("Verified   NO: the bundle is damaged or was altered"))
    }

    @Test func hostileEntriesAfterTheManifestExit65WithTheManifestShown() throws {
        var tar = TarBuilder()
        parts.addEntries(to: &tar, payload: false)
        tar.file("../evil", [1, 2, 3])
        tar.end()
        let path = directory.file("hostile.tar.zst")
        try Data(try TarBuilder.zstd(tar.bytes)).write(to: URL(fileURLWithPath: path))
        let run = try StewardProcess.run(["inspect", "--json", path])
        #expect(run.status == 65)
        #expect(run.stderr.contains("'../evil'"), "\(run.stderr)")
        let report = try run.json()
        #expect((report["manifest"] as? [String: Any])?["formatVersion"] as? Int == 1)
        #expect((report["verification"] as? [String: Any])?["problem"] as? String != nil)
    }

    @Test func aBundleWithoutAManifestExits65WithTheErrorObject() throws {
        let path = directory.file("nomanifest.tar.zst")
        try parts.bundle([parts.entries[2]], to: path)
        let run = try StewardProcess.run(["inspect", "--json", path])
        #expect(run.status == 65)
        let object = try run.json()
        #expect(object["status"] as? String == "error")
        #expect((object["error"] as? [String: Any])?["kind"] as? String == "bad-input")
        #expect(run.stderr.contains("the manifest is missing"), "\(run.stderr)")
    }

    @Test func aTruncatedBundleExits65() throws {
        let bytes = try #require(FileManager.default.contents(atPath: bundle))
        let path = directory.file("cut.tar.zst")
        try bytes.prefix(bytes.count - 10).write(to: URL(fileURLWithPath: path))
        let run = try StewardProcess.run(["inspect", path])
        #expect(run.status == 65, "\(run.stderr)")
    }
}
