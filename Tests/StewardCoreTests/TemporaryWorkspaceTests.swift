import Foundation
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// Leftover workspaces are judged by their lock, never by the process id in their name:
/// a PID in another namespace or a reused PID can neither keep nor delete them wrongly.
@Suite struct TemporaryWorkspaceTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace(making: []) }

    /// A workspace as a run leaves it: `.lock` and some data.
    func leftover(_ name: String) throws -> String {
        let path = directory.file(name)
        try FileManager.default.createDirectory(atPath: path + "/sub", withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: path + "/.lock"))
        try Data("customer data".utf8).write(to: URL(fileURLWithPath: path + "/sub/copy.sqlite"))
        return path
    }

    func isLocked(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY)
        defer { close(descriptor) }
        return descriptor >= 0 && flock(descriptor, LOCK_EX | LOCK_NB) != 0
    }

    @Test func aWorkspaceIsPrivateLockedForItsLifeAndRemovedWhole() throws {
        let workspace = try TemporaryWorkspace(in: directory.path, prefix: "w-")
        #expect(workspace.name.hasPrefix("w-\(getpid())-"))
        let mode = try FileManager.default.attributesOfItem(atPath: workspace.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
        #expect(try directory.contents(of: workspace.name) == [".lock"], "the lock was renamed into place")
        #expect(isLocked(workspace.file(".lock")))
        try Data("x".utf8).write(to: URL(fileURLWithPath: workspace.file("copy.sqlite")))

        #expect(TemporaryWorkspace.removeStale(in: directory.path, prefix: "w-").isEmpty, "a live run keeps its workspace")
        #expect(FileManager.default.fileExists(atPath: workspace.file("copy.sqlite")))
        workspace.remove()
        #expect(try directory.contents().isEmpty)
    }

    @Test func aFreeLockMakesALeftoverStaleWhateverProcessItNames() throws {
        // Process 1 and this process are alive: a judgement by process id keeps both.
        let first = try leftover("w-1-aaaaaa")
        let own = try leftover("w-\(getpid())-bbbbbb")
        #expect(TemporaryWorkspace.removeStale(in: directory.path, prefix: "w-") == ["w-1-aaaaaa", "w-\(getpid())-bbbbbb"])
        #expect(!FileManager.default.fileExists(atPath: first))
        #expect(!FileManager.default.fileExists(atPath: own))
    }

    @Test(.enabled(if: LockHolder.isAvailable, "needs flock(1) from util-linux"))
    func aLockHeldByAnotherLiveProcessKeepsALeftoverWhateverProcessItNames() throws {
        // A process id above any pid_max: no such process.
        let held = try leftover("w-2147483646-cccccc")
        let holder = try LockHolder(locking: held + "/.lock")
        #expect(TemporaryWorkspace.removeStale(in: directory.path, prefix: "w-").isEmpty)
        #expect(FileManager.default.fileExists(atPath: held + "/sub/copy.sqlite"))
        holder.release()
        #expect(TemporaryWorkspace.removeStale(in: directory.path, prefix: "w-") == ["w-2147483646-cccccc"])
    }

    @Test func leftoversWithoutALockAreRemovedOnlyWhenOld() throws {
        for name in ["w-1-young", "w-1-old"] {
            try FileManager.default.createDirectory(atPath: directory.file(name), withIntermediateDirectories: false)
        }
        let twoHoursAgo = Date().addingTimeInterval(-7200)
        try FileManager.default.setAttributes([.modificationDate: twoHoursAgo], ofItemAtPath: directory.file("w-1-old"))
        #expect(TemporaryWorkspace.removeStale(in: directory.path, prefix: "w-") == ["w-1-old"])
        #expect(try directory.contents() == ["w-1-young"])
    }

    @Test func onlyDirectoriesOfTheNameAreTouchedAndLinksAreNotFollowed() throws {
        let outside = directory.file("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: false)
        try Data().write(to: URL(fileURLWithPath: outside + "/.lock"))
        try Data("keep".utf8).write(to: URL(fileURLWithPath: outside + "/precious"))
        try FileManager.default.createSymbolicLink(atPath: directory.file("w-1-link"), withDestinationPath: outside)
        try Data("x".utf8).write(to: URL(fileURLWithPath: directory.file("w-1-file")))
        let escaping = try leftover("w-1-escape")
        try FileManager.default.createSymbolicLink(atPath: escaping + "/out", withDestinationPath: outside)
        let lockIsALink = directory.file("w-1-locklink")
        try FileManager.default.createDirectory(atPath: lockIsALink, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: lockIsALink + "/.lock", withDestinationPath: outside + "/.lock")
        _ = try leftover("other-1-aaaaaa")

        #expect(TemporaryWorkspace.removeStale(in: directory.path, prefix: "w-") == ["w-1-escape"])
        #expect(try directory.contents() == ["other-1-aaaaaa", "outside", "w-1-file", "w-1-link", "w-1-locklink"])
        #expect(try directory.contents(of: "outside") == [".lock", "precious"])
    }

    @Test func anUncreatableWorkspaceIsCannotCreate() throws {
        do {
            _ = try TemporaryWorkspace(in: directory.file("missing"), prefix: "w-")
            Issue.record("made a workspace in a missing directory")
        } catch let error as StewardError {
            #expect(error.kind == .cannotCreate)
            #expect(error.message.contains(directory.file("missing")))
        }
    }
}
