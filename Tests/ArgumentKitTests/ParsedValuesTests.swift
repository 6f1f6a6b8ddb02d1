import Foundation
import Testing
import ArgumentKit

/// Reading parsed values through typed keys (`Flag`, `Option`, `RepeatedOption`,
/// `Argument`): conversion at parse time, defaults, arrays, and keys never declared.
@Suite struct ParsedValuesTests {
    private func backup(_ extra: [String]) throws -> ParsedValues {
        guard case .run(let values) = try SampleCommands.parser.parse(["backup", "-o", "out", "db"] + extra) else {
            throw CommandLineError(message: "not run", usage: "", commandPath: "")
        }
        return values
    }

    private func parseError(_ extra: [String]) throws -> CommandLineError {
        try #require(throws: CommandLineError.self) { try backup(extra) }
    }

    // MARK: - Defaults and presence

    @Test func defaultsApplyWhenTheOptionIsAbsent() throws {
        let values = try backup([])
        #expect(values[SampleCommands.retries] == 3)
        #expect(values[SampleCommands.timeout] == 5)
        #expect(!values.isPresent(SampleCommands.retries))
        #expect(values[SampleCommands.check] == [])
        #expect(!values[SampleCommands.json])
    }

    @Test func givenValueWinsOverTheDefault() throws {
        let values = try backup(["--retries", "7", "--json"])
        #expect(values[SampleCommands.retries] == 7)
        #expect(values.isPresent(SampleCommands.retries))
        #expect(values[SampleCommands.json])
        #expect(values.isPresent(SampleCommands.json))
        #expect(values.isPresent(SampleCommands.output))
        #expect(!values.isPresent(SampleCommands.timeout))
        #expect(values[SampleCommands.path] == "db")
    }

    @Test func repeatingOptionsReturnEveryValueInOrder() throws {
        let values = try backup(["--check", "SELECT 1", "--check=SELECT 2", "--check", "SELECT 1"])
        #expect(values[SampleCommands.check] == ["SELECT 1", "SELECT 2", "SELECT 1"])
    }

    @Test func requiredReturnsTheValueOrTheDefault() throws {
        let values = try backup([])
        #expect(try values.required(SampleCommands.output) == "out")
        #expect(try values.required(SampleCommands.retries) == 3)
    }

    @Test func requiredOfAMissingOptionIsAUsageError() throws {
        let optional = Option<String>("name", value: "file", help: "A name.")
        let command = CommandConfiguration(commandName: "tag", abstract: "Tag.", options: [optional])
        let root = CommandConfiguration(commandName: "steward", abstract: "S.", subcommands: [command])
        guard case .run(let values) = try CommandLineParser(root: root).parse(["tag"]) else {
            Issue.record("not run")
            return
        }
        let error = try #require(throws: CommandLineError.self) { try values.required(optional) }
        #expect(error.message == "Missing expected argument '--name <file>'")
        #expect(error.commandPath == "steward tag")
    }

    // MARK: - Integers

    @Test(arguments: [([String](), 3), (["--retries", "0"], 0), (["--retries=10"], 10), (["--retries", "-0"], 0)] as [([String], Int)])
    func integerInRange(_ extra: [String], _ expected: Int) throws {
        #expect(try backup(extra)[SampleCommands.retries] == expected)
    }

    /// A value of the wrong type never reaches the command: the parser refuses it (64),
    /// saying what the option expects, an empty value included.
    @Test(arguments:
        ["11", "-1", "abc", "", "1.5", " 3", "0x3", "99999999999999999999"].map { ($0, "--retries <count>", "an integer from 0 to 10") }
        + ["61", "-0.1", "abc", "", "inf", "nan", "-inf", "1e400"].map { ($0, "--timeout <seconds>", "a number of seconds from 0 to 60") })
    func outOfRangeOrMalformedIsAUsageError(_ text: String, _ option: String, _ expected: String) throws {
        let name = option.prefix { $0 != " " }
        let error = try parseError(["\(name)=\(text)"])
        #expect(error.message == "The value '\(text)' is invalid for '\(option)': expected \(expected)")
        #expect(error.usage.hasPrefix("steward backup "))
        #expect(error.commandPath == "steward backup")
        #expect(CommandLineError.exitCode == 64)
    }

    @Test func negativeRangeIsPrinted() throws {
        let below = Option<Int>("offset", value: "n", help: "An offset.", in: -3 ... -1)
        let command = CommandConfiguration(commandName: "tag", abstract: "Tag.", options: [below])
        let root = CommandConfiguration(commandName: "steward", abstract: "S.", subcommands: [command])
        let error = try #require(throws: CommandLineError.self) { try CommandLineParser(root: root).parse(["tag", "--offset", "5"]) }
        #expect(error.message == "The value '5' is invalid for '--offset <n>': expected an integer from -3 to -1")
        guard case .run(let values) = try CommandLineParser(root: root).parse(["tag", "--offset", "-2"]) else {
            Issue.record("not run")
            return
        }
        #expect(values[below] == -2)
    }

