import Foundation
import Testing
import ArgumentKit

@Suite struct ParsedValuesTests {
    private func backup(_ extra: [String]) throws -> ParsedValues {
        guard case .run(let values) = try SampleCommands.parser.parse(["backup", "-o", "out", "db"] + extra) else {
            throw CommandLineError(message: "not run", usage: "", commandPath: "")
        }
        return values
    }

    // MARK: - Defaults and presence

    @Test func defaultsApplyWhenTheOptionIsAbsent() throws {
        let values = try backup([])
        #expect(values.value("retries") == "3")
        #expect(!values.isPresent("retries"))
        #expect(values.value("check") == nil)
        #expect(values.values("check") == [])
    }

    @Test func givenValueWinsOverTheDefault() throws {
        let values = try backup(["--retries", "7", "--json"])
        #expect(values.value("retries") == "7")
        #expect(values.isPresent("retries"))
        #expect(values.isPresent("json"))
        #expect(values.isPresent("output"))
        #expect(!values.isPresent("timeout"))
    }

    @Test func requiredReturnsTheValueOrTheDefault() throws {
        let values = try backup([])
        #expect(try values.required("output") == "out")
        #expect(try values.required("retries") == "3")
    }

    @Test func requiredOfAMissingOptionIsAUsageError() throws {
        let values = try backup([])
        let error = try #require(throws: CommandLineError.self) { try values.required("check") }
        #expect(error.message == "Missing expected argument '--check <sql>'")
        #expect(error.commandPath == "steward backup")
    }

    // MARK: - integer(_:in:)

    @Test(arguments: [([String](), 3), (["--retries", "0"], 0), (["--retries=10"], 10), (["--retries", "-0"], 0)] as [([String], Int)])
    func integerInRange(_ extra: [String], _ expected: Int) throws {
        #expect(try backup(extra).integer("retries", in: 0...10) == expected)
    }

    @Test(arguments: ["11", "-1", "abc", "", "1.5", " 3", "0x3", "99999999999999999999"])
    func integerOutOfRangeOrMalformed(_ text: String) throws {
        let values = try backup(["--retries", text])
        let error = try #require(throws: CommandLineError.self) { try values.integer("retries", in: 0...10) }
        #expect(error.message
            == "The value '\(text)' is invalid for '--retries <count>': expected an integer from 0 to 10")
        #expect(error.usage.hasPrefix("steward backup "))
        #expect(error.commandPath == "steward backup")
    }

    @Test func integerOfAnAbsentOptionWithoutDefaultIsNil() throws {
        #expect(try backup([]).integer("check", in: 0...10) == nil)
    }

    @Test func negativeRangeIsPrinted() throws {
        let values = try backup(["--retries", "5"])
        let error = try #require(throws: CommandLineError.self) { try values.integer("retries", in: -3 ... -1) }
        #expect(error.message == "The value '5' is invalid for '--retries <count>': expected an integer from -3 to -1")
    }

    // MARK: - seconds(_:in:)

    @Test(arguments: [([String](), 5.0), (["--timeout", "0.5"], 0.5), (["--timeout=60"], 60), (["--timeout", "1e1"], 10)] as [([String], Double)])
    func secondsInRange(_ extra: [String], _ expected: Double) throws {
        #expect(try backup(extra).seconds("timeout", in: 0...60) == expected)
    }

    @Test(arguments: ["61", "-0.1", "abc", "", "inf", "nan", "-inf", "1e400"])
    func secondsOutOfRangeOrMalformed(_ text: String) throws {
        let values = try backup(["--timeout=\(text)"])
        let error = try #require(throws: CommandLineError.self) { try values.seconds("timeout", in: 0...60) }
        #expect(error.message
            == "The value '\(text)' is invalid for '--timeout <seconds>': expected a number of seconds from 0 to 60")
    }

    @Test func fractionalBoundsArePrintedAsDecimals() throws {
        let values = try backup(["--timeout", "3"])
        let error = try #require(throws: CommandLineError.self) { try values.seconds("timeout", in: 0.25...2.5) }
        #expect(error.message
            == "The value '3' is invalid for '--timeout <seconds>': expected a number of seconds from 0.25 to 2.5")
    }

    // MARK: - error(_:)

    @Test func errorIsAttachedToTheCommand() throws {
        let error = try backup([]).error("The output must end in .tar.zst")
        #expect(error.message == "The output must end in .tar.zst")
        #expect(error.commandPath == "steward backup")
        #expect(error.usage == HelpFormatter.usage(for: SampleCommands.backup, path: ["steward", "backup"]))
        #expect(error.description.hasPrefix("Error: The output must end in .tar.zst\nUsage: steward backup "))
        #expect(error.description.hasSuffix("\n  See 'steward backup --help' for more information.\n"))
    }

    // MARK: - Undeclared names

    // An option the command never declared would read as "not given" and take its
    // default without a word; debug builds stop instead. Each runs in a child process.

    @Test func readingAnUndeclaredOptionStops() async {
        await #expect(processExitsWith: .failure) {
            guard case .run(let values)? = try? SampleCommands.parser.parse(["backup", "-o", "out", "db"]) else { return }
            _ = values.value("no-such-option")
        }
    }

    @Test func readingAnUndeclaredFlagStops() async {
        await #expect(processExitsWith: .failure) {
            guard case .run(let values)? = try? SampleCommands.parser.parse(["backup", "-o", "out", "db"]) else { return }
            _ = values.flag("quiet")  // declared by inspect, not by backup
        }
    }

    @Test func readingAnUndeclaredArgumentStops() async {
        await #expect(processExitsWith: .failure) {
            guard case .run(let values)? = try? SampleCommands.parser.parse(["backup", "-o", "out", "db"]) else { return }
            _ = values.argument("bundle")
        }
    }

    @Test func readingDeclaredNamesDoesNotStop() async {
        await #expect(processExitsWith: .success) {
            guard case .run(let values)? = try? SampleCommands.parser.parse(["backup", "-o", "out", "db"]) else { exit(3) }
            _ = (values.value("output"), values.flag("json"), values.values("check"), values.isPresent("retries"), values.argument("path"))
        }
    }
}
