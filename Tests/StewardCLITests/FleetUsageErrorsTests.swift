import ArgumentKit
import Testing
@testable import StewardCLI

/// `migrate`, `verify`, `backup` over databases and `restore --check-only` over bundles
/// share one set of fleet options (`FleetOptions.Keys`): the same rules, each worded for
/// what it lists.
@Suite struct FleetUsageErrorsTests {
    /// The usage error of the parser (an empty value) or of the command.
    static func error(_ arguments: [String]) -> String? {
        let parser = CommandLineParser(root: Steward.root)
        let type: any StewardCommand.Type = arguments[0] == "restore" ? RestoreCommand.self : VerifyCommand.self
        do {
            guard case .run(let values) = try parser.parse(arguments) else { return "not parsed" }
            _ = try type.init(values)
            return nil
        } catch {
            return error.message
        }
    }

    @Test(arguments: [
        (["restore", "--check-only", "--null", "a.tar.zst"], "'--null' needs '--bundles-from <file>'"),
        (["restore", "--check-only", "--fail-fast", "a.tar.zst"],
         "'--fail-fast' needs more than one bundle (several <bundle> arguments, or '--bundles-from <file>')"),
        (["restore", "a.tar.zst", "b.tar.zst"],
         "several bundles are restored only as a drill: add --check-only, or restore one bundle at a time"),
        (["restore", "--check-only", "a.tar.zst", ""], "The value '' is invalid for '<bundle>'"),
        (["restore", "--check-only", "a.tar.zst", "-"], "standard input (-) holds one bundle; it cannot be one of several"),
        (["restore", "--check-only", "--jobs", "2", "--null", "a.tar.zst"], "'--null' needs '--bundles-from <file>'"),
        (["restore", "--check-only", "--bundles-from", "", "a.tar.zst"], "The value '' is invalid for '--bundles-from <file>'"),
        (["verify", "--null", "--db", "a.db"], "'--null' needs '--dbs-from <file>'"),
        (["verify", "--fail-fast", "--db", "a.db"],
         "'--fail-fast' needs more than one database ('--db' repeated, or '--dbs-from <file>')"),
        (["verify", "--db", "a.db", "--db", ""], "The value '' is invalid for '--db <path>'"),
        (["verify", "--dbs-from", "", "--db", "a.db"], "The value '' is invalid for '--dbs-from <file>'"),
        (["verify", "--jobs", "2"], "Missing expected argument '--db <path>'"),
    ])
    func usageErrorsNameTheirOwnList(arguments: [String], message: String) {
        #expect(Self.error(arguments) == message)
    }

    /// With `--json`, a usage error of a drill over several bundles is one NDJSON line of
    /// `kind` `run`, also when the parser refused the line before the bundles were counted
    /// (an unknown option printed a pretty object over many lines); one bundle's is not.
    @Test(arguments: [
        (["restore", "--check-only", "a.tar.zst", "b.tar.zst", "--bogus", "--json"], true),
        (["restore", "--check-only", "a.tar.zst", "", "--json"], true),
        (["restore", "--check-only", "--identity", "key.txt", "a.tar.zst", "b.tar.zst", "--json", "--into=r"], true),
        (["restore", "--check-only", "--identity", "key.txt", "a.tar.zst", "--bogus", "--json"], false),
        (["restore", "a.tar.zst", "--into", "", "--json"], false),
    ])
    func aDrillsUsageErrorIsOneLine(arguments: [String], oneLine: Bool) throws {
        let run = EmptyValueTests.run(arguments)
        #expect(run.status == 64)
        let lines = run.out.split(separator: "\n")
        #expect((lines.count == 1) == oneLine, "\(run.out)")
        #expect(run.out.contains("\"kind\":\"run\"") == oneLine, "\(run.out)")
    }

    @Test func aDrillOverSeveralBundlesTakesTheSharedOptions() throws {
        let parser = CommandLineParser(root: Steward.root)
        guard case .run(let values) = try parser.parse(
            ["restore", "--check-only", "--jobs", "3", "--shard", "2/4", "--fail-fast", "a.tar.zst", "b.tar.zst"]) else {
            Issue.record("not parsed")
            return
        }
        let fleet = try #require(try RestoreCommand(values).fleet)
        #expect(fleet.databases == ["a.tar.zst", "b.tar.zst"])
        #expect(fleet.jobs == 3)
        #expect(fleet.failFast)
        #expect(fleet.listSource == nil)
    }
}
