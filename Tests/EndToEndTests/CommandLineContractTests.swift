import Foundation
import Testing
import TestSupport

/// The command-line contract (docs/design-notes.md, "Command-line contract"), checked on
/// the built binary.
@Suite struct CommandLineContractTests {
    @Test func noArgumentsPrintsHelp() throws {
        let run = try StewardProcess.run([])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("OVERVIEW: "))
        for command in ["migrate", "verify", "backup", "restore", "inspect"] {
            #expect(run.stdout.contains("  \(command) "), "help lists \(command)")
        }
        #expect(run.stderr.isEmpty)
    }

    @Test(arguments: [["--help"], ["-h"], ["help"]])
    func rootHelp(arguments: [String]) throws {
        let run = try StewardProcess.run(arguments)
        #expect(run.status == 0)
        #expect(run.stdout.contains("USAGE: steward <subcommand>"))
        #expect(run.stdout.contains("SUBCOMMANDS:"))
    }

    @Test(arguments: [["help", "inspect"], ["inspect", "--help"], ["inspect", "-h"], ["inspect", "x.db", "--quiet", "--help"]])
    func commandHelp(arguments: [String]) throws {
        let run = try StewardProcess.run(arguments)
        #expect(run.status == 0)
        #expect(run.stdout.contains("USAGE: steward inspect [--digest] [--load-extension <path> ...] [--identity <file> ...] [--passphrase-file <file>] [--passphrase-env <name>] [--json] <path>"))
        #expect(run.stdout.contains("ARGUMENTS:"))
        #expect(run.stdout.contains("-h, --help"))
        #expect(run.stderr.isEmpty)
    }

    @Test func version() throws {
        let run = try StewardProcess.run(["--version"])
        #expect(run.status == 0)
        #expect(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
    }

    struct UsageCase: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let error: String
        let usage: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let inspectUsage = "Usage: steward inspect [--digest] [--load-extension <path> ...] [--identity <file> ...] [--passphrase-file <file>] [--passphrase-env <name>] [--json] <path>"

    static let usageCases: [UsageCase] = [
        UsageCase(arguments: ["inspect", "--josn", "x.db"],
                  error: "Error: Unknown option '--josn'. Did you mean '--json'?",
                  usage: inspectUsage),
        UsageCase(arguments: ["inspect", "--frobnicate", "x.db"],
                  error: "Error: Unknown option '--frobnicate'",
                  usage: inspectUsage),
        UsageCase(arguments: ["inspect"],
                  error: "Error: Missing expected argument '<path>'",
                  usage: inspectUsage),
        UsageCase(arguments: ["inspect", "a.db", "b.db"],
                  error: "Error: Unexpected argument 'b.db'",
                  usage: inspectUsage),
        UsageCase(arguments: ["inspect", "--json=yes", "a.db"],
                  error: "Error: The flag '--json' does not take a value",
                  usage: inspectUsage),
        UsageCase(arguments: ["inpsect", "a.db"],
                  error: "Error: Unknown command 'inpsect'. Did you mean 'inspect'?",
                  usage: "Usage: steward <subcommand>"),
        UsageCase(arguments: ["help", "frob"],
                  error: "Error: Unknown command 'frob'",
                  usage: "Usage: steward <subcommand>"),
        UsageCase(arguments: ["--verison"],
                  error: "Error: Unknown option '--verison'. Did you mean '--version'?",
                  usage: "Usage: steward <subcommand>"),
    ]

    @Test(arguments: usageCases)
    func usageErrorsAreThreeLinesAndExit64(_ usageCase: UsageCase) throws {
        let run = try StewardProcess.run(usageCase.arguments)
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 4, "three lines and a final newline")
        #expect(lines.first == usageCase.error)
        #expect(lines.dropFirst().first == usageCase.usage)
        let command = usageCase.usage.hasPrefix("Usage: steward inspect") ? "steward inspect" : "steward"
        #expect(lines.dropFirst(2).first == "  See '\(command) --help' for more information.")
    }

    /// The subcommands the root help lists, read from the help itself.
    static func commandsListedInHelp() throws -> [String] {
        let help = try StewardProcess.run(["--help"]).stdout
        guard let section = help.components(separatedBy: "SUBCOMMANDS:").last else { return [] }
        // A command's line is `  name   abstract`; continuation lines are indented further.
        return section.split(separator: "\n").compactMap { line in
            line.wholeMatch(of: #/\ \ ([a-z]+)\ \ +\S.*/#).map { String($0.output.1) }
        }
    }

    @Test func everyCommandListedInHelpIsBuiltAndHasHelp() throws {
        let commands = try Self.commandsListedInHelp()
        #expect(commands.sorted() == ["backup", "inspect", "lint", "migrate", "report", "restore", "verify"])
        for command in commands {
            let help = try StewardProcess.run([command, "--help"])
            #expect(help.status == 0, "\(command) --help")
            #expect(help.stdout.contains("OVERVIEW:"), "\(command) --help")
            #expect(help.stdout.contains("USAGE: steward \(command)"), "\(command) --help")
            #expect(help.stderr.isEmpty, "\(command) --help")
            let bare = try StewardProcess.run([command])
            #expect(!bare.stderr.contains("not available"), "\(command) is built")
        }
    }

    @Test func optionValueAfterEqualsAndDoubleDash() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("-odd-name.db")
        try Fixtures.makeExampleDatabase(at: path)
        let run = try StewardProcess.run(["inspect", "--json", "--", "-odd-name.db"], currentDirectory: directory.path)
        #expect(run.status == 0)
        #expect((try run.json()["database"] as? [String: Any])?["path"] as? String == "-odd-name.db")
    }

    @Test(arguments: [
        ["inspect", "--json", "a.db", "b.db"],
        ["migrate", "--json", "--db", "x.db", "--timeout", "soon"],
        ["backup", "--json", "--db", "x.db"],
        ["verify", "--json"],
    ])
    func usageErrorWithJSONIsAlsoOneObjectOnStdout(arguments: [String]) throws {
        let run = try StewardProcess.run(arguments)
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("Error: "))
        #expect(run.stderr.contains("Usage: steward \(arguments[0])"))
        let object = try run.json()
        #expect(object["command"] as? String == arguments[0])
        #expect(object["exitCode"] as? Int == 64)
        #expect((object["error"] as? [String: Any])?["kind"] as? String == "usage")
    }

    @Test func jsonFailureIsOneObjectOnStdout() throws {
        let run = try StewardProcess.run(["inspect", "--json", "/nonexistent/steward/db.sqlite"])
        #expect(run.status == 66)
        let object = try run.json()
        #expect(object["status"] as? String == "error")
        #expect(object["exitCode"] as? Int == 66)
        #expect(run.stderr.hasPrefix("Error: "))
    }
}
