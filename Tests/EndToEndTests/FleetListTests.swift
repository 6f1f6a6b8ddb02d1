import FileNames
import Foundation
import SQLiteKit
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The lists of a fleet run (`--dbs-from`, `--bundles-from`): read as bytes, so a name
/// that is not UTF-8 is the file `--db` would open, and read as a stream, so a pipe, a
/// FIFO or a process substitution is a list like any file.
@Suite struct FleetListTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    static func lines(_ run: StewardRun) throws -> [[String: Any]] { try run.jsonLines() }

    static func paths(_ lines: [[String: Any]], of kind: String = "database") -> [String] {
        lines.filter { $0["kind"] as? String == kind }.compactMap { ($0[kind] as? [String: Any])?["path"] as? String }
    }

    /// Two example databases, one of them under a name with the byte 0xFF.
    func makeDatabases() throws -> (plain: String, raw: String) {
        let plain = directory.file("plain.db")
        try Fixtures.makeExampleDatabase(at: plain)
        let raw = directory.path + "/x" + FileName.decode([0xFF]) + ".db"
        try RawFiles.copy(plain, to: raw)
        return (plain, raw)
    }

    func writeList(_ name: String, _ paths: [String], separator: UInt8 = UInt8(ascii: "\n")) throws -> String {
        let list = directory.file(name)
        var bytes: [UInt8] = []
        for path in paths { bytes += FileName.bytes(path) + [separator] }
        try Data(bytes).write(to: URL(fileURLWithPath: list))
        return list
    }

    // MARK: - names that are not UTF-8 (issue 25, item 11)

    /// Regression: the list was decoded as UTF-8 (0xFF became U+FFFD), so the database
    /// was "not found" (66) although `--db` opened it.
    @Test(arguments: [false, true])
    func aListedNameThatIsNotUTF8IsTheFileItNames(nullSeparated: Bool) throws {
        let (plain, raw) = try makeDatabases()
        let list = try writeList("list", [plain, raw], separator: nullSeparated ? 0 : UInt8(ascii: "\n"))
        let run = try StewardProcess.run(["verify", "--json", "--jobs", "1", "--dbs-from", list] + (nullSeparated ? ["--null"] : []))
        #expect(run.status == 0, "\(run.allOutput)")
        let lines = try Self.lines(run)
        #expect(Self.paths(lines) == [plain, directory.path + "/x\\xFF.db"], "JSON writes the byte as \\xFF")
        let text = try StewardProcess.run(["verify", "--jobs", "1", "--dbs-from", list] + (nullSeparated ? ["--null"] : []))
        #expect(text.status == 0, "\(text.allOutput)")
        #expect(text.stdout.contains("x\\xFF.db"), "\(text.stdout)")
    }

    /// The same file listed under its raw name and through `--db` is one database.
    @Test func aRawNameListedTwiceIsOneDatabase() throws {
        let (_, raw) = try makeDatabases()
        let list = try writeList("list", [raw])
        let run = try StewardProcess.run(rawArguments: ["verify", "--json", "--db", raw, "--dbs-from", list])
        #expect(run.status == 0, "\(run.allOutput)")
        let summary = try #require(try Self.lines(run).last)
        #expect(summary["listed"] as? Int == 2)
        #expect(summary["duplicates"] as? Int == 1, "\(summary)")
    }

    @Test func aBundleListedUnderARawNameIsDrilled() throws {
        let (plain, _) = try makeDatabases()
        let out = directory.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let backup = try StewardProcess.run(["backup", "--db", plain, "--out", out, "--name", "b.tar.zst", "--quiet"])
        try #require(backup.status == 0, "\(backup.allOutput)")
        let raw = out + "/b" + FileName.decode([0xFE]) + ".tar.zst"
        try RawFiles.copy(out + "/b.tar.zst", to: raw)
        let list = try writeList("bundles", [out + "/b.tar.zst", raw])
        let run = try StewardProcess.run(["restore", "--check-only", "--json", "--jobs", "1", "--bundles-from", list])
        #expect(run.status == 0, "\(run.allOutput)")
        #expect(Self.paths(try Self.lines(run), of: "bundle") == [out + "/b.tar.zst", out + "/b\\xFE.tar.zst"])
    }

    /// A list file whose own name is not UTF-8 is read too.
    @Test func aListWhoseNameIsNotUTF8IsRead() throws {
        let (plain, _) = try makeDatabases()
        let list = try writeList("list", [plain])
        let rawList = directory.path + "/l" + FileName.decode([0xFF])
        try RawFiles.copy(list, to: rawList)
        let run = try StewardProcess.run(rawArguments: ["verify", "--json", "--dbs-from", rawList])
        #expect(run.status == 0, "\(run.allOutput)")
        #expect(Self.paths(try Self.lines(run)) == [plain])
    }

    // MARK: - pipes, FIFOs, process substitution (issue 25, item 12)

    /// Regression: `--dbs-from <(…)` was "cannot read the database list /dev/fd/63" (66).
    @Test func aListFromProcessSubstitutionIsRead() throws {
        let (plain, raw) = try makeDatabases()
        let list = try writeList("list", [plain, raw])
        let run = try systemTool([
            "bash", "-c", "\"$1\" verify --json --jobs 1 --dbs-from <(cat \"$2\")", "bash", StewardProcess.executable.path, list,
        ])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.components(separatedBy: "\"kind\":\"database\"").count - 1 == 2, "\(run.output)")
        #expect(run.output.contains("x\\\\xFF.db"), "\(run.output)")

        let drill = try systemTool([
            "bash", "-c", "\"$1\" restore --check-only --json --bundles-from <(printf '%s\\n' \"$2\")", "bash",
            StewardProcess.executable.path, directory.file("none.tar.zst"),
        ])
        #expect(drill.status == 66, "a missing bundle, not a list that cannot be read: \(drill.output)")
        #expect(drill.output.contains("\"kind\":\"bundle\""), "\(drill.output)")
    }

    @Test func aListFromAFIFOIsRead() throws {
        let (plain, _) = try makeDatabases()
        let fifo = directory.file("fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        // A reader that closes early must fail this write, not kill the test runner.
        signal(SIGPIPE, SIG_IGN)
        let line = Array((plain + "\n").utf8)
        let writer = Thread {
            // Blocks until steward opens the FIFO for reading.
            let descriptor = open(fifo, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return }
            _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
        }
        writer.start()
        let run = try StewardProcess.run(["verify", "--json", "--dbs-from", fifo], timeout: 30)
        #expect(run.status == 0, "\(run.allOutput)")
        #expect(Self.paths(try Self.lines(run)) == [plain])
    }

    @Test func aListFromStandardInputThroughAPipeIsRead() throws {
        let (plain, raw) = try makeDatabases()
        let list = try writeList("list", [plain, raw])
        let run = try systemTool([
            "sh", "-c", "cat \"$2\" | \"$1\" verify --json --jobs 1 --dbs-from -", "sh", StewardProcess.executable.path, list,
        ])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.components(separatedBy: "\"kind\":\"database\"").count - 1 == 2, "\(run.output)")
    }

    /// A directory given as the list is no list: 66 with the reason, not a crash.
    @Test func aDirectoryIsNoList() throws {
        let run = try StewardProcess.run(["verify", "--dbs-from", directory.path])
        #expect(run.status == 66, "\(run.allOutput)")
        #expect(run.stderr.contains("cannot read the database list"), "\(run.stderr)")
    }

    /// `steward report` reads its NDJSON from a process substitution as well.
    @Test func reportReadsAProcessSubstitution() throws {
        let (plain, _) = try makeDatabases()
        let run = try systemTool([
            "bash", "-c", "\"$1\" report <(\"$1\" verify --json --db \"$2\" --jobs 1)", "bash", StewardProcess.executable.path, plain,
        ])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("1 succeeded, 0 failed"), "\(run.output)")
    }
}
