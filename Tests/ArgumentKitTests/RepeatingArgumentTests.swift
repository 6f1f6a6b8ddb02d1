import Testing
@testable import ArgumentKit

/// A last argument that takes every remaining word (`steward report <file> ...`).
@Suite struct RepeatingArgumentTests {
    static let report = CommandConfiguration(
        commandName: "report", abstract: "Summarise.",
        arguments: [ArgumentDefinition("file", help: "Files.", isRepeating: true)],
        options: [OptionDefinition.flag("json", help: "JSON.")])
    static let parser = CommandLineParser(root: CommandConfiguration(
        commandName: "steward", abstract: "Test.", subcommands: [report]))

    private func values(_ arguments: [String]) throws -> ParsedValues {
        guard case .run(let values) = try Self.parser.parse(arguments) else {
            throw CommandLineError(message: "not a run", usage: "", commandPath: "")
        }
        return values
    }

    @Test func everyRemainingWordIsKeptInOrderWithOptionsBetween() throws {
        let parsed = try values(["report", "a.ndjson", "--json", "-", "b.ndjson", "--", "--c"])
        #expect(parsed.arguments("file") == ["a.ndjson", "-", "b.ndjson", "--c"])
        #expect(parsed.argument("file") == "a.ndjson")
        #expect(parsed.flag("json"))
    }

    @Test func oneWordIsAListOfOneAndNoneIsMissing() throws {
        #expect(try values(["report", "a"]).arguments("file") == ["a"])
        #expect(throws: CommandLineError.self) { try Self.parser.parse(["report"]) }
    }

    @Test func anEmptyWordAnywhereInTheListIsRefused() {
        #expect(throws: CommandLineError(
            message: "The value '' is invalid for '<file>'",
            usage: HelpFormatter.usage(for: Self.report, path: ["steward", "report"]), commandPath: "steward report")
        ) { try Self.parser.parse(["report", "a", "", "b"]) }
    }

    /// What a caller can know of a command line the parser refused: the words it would
    /// have given the arguments.
    @Test(arguments: [
        (["a", "--bogus", "b"], ["a", "b"]),
        (["--output", "x", "a", "-o", "y", "b", "--output=z", "c"], ["a", "b", "c"]),
        (["a", "--output", "--json", "b"], ["a", "b"]),
        (["-", "--", "--output", "x"], ["-", "--output", "x"]),
        (["a", ""], ["a", ""]),
    ])
    func positionalWordsAreReadAsTheParserReadsThem(_ words: [String], _ expected: [String]) {
        let command = CommandConfiguration(
            commandName: "report", abstract: "Summarise.",
            arguments: [ArgumentDefinition("file", help: "Files.", isRepeating: true)],
            options: [OptionDefinition.option("output", short: "o", value: "path", help: "Where."), OptionDefinition.flag("json", help: "JSON.")])
        #expect(command.positionalWords(in: words) == expected)
    }

    @Test func usageShowsTheRepetition() {
        #expect(HelpFormatter.usage(for: Self.report, path: ["steward", "report"]).contains("<file> ..."))
    }
}
