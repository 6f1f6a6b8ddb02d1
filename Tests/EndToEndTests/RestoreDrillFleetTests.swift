import Foundation
import SQLiteKit
import Testing
import TestSupport

/// `steward restore --check-only` over many bundles, with the fleet options of
/// migrate, verify and backup: one NDJSON line per bundle as it finishes, a summary, shards, `--fail-fast`,
/// encrypted bundles, the fleet's exit rule; nothing published and no staging left.
@Suite(.enabled(if: AgeTool.isInstalled, "the age and age-keygen tools (Debian package age) are not installed"))
struct RestoreDrillFleetTests {
    static let titles = ["Printer is on fire", "Café au lait spilled", "客户工单搜索"]

    let directory: TemporaryDirectory
    var keyFile: String { directory.file("key.txt") }

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// Twenty bundles: sixteen plain copies, one encrypted to `key.txt`, one encrypted to
    /// another key (77), one with a flipped byte, and one that does not exist (66). The
    /// list is in this order; the three failures are at positions 17, 18 and 19.
    func makeBundles() throws -> (all: [String], encryptedToOther: String, corrupt: String, missing: String) {
        let database = directory.file("tickets.sqlite")
        try Fixtures.makeExampleDatabase(at: database, titles: Self.titles, journalMode: "delete")
        let out = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try #require(try systemTool(["age-keygen", "-o", keyFile]).status == 0)
        let recipient = try systemTool(["age-keygen", "-y", keyFile]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let other = try systemTool(["sh", "-c", "age-keygen 2>/dev/null | age-keygen -y"]).output.trimmingCharacters(in: .whitespacesAndNewlines)

        let plain = try StewardProcess.run(["backup", "--db", database, "--out", out, "--name", "plain-00.tar.zst", "--quiet"])
        try #require(plain.status == 0, "\(plain.stderr)")
        var bundles = [out + "/plain-00.tar.zst"]
        for index in 1..<16 {
            // A copy is another file (another inode): not a duplicate of the first.
            let copy = out + String(format: "/plain-%02d.tar.zst", index)
            try FileManager.default.copyItem(atPath: bundles[0], toPath: copy)
            bundles.append(copy)
        }
        for (name, key) in [("mine.tar.zst.age", recipient), ("other.tar.zst.age", other)] {
            let run = try StewardProcess.run(["backup", "--db", database, "--out", out, "--name", name, "--recipient", key, "--quiet"])
            try #require(run.status == 0, "\(run.stderr)")
            bundles.append(out + "/" + name)
        }
        let corrupt = out + "/corrupt.tar.zst"
        var bytes = try #require(FileManager.default.contents(atPath: bundles[0]))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: corrupt))
        bundles.append(corrupt)
        let missing = out + "/missing.tar.zst"
        bundles.append(missing)
        return (bundles, out + "/other.tar.zst.age", corrupt, missing)
    }

    static func lines(_ run: StewardRun) throws -> [[String: Any]] {
        try run.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    /// The bundle lines by path, and the summary.
    static func parts(_ lines: [[String: Any]]) -> (bundles: [String: [String: Any]], summaries: [[String: Any]]) {
        var bundles: [String: [String: Any]] = [:]
        for line in lines where line["kind"] as? String == "bundle" {
            if let path = (line["bundle"] as? [String: Any])?["path"] as? String { bundles[path] = line }
        }
        return (bundles, lines.filter { $0["kind"] as? String == "summary" })
    }

    @Test func twentyBundlesAreDrilledEachWithItsOwnStatus() throws {
        let made = try makeBundles()
        let tmp = directory.file("tmp")
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let before = try directory.contents(of: "bundles")
        let run = try StewardProcess.run(
            ["restore", "--check-only", "--json", "--identity", keyFile, "--jobs", "3"] + made.all, environment: ["TMPDIR": tmp])
        // Three different failure statuses: the fleet's status is 1.
        #expect(run.status == 1, "\(run.stderr)")
        // Every line (passed, failed, each error, the summary) is what the schema names.
        let problems = try JSONValidator.problems([("restore drill", run.stdout)], in: try TemporaryDirectory())
        #expect(problems.isEmpty, "\(problems)")
        let (bundles, summaries) = Self.parts(try Self.lines(run))
        #expect(bundles.count == 20)
        for path in made.all {
            let line = try #require(bundles[path], "a line for \(path)")
            let expected: Int32 = path == made.encryptedToOther ? 77 : path == made.missing ? 66 : path == made.corrupt ? -1 : 0
            let status = (line["exitCode"] as? NSNumber)?.int32Value
            if expected == -1 {
                #expect(status == 65 || status == 1, "\(path): \(line)")
            } else {
                #expect(status == expected, "\(path): \(line)")
            }
            if expected == 0 {
                #expect(line["outcome"] as? String == "passed")
                #expect(line["checkOnly"] as? Bool == true)
                #expect(line["published"] as? Bool == false)
                #expect(line["command"] as? String == "restore")
            }
        }
        #expect((bundles[made.all[16]]?["encryption"] as? [String: Any])?["recipientTypes"] as? [String] == ["X25519"])
        let summary = try #require(summaries.first)
        #expect(summaries.count == 1)
        #expect(summary["succeeded"] as? Int == 17)
        #expect(summary["failed"] as? Int == 3)
        #expect(summary["exitCode"] as? Int == 1)

        #expect(try directory.contents(of: "tmp") == [], "no staging left")
        #expect(try directory.contents(of: "bundles") == before, "nothing published beside the bundles")
        #expect(try directory.contents() == ["bundles", "key.txt", "tickets.sqlite", "tmp"])
        for title in Self.titles { #expect(!run.allOutput.contains(title)) }

        // The text form names each failure with its status; `steward report` summarises the lines.
        let text = try StewardProcess.run(["restore", "--check-only", "--identity", keyFile] + made.all, environment: ["TMPDIR": tmp])
        #expect(text.status == 1)
        #expect(text.stdout.contains("Bundles     20 listed"), "the summary counts bundles: \(text.stdout)")
        for (path, status) in [(made.encryptedToOther, "exit 77"), (made.missing, "exit 66")] {
            #expect(text.stdout.split(separator: "\n").contains { $0.contains(status) && $0.contains(path) }, "\(text.stdout)")
        }
        let ndjson = directory.file("drill.ndjson")
        try run.stdout.write(toFile: ndjson, atomically: true, encoding: .utf8)
        let report = try StewardProcess.run(["report", ndjson, "--json"])
        let summarised = try report.json()
        #expect(summarised["databases"] as? Int == 20)
        #expect(summarised["failed"] as? Int == 3)
        #expect(summarised["exitCode"] as? Int == 1)
        #expect(try directory.contents(of: "tmp") == [])
    }

    @Test func shardsOfABundleListCoverItExactlyOnce() throws {
        let made = try makeBundles()
        let list = directory.file("bundles.list")
        try Data(made.all.joined(separator: "\u{0}").utf8).write(to: URL(fileURLWithPath: list))
        var seen: [String] = []
        for index in 1...4 {
            let run = try StewardProcess.run(
                ["restore", "--check-only", "--json", "--identity", keyFile, "--bundles-from", list, "--null", "--shard", "\(index)/4"])
            let (bundles, summaries) = Self.parts(try Self.lines(run))
            #expect(summaries.first?["shard"] as? String == "\(index)/4")
            seen += bundles.keys
            // Bundle i belongs to shard (i mod 4) + 1.
            let expected = Set(made.all.enumerated().filter { $0.offset % 4 == index - 1 }.map(\.element))
            #expect(Set(bundles.keys) == expected)
        }
        #expect(seen.sorted() == made.all.sorted(), "every bundle exactly once")
    }

    /// The man page's recipe: four shards under GNU parallel, their lines concatenated,
    /// summarised by `steward report`.
    @Test(.enabled(if: FleetCommandTests.hasParallel, "GNU parallel (Debian package parallel) is not installed"))
    func fourShardsUnderGnuParallelDrillEveryBundleExactlyOnce() throws {
        let made = try makeBundles()
        let list = directory.file("bundles.list")
        try Data(made.all.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: list))
        let ndjson = directory.file("drill.ndjson")
        // parallel's own status counts the shards that failed; the lines are what count.
        _ = try systemTool([
            "sh", "-c",
            "parallel --will-cite \"$1\" restore --check-only --identity \"$2\" --json --bundles-from \"$3\" --shard {}/4 ::: 1 2 3 4 > \"$4\"",
            "sh", StewardProcess.executable.path, keyFile, list, ndjson,
        ])
        let lines = try String(contentsOfFile: ndjson, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let drilled = lines.filter { $0["kind"] as? String == "bundle" }.compactMap { ($0["bundle"] as? [String: Any])?["path"] as? String }
        #expect(drilled.sorted() == made.all.sorted(), "every bundle exactly once")
        #expect(Set(lines.compactMap { $0["shard"] as? String }) == ["1/4", "2/4", "3/4", "4/4"])
        let report = try StewardProcess.run(["report", ndjson, "--json"])
        let summary = try report.json()
        #expect(summary["databases"] as? Int == 20)
        #expect(summary["succeeded"] as? Int == 17)
        #expect(summary["exitCode"] as? Int == 1)
        #expect(report.status == 1)
    }

    @Test func failFastStartsNoFurtherDrill() throws {
        let made = try makeBundles()
        // The missing bundle first, one job: nothing after it starts.
        let run = try StewardProcess.run(
            ["restore", "--check-only", "--json", "--jobs", "1", "--fail-fast", made.missing] + made.all.prefix(5))
        #expect(run.status == 66)
        let (bundles, summaries) = Self.parts(try Self.lines(run))
        #expect(bundles.keys.sorted() == [made.missing])
        #expect(summaries.first?["notStarted"] as? Int == 5)
    }

    @Test func aListFromStandardInputAndAllPassing() throws {
        let made = try makeBundles()
        let passing = Array(made.all.prefix(17))
        let list = directory.file("bundles.list")
        try Data(passing.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: list))
        let run = try systemTool([
            "sh", "-c", "exec \"$0\" restore --check-only --identity \"$1\" --bundles-from - < \"$2\"",
            StewardProcess.executable.path, keyFile, list])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.split(separator: "\n").filter { $0.hasPrefix("ok") }.count == 17, "\(run.output)")
    }

    @Test(arguments: [
        (["restore", "a.tar.zst", "b.tar.zst", "--into", "x"], "--check-only"),
        (["restore", "--bundles-from", "list"], "--check-only"),
        (["restore", "a.tar.zst", "b.tar.zst", "--check-only", "--into", "x"], "--into"),
        (["restore", "a.tar.zst", "-", "--check-only"], "standard input"),
        (["restore", "a.tar.zst", "--check-only", "--null"], "--bundles-from"),
        (["restore", "a.tar.zst", "--check-only", "--fail-fast"], "more than one bundle"),
        (["restore", "a.tar.zst", "b.tar.zst", "--check-only", "--shard", "5/4"], "--shard"),
        (["restore", "a.tar.zst", "b.tar.zst", "--replace", "app.db"], "--check-only"),
    ])
    func severalBundlesOutsideADrillAreAUsageError(arguments: [String], mentions: String) throws {
        let run = try StewardProcess.run(arguments)
        #expect(run.status == 64, "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains(mentions), "\(arguments): \(run.stderr)")
    }
}
