import Foundation
import Testing
@testable import StewardCore
import TestSupport

@Suite struct OutputDirectoryTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func write(_ name: String, _ text: String = "x") throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: directory.file(name)))
    }

    /// A process id that is not running: a child that has exited and been reaped.
    func deadProcessID() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
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

    @Test(arguments: [
        (".steward-tmp-123-abcd.sqlite", Int32(123)), (".steward-tmp-7-x.tar.zst.partial", Int32(7)),
        (".steward-tmp-abc-1.sqlite", nil), (".steward-tmp--1.sqlite", nil), ("steward-tmp-5-x", nil),
        (".steward-tmp-5", nil), (".steward-tmp-0-x", nil),
    ])
    func ownerProcessIsParsed(name: String, pid: Int32?) {
        #expect(OutputDirectory.ownerProcess(ofTemporary: name) == pid)
    }

    @Test func temporariesOfDeadProcessesAreRemovedAndOthersKept() throws {
        let dead = try deadProcessID()
        let stale = [".steward-tmp-\(dead)-0badf00d.sqlite", ".steward-tmp-\(dead)-0badf00d.sqlite-journal",
                     ".steward-tmp-\(dead)-0badf00d.tar.zst.partial"]
        for name in stale { try write(name) }
        let kept = [".steward-tmp-1-cafe.sqlite", ".steward-tmp-\(getpid())-mine.sqlite", ".steward-tmp-x-y", "bundle.tar.zst",
                    ".other"]
        for name in kept { try write(name) }
        try FileManager.default.createDirectory(atPath: directory.file(".steward-tmp-\(dead)-dir"), withIntermediateDirectories: false)

        let output = try OutputDirectory(path: directory.path)
        #expect(output.removeStaleTemporaries() == stale.sorted())
        #expect(try directory.contents() == (kept + [".steward-tmp-\(dead)-dir"]).sorted())
    }

    @Test func temporariesAreRemovedWithTheirSideFiles() throws {
        let output = try OutputDirectory(path: directory.path)
        let created = try output.createTemporary(suffix: ".sqlite", permissions: 0o600, sideSuffixes: ["-journal"])
        close(created.descriptor)
        #expect(created.path.hasPrefix(directory.file(".steward-tmp-\(getpid())-")))
        try write((created.path as NSString).lastPathComponent + "-journal")
        #expect(try directory.contents().count == 2)
        output.removeTemporaries()
        #expect(try directory.contents().isEmpty)
    }

    @Test(arguments: [true, false])
    func publishNeverReplaces(useRename: Bool) throws {
        let output = try OutputDirectory(path: directory.path)
        let first = try output.createTemporary(suffix: ".partial", permissions: 0o644)
        close(first.descriptor)
        try output.publish(first.path, as: "a.tar.zst", useRename: useRename)
        #expect(try directory.contents() == ["a.tar.zst"])

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

    @Test func renameat2IsFoundInThisLibc() {
        #expect(OutputDirectory.renameNoReplace != nil)
    }
}
