import Foundation
import SQLiteKit
import Testing
import TestSupport

/// A database nobody here wrote (Tests/Fixtures/third_party/realworld/README.md: source, commit, licence),
/// with one row value to change and a text value of its rows that no output may show.
struct RealWorldFixture: Sendable, CustomTestStringConvertible {
    let file: String
    /// Changes exactly one value of `changedTable`.
    let change: String
    let changedTable: String
    /// Row data the fixture holds (checked present, so its absence from output means something).
    let knownValue: String
    let knownValueQuery: String
    /// An SQL script the sqlite3 shell reads into a new database, not a database file.
    var isDump = false

    var testDescription: String { file }

    var path: String {
        Fixtures.repositoryRoot.appendingPathComponent("Tests/Fixtures/third_party/realworld").appendingPathComponent(file).path
    }

    static let all = [
        RealWorldFixture(
            file: "Chinook_Sqlite.sqlite",
            change: "UPDATE Track SET UnitPrice = 1.98 WHERE TrackId = 1",
            changedTable: "Track",
            knownValue: "Aerosmith",
            knownValueQuery: "SELECT count(*) FROM Artist WHERE Name = 'Aerosmith'"),
        RealWorldFixture(
            file: "sq-blob.db",
            change: "UPDATE blobs SET blob = substr(blob, 1, length(blob) - 1) || x'00' WHERE name = 'gopher'",
            changedTable: "blobs",
            knownValue: "gopher",
            knownValueQuery: "SELECT count(*) FROM blobs WHERE name = 'gopher'"),
        RealWorldFixture(
            file: "Northwind.Sqlite3.create.sql",
            change: "UPDATE [Order Details] SET Quantity = Quantity + 1 WHERE OrderID = 10248 AND ProductID = 11",
            changedTable: "Order Details",
            knownValue: "Alfreds Futterkiste",
            knownValueQuery: "SELECT count(*) FROM Customers WHERE CompanyName = 'Alfreds Futterkiste'",
            isDump: true),
    ]
}

