import Foundation
import SQLiteKit
import Testing
import TestSupport

/// The other commands that write never replace an input either: backup's bundle and
/// restore's target never replace one of their inputs, whatever the spelling.
@Suite struct OutputsNeverReplaceInputsTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test(arguments: ["out", "./out/", "link"])
    func aBundleNamedLikeItsDatabaseNeverReplacesIt(out: String) throws {
        try FileManager.default.createDirectory(atPath: directory.file("out"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: directory.file("link"), withDestinationPath: "out")
        let database = directory.file("out/x.tar.zst")
        try Fixtures.makeExampleDatabase(at: database)
        let before = FileManager.default.contents(atPath: database)
        let run = try StewardProcess.run(
            ["backup", "--db", "out/x.tar.zst", "--out", out, "--name", "x.tar.zst", "--quiet"], currentDirectory: directory.path)
        #expect(run.status == 73, "\(run.stderr)")
        #expect(run.stderr.contains("already exists"), "\(run.stderr)")
        #expect(FileManager.default.contents(atPath: database) == before)
        #expect(try directory.contents(of: "out") == ["x.tar.zst"])
    }

    @Test func aRestoreTargetNeverReplacesItsBundle() throws {
        let database = directory.file("x.sqlite")
        try Fixtures.makeExampleDatabase(at: database)
        let out = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        #expect(try StewardProcess.run(["backup", "--db", database, "--out", out, "--name", "b.tar.zst", "--quiet"]).status == 0)
        let bundle = out + "/b.tar.zst"
        let before = FileManager.default.contents(atPath: bundle)
        for target in [bundle, out, out + "/../bundles/"] {
            let run = try StewardProcess.run(["restore", bundle, "--into", target, "--quiet"])
            #expect(run.status == 73, "\(target): \(run.stderr)")
            #expect(FileManager.default.contents(atPath: bundle) == before)
            #expect(try directory.contents(of: "bundles") == ["b.tar.zst"])
        }
    }
}
