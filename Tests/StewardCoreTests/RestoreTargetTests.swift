import Foundation
import Testing
@testable import StewardCore
import TestSupport

@Suite struct RestoreTargetTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func kind(_ body: () throws -> Void) -> StewardError.Kind? {
        do {
            try body()
            return nil
        } catch let error as StewardError {
            return error.kind
        } catch {
            return .internal
        }
    }

    func deadProcessID() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

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
            #expect(kind { _ = try RestoreTarget(path: path) } == .cannotCreate, "\(path)")
        }
    }

    @Test(arguments: [
        (".out.steward-restore-123-0badf00d", Int32(123)), (".a.b.steward-restore-7-x", Int32(7)),
        (".x.steward-restore-y.steward-restore-9-z", Int32(9)), ("out.steward-restore-5-x", nil),
        (".out.steward-restore--1-x", nil), (".out.steward-restore-5", nil), (".out.steward-restore-5-", nil),
        (".out.steward-restore-0-x", nil), (".steward-tmp-5-x", nil),
    ])
    func ownerProcessIsParsed(name: String, pid: Int32?) {
        #expect(RestoreTarget.ownerProcess(ofStaging: name) == pid)
    }

    @Test func staleStagingOfDeadRunsIsRemovedWithoutFollowingLinks() throws {
        let dead = try deadProcessID()
        let outside = directory.file("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: outside + "/precious"))

        let stale = ".restored.steward-restore-\(dead)-0badf00d"
        try FileManager.default.createDirectory(atPath: directory.file(stale + "/data"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: directory.file(stale + "/data/t.sqlite")))
        try FileManager.default.createSymbolicLink(atPath: directory.file(stale + "/escape"), withDestinationPath: outside)
        let alive = ".restored.steward-restore-\(getpid())-mine"
        try FileManager.default.createDirectory(atPath: directory.file(alive), withIntermediateDirectories: false)
        let notADirectory = ".other.steward-restore-\(dead)-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: directory.file(notADirectory)))

        let target = try RestoreTarget(path: directory.file("restored"))
        #expect(target.removeStaleStaging() == [stale])
        #expect(try directory.contents() == [alive, notADirectory, "outside"].sorted())
        #expect(try directory.contents(of: "outside") == ["precious"], "the link was removed, not its target")
    }

    @Test func stagingCreatesFilesExclusivelyAndWithoutFollowingLinks() throws {
        let target = try RestoreTarget(path: directory.file("restored"))
        let staging = try target.createStaging()
        #expect((staging.path as NSString).lastPathComponent.hasPrefix(".restored.steward-restore-\(getpid())-"))
        let attributes = try FileManager.default.attributesOfItem(atPath: staging.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)

        let descriptor = try staging.createFile("data/t.sqlite")
        close(descriptor)
        #expect(kind { _ = try staging.createFile("data/t.sqlite") } == .cannotCreate, "never an existing file")
        try FileManager.default.createSymbolicLink(atPath: staging.file("data/link"), withDestinationPath: directory.file("victim"))
        #expect(kind { _ = try staging.createFile("data/link") } == .cannotCreate)
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
        #expect(kind { try target.publish(staging) } == .cannotCreate)
        staging.removeUnlessPublished()
        #expect(try directory.contents(of: "restored") == ["late"])
        #expect(try directory.contents() == ["restored"])

        let appeared = try RestoreTarget(path: directory.file("appeared"))
        let second = try appeared.createStaging()
        try Data("x".utf8).write(to: URL(fileURLWithPath: directory.file("appeared")))
        #expect(kind { try appeared.publish(second) } == .cannotCreate)
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
        let stagingName = (staging.path as NSString).lastPathComponent
        #expect(stagingName.utf8.count <= 255)
        #expect(stagingName.hasPrefix("." + String(repeating: "é", count: 32) + ".steward-restore-"))
        #expect(RestoreTarget.ownerProcess(ofStaging: stagingName) == getpid())
    }
}