    // MARK: - Seconds

    @Test(arguments: [([String](), 5.0), (["--timeout", "0.5"], 0.5), (["--timeout=60"], 60), (["--timeout", "1e1"], 10)] as [([String], Double)])
    func secondsInRange(_ extra: [String], _ expected: Double) throws {
        #expect(try backup(extra)[SampleCommands.timeout] == expected)
    }

    /// An argument that takes a closed set of words is refused like a typed option.
    @Test(arguments: [("tcsh", "The value 'tcsh' is invalid for '<shell>': expected bash or zsh"),
                      ("", "The value '' is invalid for '<shell>': expected bash or zsh")])
    func anArgumentOutsideItsSetIsAUsageError(_ word: String, _ message: String) throws {
        let shell = Argument("shell", help: "A shell.", expected: "bash or zsh", accepts: { ["bash", "zsh"].contains($0) })
        let command = CommandConfiguration(commandName: "completions", abstract: "C.", arguments: [shell.definition])
        let parser = CommandLineParser(root: CommandConfiguration(commandName: "steward", abstract: "S.", subcommands: [command]))
        let error = try #require(throws: CommandLineError.self) { try parser.parse(["completions", word]) }
        #expect(error.message == message)
        guard case .run(let values) = try parser.parse(["completions", "zsh"]) else {
            Issue.record("not run")
            return
        }
        #expect(values[shell] == "zsh")
    }

    @Test func fractionalBoundsArePrintedAsDecimals() throws {
        let timeout = Option<Double>.seconds("wait", help: "Wait.", default: 0.5, in: 0.25...2.5)
        #expect(timeout.definition.defaultValue == "0.5")
        let command = CommandConfiguration(commandName: "tag", abstract: "Tag.", options: [timeout])
        let root = CommandConfiguration(commandName: "steward", abstract: "S.", subcommands: [command])
        let error = try #require(throws: CommandLineError.self) { try CommandLineParser(root: root).parse(["tag", "--wait", "3"]) }
        #expect(error.message == "The value '3' is invalid for '--wait <seconds>': expected a number of seconds from 0.25 to 2.5")
    }

    // MARK: - Other types

    enum Shell: String, Sendable { case bash, zsh }

    @Test func aConvertedTypeIsReadAsItselfAndAWrongValueIsAUsageError() throws {
        let shell = Option<Shell>("shell", value: "name", help: "A shell.", expected: "bash or zsh", convert: { Shell(rawValue: $0) })
        let shells = RepeatedOption<Shell>("also", value: "name", help: "More.", expected: "bash or zsh", convert: { Shell(rawValue: $0) })
        let command = CommandConfiguration(commandName: "tag", abstract: "Tag.", options: [shell, shells])
        let parser = CommandLineParser(root: CommandConfiguration(commandName: "steward", abstract: "S.", subcommands: [command]))
        guard case .run(let values) = try parser.parse(["tag", "--shell", "zsh", "--also", "bash", "--also", "zsh"]) else {
            Issue.record("not run")
            return
        }
        #expect(values[shell] == .zsh)
        #expect(values[shells] == [.bash, .zsh])
        for words in [["tag", "--shell", "tcsh"], ["tag", "--also", "bash", "--also", "fish"]] {
            let error = try #require(throws: CommandLineError.self) { try parser.parse(words) }
            #expect(error.message.hasSuffix(": expected bash or zsh"), "\(words)")
        }
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

    // MARK: - Keys the command never declared

    // A key whose option the command does not list would read as "not given" and take
    // its default without a word; debug builds stop instead. Each runs in a child process.

    @Test func readingAnUndeclaredOptionStops() async {
        await #expect(processExitsWith: .failure) {
            guard case .run(let values)? = try? SampleCommands.parser.parse(["backup", "-o", "out", "db"]) else { return }
            _ = values[Option<String>("no-such-option", value: "x", help: "")]
        }
    }

    @Test func readingAnUndeclaredFlagStops() async {
        await #expect(processExitsWith: .failure) {
            guard case .run(let values)? = try? SampleCommands.parser.parse(["backup", "-o", "out", "db"]) else { return }
            _ = values[SampleCommands.quiet]  // declared by inspect, not by backup
        }
    }

    @Test func readingAnUndeclaredArgumentStops() async {
        await #expect(processExitsWith: .failure) {
            guard case .run(let values)? = try? SampleCommands.parser.parse(["backup", "-o", "out", "db"]) else { return }
            _ = values[Argument("bundle", help: "")]
        }
    }

    @Test func readingDeclaredKeysDoesNotStop() async {
        await #expect(processExitsWith: .success) {
            guard case .run(let values)? = try? SampleCommands.parser.parse(["backup", "-o", "out", "db"]) else { exit(3) }
            _ = (values[SampleCommands.output], values[SampleCommands.json], values[SampleCommands.check],
                 values.isPresent(SampleCommands.retries), values[SampleCommands.path])
        }
    }
}
