import Foundation
import Testing
import TestSupport

/// `backup --out -` and `restore -`: bundles through pipes, plain and
/// encrypted; a reader that stops early; a terminal refused.
@Suite struct StreamTests {
    static let titles = ["Printer is on fire", "Café au lait spilled", "客户工单搜索"]

    let directory: TemporaryDirectory
    var database: String { directory.file("tickets.sqlite") }
    var steward: String { StewardProcess.executable.path }

    init() throws {
        directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("tmp"), withIntermediateDirectories: true)
        _ = try Fixtures.makeExampleDatabase(at: database, titles: Self.titles)
    }

    /// Runs a bash pipeline in the test directory, TMPDIR inside it; the output ends with
    /// `status` and every command's exit status.
    func pipeline(_ script: String) throws -> (statuses: [Int32], output: String) {
        let run = try systemTool(["bash", "-c", "export TMPDIR=\(directory.file("tmp")) PW=sesame; " + script + "; echo \"status ${PIPESTATUS[*]}\""],
                                 in: directory.path)
        let last = run.output.split(separator: "\n").last { $0.hasPrefix("status ") } ?? ""
        return (last.dropFirst(7).split(separator: " ").compactMap { Int32($0) }, run.output)
    }

    @Test func aPlainBundleStreamsIntoTarAndIntoRestore() throws {
        let tar = try pipeline("'\(steward)' backup --db tickets.sqlite --out - --quiet | tar --zstd -tf -")
        #expect(tar.statuses == [0, 0], "\(tar.output)")
        #expect(tar.output.contains("manifest.json") && tar.output.contains("data/tickets.sqlite"))

        let restore = try pipeline("'\(steward)' backup --db tickets.sqlite --out - | '\(steward)' restore - --into restored --json > report.json")
        #expect(restore.statuses == [0, 0], "\(restore.output)")
        #expect(restore.output.contains("Bundle      -"), "the backup's report goes to stderr")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("report.json")))) as? [String: Any])
        #expect(report["published"] as? Bool == true)
        #expect((report["bundle"] as? [String: Any])?["path"] as? String == "-")
        #expect(FileManager.default.fileExists(atPath: directory.file("restored/data/tickets.sqlite")))
        #expect(try directory.contents(of: "tmp") == [], "no spooled copy or temporary left")
        for title in Self.titles { #expect(!restore.output.contains(title)) }
    }

    @Test func anEncryptedBundleStreamsToo() throws {
        let run = try pipeline("'\(steward)' backup --db tickets.sqlite --out - --quiet --passphrase-env PW > stream.age && "
                               + "'\(steward)' restore - --into restored --passphrase-env PW < stream.age")
        #expect(run.statuses == [0], "\(run.output)")
        let bytes = try #require(FileManager.default.contents(atPath: directory.file("stream.age")))
        #expect(bytes.starts(with: Array("age-encryption.org/v1\n".utf8)), "ciphertext on the pipe")
        #expect(!bytes.contains(subsequence: Data([0x28, 0xB5, 0x2F, 0xFD])), "no zstd frame in the clear")
        #expect(FileManager.default.fileExists(atPath: directory.file("restored/data/tickets.sqlite")))
    }

    @Test func aReaderThatStopsEarlyIs74AndRestorePublishesNothing() throws {
        // Large enough that the bundle cannot fit in the pipe's buffer.
        try systemTool(["sqlite3", database, "CREATE TABLE filler(b); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 30000) "
                        + "INSERT INTO filler SELECT randomblob(200) FROM c;"])
        let head = try pipeline("'\(steward)' backup --db tickets.sqlite --out - --quiet | head -c 1000 > /dev/null")
        #expect(head.statuses == [74, 0], "\(head.output)")
        #expect(head.output.contains("broken pipe"), "\(head.output)")
        #expect(try directory.contents(of: "tmp") == [])

        let cut = try pipeline("'\(steward)' backup --db tickets.sqlite --out - --quiet | head -c 100000 | '\(steward)' restore - --into restored")
        #expect(cut.statuses.first == 74 && cut.statuses.last == 65, "\(cut.output)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("restored")))
        #expect(try directory.contents(of: "tmp") == [])
    }

    @Test func nothingFlowsWhenTheSnapshotFailsItsChecks() throws {
        try systemTool(["sqlite3", database, "PRAGMA foreign_keys = OFF; CREATE TABLE parent(id INTEGER PRIMARY KEY); "
                        + "CREATE TABLE child(parent_id REFERENCES parent(id)); INSERT INTO child VALUES (7);"])
        let run = try pipeline("'\(steward)' backup --db tickets.sqlite --out - --quiet > out.bin")
        #expect(run.statuses == [1], "\(run.output)")
        #expect(FileManager.default.contents(atPath: directory.file("out.bin"))?.isEmpty == true, "not one byte of a bundle")
        #expect(try directory.contents(of: "tmp") == [])
    }

    @Test func usageErrors() throws {
        let json = try StewardProcess.run(["backup", "--db", database, "--out", "-", "--json"])
        #expect(json.status == 64)
        let name = try StewardProcess.run(["backup", "--db", database, "--out", "-", "--name", "x.tar.zst"])
        #expect(name.status == 64)
        // `script` gives the command a terminal for standard output.
        let terminal = try systemTool(["script", "-qec", "'\(steward)' backup --db '\(database)' --out -", "/dev/null"])
        #expect(terminal.status == 64, "\(terminal.output)")
        #expect(terminal.output.contains("terminal"))
        let stdin = try systemTool(["script", "-qec", "'\(steward)' restore - --into '\(directory.file("r"))'", "/dev/null"])
        #expect(stdin.status == 64, "\(stdin.output)")
        let empty = try pipeline("'\(steward)' restore - --into restored < /dev/null")
        #expect(empty.statuses == [65], "\(empty.output)")
        #expect(try directory.contents() == ["tickets.sqlite", "tmp"])
    }
}

extension Data {
    func contains(subsequence: Data) -> Bool { range(of: subsequence) != nil }
}
