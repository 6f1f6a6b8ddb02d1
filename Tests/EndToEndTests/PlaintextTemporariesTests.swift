import Foundation
import SQLiteKit
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Where plaintext lives while an encrypted bundle is made or drilled, and what a run
/// killed with SIGKILL leaves (issue 25, item 10): never a plaintext file in the output
/// directory; a private workspace (0700) beside the source or under TMPDIR, which the
/// next run removes.
@Suite struct PlaintextTemporariesTests {
    static let nobody: UInt32 = 65534
    let directory: TemporaryDirectory
    var app: String { directory.file("app") }
    var database: String { directory.file("app/tickets.db") }
    var out: String { directory.file("out") }
    var temporary: String { directory.file("tmp") }
    var passphrase: String { directory.file("passphrase.txt") }
    /// Where a paused run says so; in a directory any user may write.
    var marker: String { directory.file("out-of-band/paused") }
    /// Each run's TMPDIR is the test's own, so that what it leaves and removes is seen.
    var environment: [String: String] { ["TMPDIR": temporary, "STEWARD_TEST_HOOK_SCRYPT_WORK_FACTOR": "10"] }

    init() throws {
        directory = try TemporaryDirectory()
        for path in [app, out, temporary, directory.file("out-of-band")] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            _ = chmod(path, 0o777)
        }
        let connection = try Fixtures.makeExampleDatabase(at: database)
        try connection.execute(sql: """
            INSERT INTO ticket (title, body)
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 2000)
            SELECT printf('Customer secret %d', x), printf('private body %d', x) FROM n
            """)
        try Data("correct horse battery staple\n".utf8).write(to: URL(fileURLWithPath: passphrase))
    }

    /// Every regular file under `path`, relative to it.
    static func files(under path: String) -> [String] {
        var found: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: path)
        while let relative = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path + "/" + relative, isDirectory: &isDirectory), !isDirectory.boolValue {
                found.append(relative)
            }
        }
        return found.sorted()
    }

    /// Files under `path` that hold anything but nothing or age's ciphertext.
    static func plaintextFiles(under path: String) -> [String] {
        files(under: path).filter { relative in
            let data = FileManager.default.contents(atPath: path + "/" + relative) ?? Data()
            return !data.isEmpty && !data.starts(with: Data("age-encryption.org/".utf8))
        }
    }

    static func entries(_ path: String, prefix: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasPrefix(prefix) }.sorted()
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    var backupArguments: [String] { ["backup", "--db", database, "--out", out, "--passphrase-file", passphrase, "--quiet", "--json"] }

    // MARK: - backup

    @Test func anEncryptedBackupKilledMidRunLeavesNoPlaintextInTheOutputDirectory() throws {
        let paused = try PausedSteward(backupArguments, at: "backup-checks", marker: marker, environment: environment)
        // While it runs: the copy and the payload's frame sit in a private workspace
        // beside the source, and nothing in the output directory is in the clear.
        #expect(Self.plaintextFiles(under: out).isEmpty, "\(Self.files(under: out))")
        let workspaces = Self.entries(app, prefix: ".steward-backup-")
        #expect(workspaces.count == 1, "\((try? FileManager.default.contentsOfDirectory(atPath: app)) ?? [])")
        if let workspace = workspaces.first {
            #expect(Self.mode(app + "/" + workspace) == 0o700)
            #expect(Self.files(under: app + "/" + workspace).contains("backup.sqlite"))
        }
        let killed = paused.kill()
        #expect(killed.status == SIGKILL, "\(killed.allOutput)")
        #expect(Self.plaintextFiles(under: out).isEmpty, "\(Self.files(under: out))")

        // The next backup removes what the killed one left, beside the source and in the
        // output directory.
        let next = try StewardProcess.run(backupArguments, environment: environment)
        #expect(next.status == 0, "\(next.allOutput)")
        #expect(Self.entries(app, prefix: ".steward-backup-").isEmpty)
        #expect(Self.entries(out, prefix: ".steward-tmp-").isEmpty)
        let removed = try #require(try next.json()["staleTemporariesRemoved"] as? [String])
        #expect(removed.contains { $0.hasPrefix(".steward-backup-") }, "\(removed)")
        let bundles = try FileManager.default.contentsOfDirectory(atPath: out)
        #expect(bundles.count == 1 && bundles[0].hasSuffix(".tar.zst.age"), "\(bundles)")
        #expect(Self.plaintextFiles(under: out).isEmpty)
    }

    /// SIGTERM while the plaintext exists: 130, and both workspaces are gone.
    @Test func aSignalRemovesThePlaintextWorkspace() throws {
        let paused = try PausedSteward(backupArguments, at: "backup-checks", marker: marker, environment: environment)
        #expect(Self.entries(app, prefix: ".steward-backup-").count == 1)
        paused.running.send(SIGTERM)
        let run = paused.resume()
        #expect(run.status == 130, "\(run.allOutput)")
        #expect(Self.entries(app, prefix: ".steward-backup-").isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty)
    }

    /// A source directory this user cannot write to: the plaintext goes under TMPDIR,
    /// still not into the output directory.
    @Test(.enabled(if: getuid() == 0, "needs a source directory the run's user cannot write"))
    func aSourceDirectoryThatCannotTakeTheWorkspaceSendsItUnderTMPDIR() throws {
        _ = chmod(app, 0o755)
        _ = chmod(database, 0o644)
        _ = chmod(passphrase, 0o644)
        let paused = try PausedSteward(
            backupArguments, at: "backup-checks", marker: marker, asUser: Self.nobody, environment: environment)
        #expect(Self.entries(app, prefix: ".steward-backup-").isEmpty)
        let workspaces = Self.entries(temporary, prefix: ".steward-backup-")
        #expect(workspaces.count == 1, "\((try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? [])")
        #expect(Self.plaintextFiles(under: out).isEmpty)
        let run = paused.resume()
        #expect(run.status == 0, "\(run.allOutput)")
        #expect(Self.entries(temporary, prefix: ".steward-backup-").isEmpty)
    }

    // MARK: - restore

    func makeBundle() throws -> String {
        let run = try StewardProcess.run(backupArguments + ["--name", "tickets.tar.zst.age"], environment: environment)
        try #require(run.status == 0, "\(run.allOutput)")
        return out + "/tickets.tar.zst.age"
    }

    /// A drill of an encrypted bundle killed (SIGKILL) while it checks the decrypted
    /// database; returns the drill's arguments and what it left in TMPDIR, one directory.
    func killedDrill() throws -> (drill: [String], left: [String]) {
        let drill = ["restore", try makeBundle(), "--check-only", "--passphrase-file", passphrase, "--quiet"]
        let paused = try PausedSteward(drill, at: "restore-checks", marker: marker, environment: environment)
        let left = Self.entries(temporary, prefix: "steward-check-")
        #expect(left.count == 1)
        #expect(Self.mode(temporary + "/" + (left.first ?? "")) == 0o700)
        #expect(paused.kill().status == SIGKILL)
        #expect(Self.entries(temporary, prefix: "steward-check-") == left, "what kill -9 leaves")
        return (drill, left)
    }

    @Test func aKilledDrillOfAnEncryptedBundleLeavesItsDecryptedDatabaseForTheNextRestoreToRemove() throws {
        let (drill, left) = try killedDrill()

        // Removed and named (names only), as backup names what it removes.
        let next = try StewardProcess.run(drill + ["--json"], environment: environment)
        #expect(next.status == 0, "\(next.allOutput)")
        #expect(Self.entries(temporary, prefix: "steward-check-").isEmpty)
        #expect(try next.json()["staleTemporariesRemoved"] as? [String] == left, "\(next.stdout)")
        if JSONValidator.isInstalled { #expect(try JSONValidator.problems([("restore", next.stdout)], in: directory) == []) }
    }

    /// verify removes what killed runs left under TMPDIR too, and names it in its text and
    /// its JSON.
    @Test func aKilledDrillsDecryptedDatabaseIsRemovedAndNamedByTheNextVerify() throws {
        let (_, left) = try killedDrill()

        let text = try StewardProcess.run(["verify", "--db", database], environment: environment)
        #expect(text.status == 0, "\(text.allOutput)")
        #expect(Self.entries(temporary, prefix: "steward-check-").isEmpty)
        #expect(text.stdout.contains("Removed    stale temporaries of killed runs under TMPDIR: \(left.first ?? "")\n"), "\(text.stdout)")
        let json = try StewardProcess.run(["verify", "--db", database, "--json"], environment: environment)
        #expect(try json.json()["staleTemporariesRemoved"] as? [String] == [], "nothing left the second time")
        if JSONValidator.isInstalled { #expect(try JSONValidator.problems([("verify", json.stdout)], in: directory) == []) }
    }

    @Test func aKilledRestoreFromStandardInputLeavesItsSpoolForTheNextRestoreToRemove() throws {
        let bundle = try makeBundle()
        let input = try #require(FileHandle(forReadingAtPath: bundle))
        let paused = try PausedSteward(
            ["restore", "-", "--into", directory.file("restored"), "--passphrase-file", passphrase, "--quiet"],
            at: "restore-spooled", marker: marker, environment: environment, standardInput: input)
        #expect(Self.entries(temporary, prefix: "steward-stdin-").count == 1)
        #expect(paused.kill().status == SIGKILL)
        #expect(Self.entries(temporary, prefix: "steward-stdin-").count == 1, "what kill -9 leaves")

        // Any restore clears it, a drill of another bundle as well.
        let left = Self.entries(temporary, prefix: "steward-stdin-")
        let next = try StewardProcess.run(["restore", bundle, "--check-only", "--passphrase-file", passphrase, "--quiet"],
                                          environment: environment)
        #expect(next.status == 0, "\(next.allOutput)")
        #expect(Self.entries(temporary, prefix: "steward-stdin-").isEmpty)
        #expect(next.stdout.contains("Removed     stale temporaries of killed runs under TMPDIR: \(left.first ?? "")\n"), "\(next.stdout)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("restored")))
    }
}
