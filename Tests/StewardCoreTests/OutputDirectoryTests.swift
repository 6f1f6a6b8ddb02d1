import Foundation
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

@Suite struct OutputDirectoryTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    func write(_ name: String, _ text: String = "x") throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: directory.file(name)))
    }

    @Test func missingOrNonDirectoryIsCannotCreate() throws {
        #expect(throws: StewardError.self) { _ = try OutputDirectory(path: directory.file("missing")) }
        try write("file")
        do {
            _ = try OutputDirectory(path: directory.file("file"))
            Issue.record("a file is not a directory")
        } catch let error as StewardError {
            #expect(error.kind == .cannotCreate)
        }
    }

    /// A backup's workspace as a killed run leaves it.
    func leftover(_ name: String) throws {
        try FileManager.default.createDirectory(atPath: directory.file(name), withIntermediateDirectories: false)
        try write(name + "/.lock", "")
        try write(name + "/backup.sqlite", "customer data")
    }

    /// Staleness is the lock's, not the process id's. Process 1 and this
    /// process are alive, yet their leftovers are stale; a process id that does not exist
    /// names a workspace whose lock a live process holds, and it is kept.
    @Test(.enabled(if: LockHolder.isAvailable, "needs flock(1) from util-linux"))
    func staleTemporariesAreJudgedByTheirLockNotByTheirProcessID() throws {
        let stale = [".steward-tmp-1-aaaaaa", ".steward-tmp-\(getpid())-bbbbbb"]
        for name in stale { try leftover(name) }
        let held = ".steward-tmp-2147483646-cccccc"
        try leftover(held)
        let holder = try LockHolder(locking: directory.file(held + "/.lock"))
        defer { holder.release() }
        let kept = ["bundle.tar.zst", ".other", ".steward-tmp-1-file.sqlite"]
        for name in kept { try write(name) }

        let output = try OutputDirectory(path: directory.path)
        #expect(output.removeStaleTemporaries() == stale.sorted())
        #expect(try directory.contents() == (kept + [held]).sorted())
        #expect(try directory.contents(of: held) == [".lock", "backup.sqlite"])
    }

    @Test func aRunningBackupKeepsItsTemporariesFromAnother() throws {
        let running = try OutputDirectory(path: directory.path)
        let created = try running.createTemporary(suffix: ".sqlite", permissions: 0o600)
        close(created.descriptor)
        let other = try OutputDirectory(path: directory.path)
        #expect(other.removeStaleTemporaries().isEmpty)
        #expect(FileManager.default.fileExists(atPath: created.path))
        running.removeTemporaries()
        #expect(try directory.contents().isEmpty)
    }

    @Test func temporariesAreRemovedWithTheirSideFiles() throws {
        let output = try OutputDirectory(path: directory.path)
        let created = try output.createTemporary(suffix: ".sqlite", permissions: 0o600)
        close(created.descriptor)
        let workspace = try #require(try directory.contents().first)
        #expect(workspace.hasPrefix(".steward-tmp-\(getpid())-"))
        #expect(created.path.hasPrefix(directory.file(workspace) + "/"))
        try write(workspace + "/" + (created.path as NSString).lastPathComponent + "-journal")
        #expect(try directory.contents(of: workspace).count == 3)
        output.removeTemporaries()
        #expect(try directory.contents().isEmpty)
    }

    @Test(arguments: [true, false])
    func publishNeverReplaces(useRename: Bool) throws {
        let output = try OutputDirectory(path: directory.path)
        let first = try output.createTemporary(suffix: ".partial", permissions: 0o644)
        close(first.descriptor)
        try output.publish(first.path, as: "a.tar.zst", useRename: useRename)
        #expect(try directory.contents().filter { !$0.hasPrefix(".steward-tmp-") } == ["a.tar.zst"])
        #expect(!FileManager.default.fileExists(atPath: first.path))

        try write("b.tar.zst", "precious")
        let second = try output.createTemporary(suffix: ".partial", permissions: 0o644)
        close(second.descriptor)
        do {
            try output.publish(second.path, as: "b.tar.zst", useRename: useRename)
            Issue.record("an existing file was replaced")
        } catch let error as StewardError {
            #expect(error.kind == .cannotCreate)
            #expect(error.message.contains("already exists"))
        }
        #expect(FileManager.default.contents(atPath: directory.file("b.tar.zst")) == Data("precious".utf8))
        output.removeTemporaries()
        #expect(try directory.contents() == ["a.tar.zst", "b.tar.zst"])
        try output.sync()
    }
}