/// Content digests on real-world databases: Steward's `inspect --digest` against
/// the independent implementation (scripts/content-digest.py: Python's sqlite3 and hashlib),
/// across VACUUM and page-size changes, for one changed value, and through backup and a
/// restore drill; with no row data in any output.
@Suite struct RealWorldDigestTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    static var python: String? { ContentDigestTests.python }

    /// A copy of the fixture: the tests change databases, never the repository's files.
    func copy(_ fixture: RealWorldFixture, as name: String) throws -> String {
        let path = directory.file(name)
        if fixture.isDump {
            // The script also runs report queries; only whether it loaded matters here.
            let loaded = try systemTool(["sqlite3", "-bail", path, ".read \(fixture.path)"])
            try #require(loaded.status == 0, "\(fixture.file) did not load")
        } else {
            try FileManager.default.copyItem(atPath: fixture.path, toPath: path)
        }
        return path
    }

    func steward(_ arguments: [String], _ fixture: RealWorldFixture) throws -> StewardRun {
        let run = try StewardProcess.run(arguments)
        #expect(!run.allOutput.contains(fixture.knownValue), "no row data in the output of \(arguments.first ?? "")")
        return run
    }

    func stewardDigests(_ path: String, _ fixture: RealWorldFixture) throws -> [String: Any] {
        let run = try steward(["inspect", "--digest", path, "--json"], fixture)
        try #require(run.status == 0, "\(run.stderr)")
        return try #require(try run.json()["contentDigests"] as? [String: Any])
    }

    func pythonDigests(_ path: String) throws -> [String: Any] {
        try ContentDigestTests.pythonDigests(path)
    }

    /// Table name -> "rows|sha256", and the schema under "(schema)".
    func byTable(_ digests: [String: Any]) -> [String: String] {
        var result = ["(schema)": digests["schema"] as? String ?? ""]
        for table in digests["tables"] as? [[String: Any]] ?? [] {
            result[table["name"] as? String ?? ""] = "\(table["rows"] ?? "")|\(table["sha256"] ?? "")"
        }
        return result
    }

    @Test(.enabled(if: RealWorldDigestTests.python != nil, "needs python3 (scripts/install-deps.sh installs it)"),
          arguments: RealWorldFixture.all)
    func stewardAgreesWithPythonTableByTable(_ fixture: RealWorldFixture) throws {
        let path = try copy(fixture, as: "db")
        let mine = try stewardDigests(path, fixture)
        let theirs = try pythonDigests(path)
        #expect(mine["algorithm"] as? String == theirs["algorithm"] as? String)
        let (a, b) = (byTable(mine), byTable(theirs))
        #expect(a.count > 1, "at least one table digested")
        #expect(a.keys.sorted() == b.keys.sorted())
        for name in a.keys.sorted() {
            #expect(a[name] == b[name], "\(fixture.file): \(name)")
        }
    }

    @Test(arguments: RealWorldFixture.all)
    func digestsSurviveVacuumAndPageSizeAndSeeOneChangedValue(_ fixture: RealWorldFixture) throws {
        let path = try copy(fixture, as: "db")
        let present = try Connection(path: path).scalar(sql: fixture.knownValueQuery)
        try #require(present == .integer(1), "the fixture holds the value the privacy checks look for")
        let before = byTable(try stewardDigests(path, fixture))
        let original = try #require(FileManager.default.contents(atPath: path))

        try Connection(path: path).execute(sql: "VACUUM")
        #expect(byTable(try stewardDigests(path, fixture)) == before, "after VACUUM")

        for pageSize in [1024, 65536] {
            try Connection(path: path).execute(sql: "PRAGMA page_size = \(pageSize); VACUUM;")
            let resized = try #require(FileManager.default.contents(atPath: path))
            #expect(resized != original, "a different file at page size \(pageSize)")
            #expect(byTable(try stewardDigests(path, fixture)) == before, "after page_size = \(pageSize) and VACUUM")
        }

        try Connection(path: path).execute(sql: fixture.change)
        let after = byTable(try stewardDigests(path, fixture))
        let differing = before.keys.filter { before[$0] != after[$0] }.sorted()
        #expect(differing == [fixture.changedTable])
        if Self.python != nil {
            #expect(byTable(try pythonDigests(path)) == after, "the independent implementation agrees after the change")
        }
    }

    /// The same data in a UTF-16 database (the sqlite3 shell's `.dump` read into one):
    /// text is digested as UTF-8 whatever the file's encoding, so the digests are equal,
    /// in both implementations.
    @Test(arguments: RealWorldFixture.all)
    func aUTF16CopyOfTheDumpDigestsTheSame(_ fixture: RealWorldFixture) throws {
        let path = try copy(fixture, as: "db")
        let dump = try systemTool(["sqlite3", path, ".dump"])
        try #require(dump.status == 0, "the dump failed")
        try dump.output.write(toFile: directory.file("dump.sql"), atomically: true, encoding: .utf8)
        let utf16 = directory.file("utf16.db")
        let loaded = try systemTool(["sqlite3", utf16, "PRAGMA encoding = 'UTF-16le';", ".read \(directory.file("dump.sql"))"])
        try #require(loaded.status == 0, "loading the dump failed")
        #expect(try Connection(path: utf16).scalar(sql: "PRAGMA encoding") == .text("UTF-16le"))
        let original = byTable(try stewardDigests(path, fixture))
        #expect(byTable(try stewardDigests(utf16, fixture)) == original)
        if Self.python != nil {
            #expect(byTable(try pythonDigests(utf16)) == original)
        }
    }

    /// pip's pysqlite3-binary bundles another SQLite than the system's that Steward links.
    /// The Python that has it: scripts/install-deps.sh installs it with the `python3` on PATH.
    static let otherSQLitePython: String? = ["python3", "/usr/bin/python3", "/usr/local/bin/python3"].first { python in
        (try? systemTool([python, "-c", "import pysqlite3"]).status == 0) ?? false
    }

    /// "The same data across SQLite versions": the file rewritten by another SQLite version
    /// (`PRAGMA page_size = 8192; VACUUM` through pysqlite3), then digested by Steward and by
    /// the Python implementation on that other SQLite, gives the original's digests.
    @Test(.enabled(if: RealWorldDigestTests.otherSQLitePython != nil, "needs pip's pysqlite3-binary (scripts/install-deps.sh installs it)"),
          arguments: RealWorldFixture.all)
    func anotherSQLiteVersionRewritesAndDigestsTheSame(_ fixture: RealWorldFixture) throws {
        let python = try #require(Self.otherSQLitePython)
        let path = try copy(fixture, as: "db")
        let original = byTable(try stewardDigests(path, fixture))
        let rewrite = """
            import pysqlite3, sys
            c = pysqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute("PRAGMA page_size = 8192"); c.execute("VACUUM"); c.close()
            print(pysqlite3.sqlite_version_info[0] * 1000000 + pysqlite3.sqlite_version_info[1] * 1000 + pysqlite3.sqlite_version_info[2])
            """
        let rewritten = try systemTool([python, "-c", rewrite, path])
        try #require(rewritten.status == 0, "\(rewritten.output)")
        let otherVersion = try #require(UInt32(rewritten.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        let linked = try #require(try Connection(path: ":memory:").scalar(sql: "SELECT sqlite_version()")?.textValue)
        let linkedVersion = linked.split(separator: ".").compactMap { UInt32($0) }.reduce(UInt32(0)) { $0 * 1000 + $1 }
        #expect(otherVersion != linkedVersion, "another SQLite version than Steward's (\(linked))")
        // The header's SQLITE_VERSION_NUMBER (offset 96): the file was last written by it.
        let header = try #require(FileManager.default.contents(atPath: path)).prefix(100)
        #expect(header[96..<100].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } == otherVersion)

        #expect(byTable(try stewardDigests(path, fixture)) == original, "Steward on the file the other version wrote")
        let script = Fixtures.repositoryRoot.appendingPathComponent("scripts/content-digest.py").path
        let theirs = try systemTool(["CONTENT_DIGEST_SQLITE=pysqlite3", python, script, path])
        try #require(theirs.status == 0, "\(theirs.output)")
        let digests = try #require(try JSONSerialization.jsonObject(with: Data(theirs.output.utf8)) as? [String: Any])
        #expect(byTable(digests) == original, "the Python implementation on the other SQLite version")
    }

    @Test(arguments: RealWorldFixture.all)
    func backupThenRestoreDrillPassesItsContentDigestCheck(_ fixture: RealWorldFixture) throws {
        let path = try copy(fixture, as: "db.sqlite")
        let out = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let backup = try steward(["backup", "--db", path, "--out", out, "--name", "rw.tar.zst"], fixture)
        try #require(backup.status == 0, "\(backup.stderr)")
        let bundle = out + "/rw.tar.zst"
        #expect(byTable(try stewardDigests(bundle, fixture)) == byTable(try stewardDigests(path, fixture)),
                "the manifest records the database's digests")

        for arguments in [["--json"], []] {
            let drill = try steward(["restore", bundle, "--check-only"] + arguments, fixture)
            #expect(drill.status == 0, "\(drill.allOutput)")
            guard arguments == ["--json"] else { continue }
            let checks = try #require(try drill.json()["checks"] as? [[String: Any]])
            let check = try #require(checks.first { $0["name"] as? String == "content-digest" })
            #expect(check["status"] as? String == "pass")
        }
        let inspect = try steward(["inspect", bundle], fixture)
        #expect(inspect.status == 0, "\(inspect.stderr)")
    }
}
