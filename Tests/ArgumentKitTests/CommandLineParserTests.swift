import Testing
@testable import ArgumentKit

@Suite struct CommandLineParserTests {
    let parser = SampleCommands.parser

    struct ParseFailure: Error, CustomStringConvertible {
        let description: String
    }

    private func values(_ arguments: [String]) throws -> ParsedValues {
        switch try parser.parse(arguments) {
        case .run(let values): return values
        case .help: throw ParseFailure(description: "\(arguments) gave help, not values")
        case .version: throw ParseFailure(description: "\(arguments) gave the version, not values")
        }
    }

    private func help(_ arguments: [String]) throws -> String {
        switch try parser.parse(arguments) {
        case .help(let text, _): return text
        case .run: throw ParseFailure(description: "\(arguments) gave values, not help")
        case .version: throw ParseFailure(description: "\(arguments) gave the version, not help")
        }
    }

    private func failure(_ arguments: [String]) throws -> CommandLineError {
        do {
            _ = try parser.parse(arguments)
        } catch {
            return error
        }
        throw ParseFailure(description: "\(arguments) parsed without an error")
    }

    // MARK: - Usage errors

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let message: String
        let commandPath: String
        var testDescription: String { arguments.joined(separator: " ") }

        init(_ arguments: [String], _ message: String, in commandPath: String) {
            self.arguments = arguments
            self.message = message
            self.commandPath = commandPath
        }
    }

    static let errorCases: [ErrorCase] = [
        // Unknown options, with and without a suggestion.
        .init(["inspect", "--josn", "db"], "Unknown option '--josn'. Did you mean '--json'?", in: "steward inspect"),
        .init(["inspect", "--josn=1", "db"], "Unknown option '--josn'. Did you mean '--json'?", in: "steward inspect"),
        .init(["inspect", "--hepl"], "Unknown option '--hepl'. Did you mean '--help'?", in: "steward inspect"),
        .init(["inspect", "--quite", "db"], "Unknown option '--quite'. Did you mean '--quiet'?", in: "steward inspect"),
        .init(["backup", "--outptu", "x", "db"], "Unknown option '--outptu'. Did you mean '--output'?", in: "steward backup"),
        .init(["inspect", "--frobnicate", "db"], "Unknown option '--frobnicate'", in: "steward inspect"),
        .init(["inspect", "-x", "db"], "Unknown option '-x'", in: "steward inspect"),
        .init(["inspect", "--version"], "Unknown option '--version'", in: "steward inspect"),
        .init(["--josn"], "Unknown option '--josn'", in: "steward"),
        .init(["--verison"], "Unknown option '--verison'. Did you mean '--version'?", in: "steward"),
        .init(["--hlep", "inspect"], "Unknown option '--hlep'. Did you mean '--help'?", in: "steward"),
        .init(["bundle", "--josn"], "Unknown option '--josn'", in: "steward bundle"),
        // Unknown commands.
        .init(["inspct", "db"], "Unknown command 'inspct'. Did you mean 'inspect'?", in: "steward"),
        .init(["bakcup"], "Unknown command 'bakcup'. Did you mean 'backup'?", in: "steward"),
        .init(["frobnicate"], "Unknown command 'frobnicate'", in: "steward"),
        .init(["bundle", "lst"], "Unknown command 'lst'. Did you mean 'list'?", in: "steward bundle"),
        .init(["help", "inspct"], "Unknown command 'inspct'. Did you mean 'inspect'?", in: "steward"),
        .init(["help", "frobnicate"], "Unknown command 'frobnicate'", in: "steward"),
        .init(["help", "bundle", "lst"], "Unknown command 'lst'. Did you mean 'list'?", in: "steward bundle"),
        // Values.
        .init(["backup", "db", "--output"], "Missing value for '--output <path>'", in: "steward backup"),
        .init(["backup", "--output", "--json", "db"], "Missing value for '--output <path>'", in: "steward backup"),
        .init(["backup", "-o"], "Missing value for '--output <path>'", in: "steward backup"),
        .init(["inspect", "--json=1", "db"], "The flag '--json' does not take a value", in: "steward inspect"),
        .init(["inspect", "--json=", "db"], "The flag '--json' does not take a value", in: "steward inspect"),
        .init(["inspect", "-q=yes", "db"], "The flag '--quiet' does not take a value", in: "steward inspect"),
        .init(["backup", "-o", "a", "--output", "b", "db"], "'--output <path>' was given more than once", in: "steward backup"),
        .init(["backup", "--retries=1", "--retries", "2", "-o", "x", "db"],
              "'--retries <count>' was given more than once", in: "steward backup"),
        // An empty value is refused for every option and argument, in one place.
        .init(["backup", "--output", "", "db"], "The value '' is invalid for '--output <path>'", in: "steward backup"),
        .init(["backup", "--output=", "db"], "The value '' is invalid for '--output <path>'", in: "steward backup"),
        .init(["backup", "-o", "x", "--check", "SELECT 1", "--check=", "db"],
              "The value '' is invalid for '--check <sql>'", in: "steward backup"),
        .init(["backup", "-o", "x", ""], "The value '' is invalid for '<path>'", in: "steward backup"),
        .init(["inspect", "--", ""], "The value '' is invalid for '<path>'", in: "steward inspect"),
        .init(["verify", "a", ""], "The value '' is invalid for '<fixtures>'", in: "steward verify"),
        // A typed option says what it expects, empty or not.
        .init(["backup", "--retries", "", "-o", "x", "db"],
              "The value '' is invalid for '--retries <count>': expected an integer from 0 to 10", in: "steward backup"),
        // Arguments.
        .init(["inspect"], "Missing expected argument '<path>'", in: "steward inspect"),
        .init(["inspect", "--json"], "Missing expected argument '<path>'", in: "steward inspect"),
        .init(["bundle", "list"], "Missing expected argument '<bundle>'", in: "steward bundle list"),
        .init(["backup", "db"], "Missing expected argument '--output <path>'", in: "steward backup"),
        .init(["inspect", "a", "b"], "Unexpected argument 'b'", in: "steward inspect"),
        .init(["inspect", "--", "a", "-b"], "Unexpected argument '-b'", in: "steward inspect"),
        .init(["verify", "a", "b", "c"], "Unexpected argument 'c'", in: "steward verify"),
    ]

    @Test(arguments: errorCases)
    func usageErrors(_ example: ErrorCase) throws {
        let error = try failure(example.arguments)
        #expect(error.message == example.message)
        #expect(error.commandPath == example.commandPath)
        #expect(error.usage.hasPrefix(example.commandPath + " "))
    }

    static let usageLines: [(arguments: [String], usage: String)] = [
        (["inspect", "--josn", "db"], "steward inspect [--json] [--quiet] <path>"),
        (["backup", "db"], "steward backup --output <path> [--retries <count>] [--timeout <seconds>] [--check <sql> ...] [--json] <path>"),
        (["verify"], "steward verify [--json] <path> [<fixtures>]"),
        (["frobnicate"], "steward <subcommand>"),
        (["bundle", "lst"], "steward bundle <subcommand>"),
        (["bundle", "list"], "steward bundle list <bundle>"),
    ]

    @Test(arguments: usageLines)
    func errorsCarryTheUsageOfTheirCommand(_ example: (arguments: [String], usage: String)) throws {
        #expect(try failure(example.arguments).usage == example.usage)
    }

    @Test func errorRendersAsThreeLines() throws {
        let error = try failure(["inspect", "--josn", "db"])
        #expect(error.description == """
            Error: Unknown option '--josn'. Did you mean '--json'?
            Usage: steward inspect [--json] [--quiet] <path>
              See 'steward inspect --help' for more information.

            """)
        #expect(CommandLineError.exitCode == 64)
    }

    // MARK: - Values

    @Test func flagsAndArgument() throws {
        let parsed = try values(["inspect", "--json", "db.sqlite"])
        #expect(parsed.command.commandName == "inspect")
        #expect(parsed.commandPath == ["steward", "inspect"])
        #expect(parsed.flag("json"))
        #expect(!parsed.flag("quiet"))
        #expect(parsed.argument("path") == "db.sqlite")
    }

    @Test(arguments: [["inspect", "db", "--json", "-q"], ["inspect", "-q", "--json", "db"], ["inspect", "--quiet", "db", "--json"]])
    func optionsMayComeBeforeOrAfterArguments(_ arguments: [String]) throws {
        let parsed = try values(arguments)
        #expect(parsed.flag("json"))
        #expect(parsed.flag("quiet"))
        #expect(parsed.argument("path") == "db")
    }

    @Test(arguments: [
        ["backup", "--output", "out.tar.zst", "db"],
        ["backup", "--output=out.tar.zst", "db"],
        ["backup", "-o", "out.tar.zst", "db"],
        ["backup", "-o=out.tar.zst", "db"],
        ["backup", "db", "--output", "out.tar.zst"],
    ])
    func optionValueSeparateOrInline(_ arguments: [String]) throws {
        let parsed = try values(arguments)
        #expect(parsed.value("output") == "out.tar.zst")
        #expect(parsed.argument("path") == "db")
    }

    @Test(arguments: [
        ("--output=a=b", "a=b"),
        ("--output=-", "-"),
        ("--output= spaced ", " spaced "),
    ])
    func inlineValueIsEverythingAfterTheFirstEquals(_ word: String, _ expected: String) throws {
        #expect(try values(["backup", word, "db"]).value("output") == expected)
    }

    @Test(arguments: ["-", "-1", "-x"])
    func separateValueMayStartWithASingleDash(_ value: String) throws {
        #expect(try values(["backup", "--output", value, "db"]).value("output") == value)
    }

    @Test(arguments: [
        (["inspect", "--", "-weird"], "-weird"),
        (["inspect", "--", "--json"], "--json"),
        (["inspect", "--", "--help"], "--help"),
        (["inspect", "--", "-h"], "-h"),
        (["inspect", "--", "--"], "--"),
        (["inspect", "-"], "-"),
        (["inspect", "help"], "help"),
    ])
    func doubleDashEndsOptions(_ arguments: [String], _ path: String) throws {
        let parsed = try values(arguments)
        #expect(parsed.argument("path") == path)
        #expect(!parsed.flag("json"))
    }

    @Test func optionBeforeDoubleDashStillCounts() throws {
        let parsed = try values(["inspect", "--json", "--", "--quiet"])
        #expect(parsed.flag("json"))
        #expect(!parsed.flag("quiet"))
        #expect(parsed.argument("path") == "--quiet")
    }

    @Test func repeatingOptionKeepsEveryValueInOrder() throws {
        let parsed = try values(["backup", "--check", "SELECT 1", "-o", "x", "--check=SELECT 2", "db"])
        #expect(parsed.values("check") == ["SELECT 1", "SELECT 2"])
        #expect(parsed.value("check") == "SELECT 2")
    }

    @Test func optionalArgumentMayBeLeftOut() throws {
        #expect(try values(["verify", "db"]).argument("fixtures") == nil)
        #expect(try values(["verify", "db", "fx.sql"]).argument("fixtures") == "fx.sql")
    }

    @Test func nestedCommandsBuildTheirPath() throws {
        let parsed = try values(["bundle", "list", "b.tar.zst"])
        #expect(parsed.commandPath == ["steward", "bundle", "list"])
        #expect(parsed.argument("bundle") == "b.tar.zst")
    }

    @Test func unavailableCommandStillParses() throws {
        let parsed = try values(["restore"])
        #expect(parsed.command.unavailableReason == "'steward restore' is not available yet.")
    }

    @Test func repeatedFlagIsAccepted() throws {
        #expect(try values(["inspect", "--json", "--json", "db"]).flag("json"))
    }

    // MARK: - Help and version

    static let helpCases: [(arguments: [String], path: [String])] = [
        ([], ["steward"]),
        (["-h"], ["steward"]),
        (["--help"], ["steward"]),
        (["help"], ["steward"]),
        (["--help", "inspect"], ["steward"]),
        (["inspect", "-h"], ["steward", "inspect"]),
        (["inspect", "--help"], ["steward", "inspect"]),
        (["inspect", "db", "--help"], ["steward", "inspect"]),
        (["inspect", "a", "b", "-h"], ["steward", "inspect"]),
        (["inspect", "--josn", "-h"], ["steward", "inspect"]),
        (["inspect", "--json=1", "--help"], ["steward", "inspect"]),
        (["help", "inspect"], ["steward", "inspect"]),
        (["backup", "--help"], ["steward", "backup"]),
        (["backup", "--output", "--help"], ["steward", "backup"]),
        (["bundle"], ["steward", "bundle"]),
        (["bundle", "-h"], ["steward", "bundle"]),
        (["help", "bundle"], ["steward", "bundle"]),
        (["bundle", "list", "--help"], ["steward", "bundle", "list"]),
        (["help", "bundle", "list"], ["steward", "bundle", "list"]),
        (["restore", "--help"], ["steward", "restore"]),
    ]

    @Test(arguments: helpCases)
    func helpOfTheRightCommand(_ example: (arguments: [String], path: [String])) throws {
        let text = try help(example.arguments)
        var command = SampleCommands.root
        for name in example.path.dropFirst() {
            command = try #require(command.subcommands.first { $0.commandName == name })
        }
        #expect(text == HelpFormatter.help(for: command, path: example.path))
        #expect(text.hasPrefix("OVERVIEW: \(command.abstract)\n"))
        #expect(text.contains("USAGE: \(example.path.joined(separator: " "))"))
    }

    @Test func helpAfterDoubleDashIsAnArgument() throws {
        #expect(try values(["inspect", "--", "--help"]).argument("path") == "--help")
    }

    @Test(arguments: [["--version"], ["--version", "inspect"], ["--version", "--frobnicate"]])
    func versionOnTheRoot(_ arguments: [String]) throws {
        guard case .version(let version) = try parser.parse(arguments) else {
            Issue.record("\(arguments) did not give the version")
            return
        }
        #expect(version == "1.2.3")
    }

    @Test func versionIsAnUnknownOptionWhereNoneIsDeclared() throws {
        let parser = CommandLineParser(root: SampleCommands.inspect)
        #expect(throws: CommandLineError.self) { try parser.parse(["--version", "db"]) }
    }

    @Test func rootWithoutSubcommandsParsesItsOwnOptions() throws {
        let parser = CommandLineParser(root: SampleCommands.inspect)
        guard case .run(let parsed) = try parser.parse(["--json", "db"]) else {
            Issue.record("no values")
            return
        }
        #expect(parsed.commandPath == ["inspect"])
        #expect(parsed.flag("json"))
        #expect(parsed.argument("path") == "db")
    }

    // MARK: - Suggestions

    @Test(arguments: [
        ("", "", 0),
        ("", "abc", 3),
        ("abc", "", 3),
        ("abc", "abc", 0),
        ("ab", "ba", 1),
        ("--josn", "--json", 1),
        ("kitten", "sitting", 3),
        ("flaw", "lawn", 2),
        ("inspct", "inspect", 1),
        ("客户", "客戶", 1),
        // Optimal string alignment: a transposed pair may not be edited again.
        ("ca", "abc", 3),
    ])
    func editDistance(_ a: String, _ b: String, _ distance: Int) {
        #expect(CommandLineParser.editDistance(a, b) == distance)
        #expect(CommandLineParser.editDistance(b, a) == distance)
    }

    @Test(arguments: [
        ("--josn", ["--json", "--quiet", "--help"], "--json"),
        ("--jsno", ["--json", "--quiet", "--help"], "--json"),
        ("--xyzzy", ["--json", "--quiet", "--help"], nil),
        ("--json", [], nil),
        ("inspct", ["migrate", "verify", "backup", "restore", "inspect"], "inspect"),
        ("verfy", ["migrate", "verify"], "verify"),
        ("ab", ["xy"], nil),
        ("ab", ["ac"], "ac"),
        // Long words tolerate up to three edits, short ones one.
        ("--outptu-dir", ["--output-dir"], "--output-dir"),
        ("abcdefghij", ["abcdefgxyz"], "abcdefgxyz"),
        ("abcdefghij", ["abcdewxyzq"], nil),
        ("-x", ["--json"], nil),
    ] as [(String, [String], String?)])
    func nearest(_ word: String, _ candidates: [String], _ expected: String?) {
        #expect(CommandLineParser.nearest(to: word, among: candidates) == expected)
    }

    @Test func nearestPrefersTheFirstOfEquallyCloseCandidates() {
        #expect(CommandLineParser.nearest(to: "--jso", among: ["--json", "--jsox"]) == "--json")
        #expect(CommandLineParser.nearest(to: "--jso", among: ["--jsox", "--json"]) == "--jsox")
    }
}
