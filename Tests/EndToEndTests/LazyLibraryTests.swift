import Foundation
import Testing
import TestSupport

/// libarchive and libcrypto are loaded when a command first needs them, not at start-up
/// (issue 14: their loading cost about 2.5 ms of every start, a fleet run's floor per
/// database). A command that needs one that cannot be loaded fails with the library's name
/// and the loader's reason, exit 70, and writes nothing.
@Suite struct LazyLibraryTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws { workspace = try .withExampleDatabase() }

    /// The shared libraries the dynamic loader opened for a run (glibc's LD_DEBUG=files).
    static func loadedLibraries(of run: StewardRun) -> Set<String> {
        Set(run.stderr.matches(of: #/file=([^ \t]+)/#).map { String($0.output.1) })
    }

    @Test(arguments: [
        ["migrate"],
        ["verify"],
        ["inspect"],
    ])
    func commandsWithoutBundlesOrDigestsLoadNeitherLibrary(_ command: [String]) throws {
        var arguments = command
        switch command {
        case ["migrate"]: arguments += ["--db", database, "--migrations", migrations]
        case ["verify"]: arguments += ["--db", database]
        default: arguments.append(database)
        }
        let run = try StewardProcess.run(arguments, environment: ["LD_DEBUG": "files"])
        #expect(run.status == 0, "\(run.stdout)")
        let loaded = Self.loadedLibraries(of: run)
        // The loader's trace is there at all: SQLite is linked.
        #expect(loaded.contains { $0.hasPrefix("libsqlite3.so") }, "\(loaded.sorted())")
        #expect(!loaded.contains { $0.hasPrefix("libarchive.so") || $0.hasPrefix("libcrypto.so") }, "\(loaded.sorted())")
    }

    @Test func backupLoadsBothWhenItNeedsThem() throws {
        let out = directory.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let run = try StewardProcess.run(["backup", "--quiet", "--db", database, "--out", out], environment: ["LD_DEBUG": "files"])
        #expect(run.status == 0)
        let loaded = Self.loadedLibraries(of: run)
        #expect(loaded.contains("libarchive.so.13") && loaded.contains("libcrypto.so.3"), "\(loaded.sorted())")
    }

    @Test(arguments: [
        ("STEWARD_TEST_HOOK_LIBARCHIVE_SONAME", "libarchive.so.99"),
        ("STEWARD_TEST_HOOK_LIBCRYPTO_SONAME", "libcrypto.so.99"),
    ])
    func backupWithoutTheLibraryFailsWithItsNameAndWritesNothing(hook: String, soname: String) throws {
        let out = directory.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let run = try StewardProcess.run(["backup", "--json", "--db", database, "--out", out], environment: [hook: soname])
        #expect(run.status == 70)
        #expect(run.stderr.contains("Error: cannot load \(soname): \(soname): cannot open shared object file"), "\(run.stderr)")
        let json = try run.json()
        #expect(json["exitCode"] as? Int == 70)
        #expect(try directory.contents(of: "out").isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
    }

    @Test func restoreWithoutLibarchiveFailsWithItsNameAndWritesNothing() throws {
        let out = directory.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        #expect(try StewardProcess.run(["backup", "--quiet", "--db", database, "--out", out]).status == 0)
        let bundle = (out as NSString).appendingPathComponent(try #require(try directory.contents(of: "out").first))
        let into = directory.file("restored")
        let run = try StewardProcess.run(
            ["restore", bundle, "--into", into], environment: ["STEWARD_TEST_HOOK_LIBARCHIVE_SONAME": "libarchive.so.99"])
        #expect(run.status == 70)
        #expect(run.stderr.contains("cannot load libarchive.so.99"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: into))
    }

    @Test func sqlxLedgerWithoutLibcryptoSaysSo() throws {
        // The example set declares Steward's own layout; read as sqlx here, without it.
        try FileManager.default.removeItem(atPath: migrations + "/.steward-dialect")
        let run = try StewardProcess.run(
            ["migrate", "--create", "--dialect", "sqlx", "--db", directory.file("sqlx.db"), "--migrations", migrations],
            environment: ["STEWARD_TEST_HOOK_LIBCRYPTO_SONAME": "libcrypto.so.99"])
        #expect(run.status == 70)
        #expect(run.stderr.contains("cannot load libcrypto.so.99"), "\(run.stderr)")
    }
}
