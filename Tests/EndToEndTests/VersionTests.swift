import Foundation
import Testing
import TestSupport

/// The version is written once, in StewardVersion.swift; the Makefile (package, man
/// pages) reads it with a line-based pattern, and `--version` prints it.
@Suite struct VersionTests {
    static let sourcePath = "Sources/StewardCore/StewardVersion.swift"
    static let stampPath = "Sources/StewardCore/BuildStamp.generated.swift"

    /// The version as the Makefile reads it: the one line `public static let current = "…"`.
    static func versionAsTheMakefileReadsIt() throws -> String {
        let url = Fixtures.repositoryRoot.appendingPathComponent(sourcePath)
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        let versions = lines.compactMap { $0.wholeMatch(of: #/\ *public static let current = "([^"]*)"/#)?.output.1 }
        try #require(versions.count == 1, "exactly one line the Makefile can read")
        return String(versions[0])
    }

    @Test func versionIsTheOneTheMakefileReads() throws {
        let version = try Self.versionAsTheMakefileReadsIt()
        #expect(version.wholeMatch(of: #/[0-9]+\.[0-9]+\.[0-9]+/#) != nil, "a Debian-friendly version: \(version)")
        let run = try StewardProcess.run(["--version"])
        #expect(run.status == 0)
        let printed = run.stdout.trimmingCharacters(in: .newlines)
        #expect(printed == version || printed.hasPrefix("\(version) (commit "), "\(printed)")
    }

    /// A build made by `make` names its commit; a plain `swift build` without the stamp
    /// names none. Which one ran here depends on how the tests were built.
    @Test func commitIsPrintedExactlyWhenTheBuildWasStamped() throws {
        let version = try Self.versionAsTheMakefileReadsIt()
        let printed = try StewardProcess.run(["--version"]).stdout.trimmingCharacters(in: .newlines)
        let stamp = Fixtures.repositoryRoot.appendingPathComponent(Self.stampPath)
        if let text = try? String(contentsOf: stamp, encoding: .utf8),
           let commit = text.firstMatch(of: #/"([^"]+)"/#)?.output.1
        {
            #expect(printed == "\(version) (commit \(commit))")
        } else {
            #expect(printed == version)
        }
    }
}
