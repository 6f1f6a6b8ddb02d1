import Foundation
import SQLiteKit
import Testing
import TestSupport

/// `steward restore BUNDLE --check-only`: every check of a restore, then
/// nothing published and no staging left anywhere.
@Suite struct RestoreDrillTests {
    static let titles = ["Printer is on fire", "Café au lait spilled", "客户工单搜索"]

    let directory: TemporaryDirectory
    var database: String { directory.file("tickets.sqlite") }

    init() throws {
        directory = try TemporaryDirectory()
    }

    func makeBundle() throws -> String {
        try Fixtures.makeExampleDatabase(at: database, titles: Self.titles, journalMode: "delete")
        let out = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let run = try StewardProcess.run(["backup", "--db", database, "--out", out, "--name", "t.tar.zst", "--quiet"])
        try #require(run.status == 0, "\(run.stderr)")
        return out + "/t.tar.zst"
    }

    @Test func aDrillRunsEveryCheckAndPublishesNothing() throws {
        let bundle = try makeBundle()
        let tmp = directory.file("tmp")
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let run = try StewardProcess.run(["restore", bundle, "--check-only", "--json"], environment: ["TMPDIR": tmp])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.json()
        #expect(report["checkOnly"] as? Bool == true)
        #expect(report["published"] as? Bool == false)
        #expect((report["failedChecks"] as? [String]) == [])
        let checks = try #require(report["checks"] as? [[String: Any]])
        let names = checks.compactMap { $0["name"] as? String }
        for name in ["sha256", "header", "integrity", "foreign-keys", "read-write-probe"] {
            #expect(names.contains(name), "\(name) ran: \(names)")
        }
        #expect(try directory.contents(of: "tmp") == [], "the staging workspace is gone")
        #expect(try directory.contents() == ["bundles", "tickets.sqlite", "tmp"])
        for title in Self.titles { #expect(!run.allOutput.contains(title)) }

        let text = try StewardProcess.run(["restore", bundle, "--check-only"], environment: ["TMPDIR": tmp])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("nothing was published"))
    }

    @Test func aDrillWithIntoLeavesTheDirectoryAlone() throws {
        let bundle = try makeBundle()
        let run = try StewardProcess.run(["restore", bundle, "--check-only", "--into", directory.file("restored")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try directory.contents() == ["bundles", "tickets.sqlite"])
    }

    @Test func aDrillOfADamagedBundleFailsAndLeavesNothing() throws {
        let bundle = try makeBundle()
        var bytes = try #require(FileManager.default.contents(atPath: bundle))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: bundle))
        let tmp = directory.file("tmp")
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let run = try StewardProcess.run(["restore", bundle, "--check-only"], environment: ["TMPDIR": tmp])
        #expect(run.status == 65 || run.status == 1, "\(run.stderr)")
        #expect(try directory.contents(of: "tmp") == [])
    }

    @Test func restoreWithoutIntoOrCheckOnlyIsAUsageError() throws {
        let run = try StewardProcess.run(["restore", "x.tar.zst"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--into"))
    }
}
