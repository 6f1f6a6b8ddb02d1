import Foundation
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

@Suite struct RestoreTargetTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    @Test func aNewOrEmptyDirectoryIsAccepted() throws {
        let new = try RestoreTarget(path: directory.file("new"))
        #expect(!new.existed)
        #expect(new.parent == directory.path)
        #expect(new.name == "new")
        try FileManager.default.createDirectory(atPath: directory.file("empty"), withIntermediateDirectories: false)
        #expect(try RestoreTarget(path: directory.file("empty") + "/").existed)
        let relative = try RestoreTarget(path: "restored")
        #expect(relative.parent == ".")
    }

    @Test func everythingElseCannotBeCreated() throws {
        try FileManager.default.createDirectory(atPath: directory.file("full"), withIntermediateDirectories: false)
        try Data("x".utf8).write(to: URL(fileURLWithPath: directory.file("full/.hidden")))
        try Data("x".utf8).write(to: URL(fileURLWithPath: directory.file("file")))
        try FileManager.default.createSymbolicLink(atPath: directory.file("link"), withDestinationPath: directory.path)
        for path in [directory.file("full"), directory.file("file"), directory.file("link"), directory.file("missing/new"),
                     directory.file("file/new"), ".", "..", "/", directory.path + "/."] {
            #expect(errorKind { _ = try RestoreTarget(path: path) } == .cannotCreate, "\(path)")
        }
    }

    /// A staging workspace is stale when nobody holds its lock,
    /// whatever process id its name records (process 1 and this one are alive); one whose
    /// lock a live process holds is kept although its process id does not exist. Links
    /// are not followed, and only directories are removed.
    @Test(.enabled(if: LockHolder.isAvailable, "needs flock(1) from util-linux"))
    func staleStagingIsJudgedByItsLockAndRemovedWithoutFollowingLinks() throws {
        let outside = directory.file("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: outside + "/precious"))

        func leftover(_ name: String) throws {
            try FileManager.default.createDirectory(atPath: directory.file(name + "/tree/data"), withIntermediateDirectories: true)
            try Data().write(to: URL(fileURLWithPath: directory.file(name + "/.lock")))
            try Data("x".utf8).write(to: URL(fileURLWithPath: directory.file(name + "/tree/data/t.sqlite")))
        }
        let stale = [".restored.steward-restore-1-aaaaaa", ".other.steward-restore-\(getpid())-bbbbbb"]
        for name in stale { try leftover(name) }
        try FileManager.default.createSymbolicLink(atPath: directory.file(stale[0] + "/tree/escape"), withDestinationPath: outside)
        let held = ".restored.steward-restore-2147483646-cccccc"
        try leftover(held)
        let holder = try LockHolder(locking: directory.file(held + "/.lock"))
        defer { holder.release() }
        let notADirectory = ".other.steward-restore-1-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: directory.file(notADirectory)))

        let target = try RestoreTarget(path: directory.file("restored"))
        #expect(target.removeStaleStaging() == stale.sorted())
        #expect(try directory.contents() == [held, notADirectory, "outside"].sorted())
        #expect(try directory.contents(of: "outside") == ["precious"], "the link was removed, not its target")
    }

    @Test func aRunningRestoreKeepsItsStagingFromAnother() throws {
        let target = try RestoreTarget(path: directory.file("restored"))
        let staging = try target.createStaging()
        try staging.writeFile("manifest.json", contents: [1])
        #expect(try RestoreTarget(path: directory.file("restored")).removeStaleStaging().isEmpty)
        #expect(FileManager.default.fileExists(atPath: staging.file("manifest.json")))
        staging.removeUnlessPublished()
        #expect(try directory.contents().isEmpty)
    }

    @Test func stagingCreatesFilesExclusivelyAndWithoutFollowingLinks() throws {
        let target = try RestoreTarget(path: directory.file("restored"))
        let staging = try target.createStaging()
        let workspace = try #require(try directory.contents().first)
        #expect(workspace.hasPrefix(".restored.steward-restore-\(getpid())-"))
        #expect(staging.path == directory.file(workspace + "/tree"))
        let attributes = try FileManager.default.attributesOfItem(atPath: staging.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)

        let descriptor = try staging.createFile("data/t.sqlite")
        close(descriptor)
        #expect(errorKind { _ = try staging.createFile("data/t.sqlite") } == .cannotCreate, "never an existing file")
        try FileManager.default.createSymbolicLink(atPath: staging.file("data/link"), withDestinationPath: directory.file("victim"))
        #expect(errorKind { _ = try staging.createFile("data/link") } == .cannotCreate)
        #expect(!FileManager.default.fileExists(atPath: directory.file("victim")))
        try FileManager.default.removeItem(atPath: staging.file("data/link"))
        try staging.writeFile("manifest.json", contents: Array("{}".utf8))
        #expect(staging.contents() == ["data", "data/t.sqlite", "manifest.json"])

        staging.removeUnlessPublished()
        #expect(try directory.contents().isEmpty)
    }

    @Test func publishingRenamesIntoANewOrEmptyDirectoryOnly() throws {
        for existing in [false, true] {
            let path = directory.file("restored-\(existing)")
            if existing { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false) }
            let target = try RestoreTarget(path: path)
            let staging = try target.createStaging()
            try staging.writeFile("manifest.json", contents: [1])
            try target.publish(staging)
            staging.removeUnlessPublished()
            #expect(try directory.contents(of: (path as NSString).lastPathComponent) == ["manifest.json"])
        }
        #expect(try directory.contents() == ["restored-false", "restored-true"])
    }

    @Test func publishingFailsWhenTheTargetWasFilledMeanwhile() throws {
        let path = directory.file("restored")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let target = try RestoreTarget(path: path)
        let staging = try target.createStaging()
        try Data("late".utf8).write(to: URL(fileURLWithPath: path + "/late"))
        #expect(errorKind { try target.publish(staging) } == .cannotCreate)
        staging.removeUnlessPublished()
        #expect(try directory.contents(of: "restored") == ["late"])
        #expect(try directory.contents() == ["restored"])

        let appeared = try RestoreTarget(path: directory.file("appeared"))
        let second = try appeared.createStaging()
        try Data("x".utf8).write(to: URL(fileURLWithPath: directory.file("appeared")))
        #expect(errorKind { try appeared.publish(second) } == .cannotCreate)
        second.removeUnlessPublished()
        #expect(try directory.contents() == ["appeared", "restored"])
    }
}

extension RestoreTargetTests {
    @Test func longNamesGiveStagingNamesWithinNameMax() throws {
        let name = String(repeating: "é", count: 120)
        let target = try RestoreTarget(path: directory.file(name))
        let staging = try target.createStaging()
        defer { staging.removeUnlessPublished() }
        let workspaceName = ((staging.path as NSString).deletingLastPathComponent as NSString).lastPathComponent
        #expect(workspaceName.utf8.count <= 255)
        #expect(workspaceName.hasPrefix("." + String(repeating: "é", count: 32) + ".steward-restore-\(getpid())-"))
    }
}
