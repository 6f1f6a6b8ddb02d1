import Foundation
import Testing
@testable import ArgumentKit

@Suite struct HelpFormatterTests {
    @Test func helpOfALeafCommandHasEverySection() {
        let text = HelpFormatter.help(for: SampleCommands.inspect, path: ["steward", "inspect"])
        #expect(text == """
            OVERVIEW: Show what is inside a database file.

            USAGE: steward inspect [--json] [--quiet] <path>

            ARGUMENTS:
              <path>                  The database file.

            OPTIONS:
              --json                  Print the report as one JSON object on stdout.
              -q, --quiet             Print no progress on stderr.
              -h, --help              Show help information.

            """)
    }

    @Test func helpOfTheRootListsSubcommandsAndVersion() {
        let text = HelpFormatter.help(for: SampleCommands.root, path: ["steward"])
        #expect(text == """
            OVERVIEW: Keep SQLite databases safe.

            Exit status: 0 success; 64 usage error.

            USAGE: steward <subcommand>

            OPTIONS:
              --version               Show the version.
              -h, --help              Show help information.

            SUBCOMMANDS:
              inspect                 Show what is inside a database file.
              backup                  Take a consistent online snapshot.
              verify                  Prove a database.
              bundle                  Work with bundles.
              restore                 Unpack a bundle.

              See 'steward help <subcommand>' for detailed help.

            """)
        #expect(!text.contains("ARGUMENTS:"))
    }

    @Test func sectionsAppearInOrder() throws {
        let text = HelpFormatter.help(for: SampleCommands.backup, path: ["steward", "backup"])
        let overview = try #require(text.range(of: "OVERVIEW:"))
        let usage = try #require(text.range(of: "\nUSAGE:"))
        let arguments = try #require(text.range(of: "\nARGUMENTS:\n"))
        let options = try #require(text.range(of: "\nOPTIONS:\n"))
        #expect(overview.lowerBound < usage.lowerBound)
        #expect(usage.lowerBound < arguments.lowerBound)
        #expect(arguments.lowerBound < options.lowerBound)
        #expect(!text.contains("SUBCOMMANDS:"))
        #expect(!text.contains("--version"))
    }

    @Test func defaultsAreShown() {
        let text = HelpFormatter.help(for: SampleCommands.backup, path: ["steward", "backup"])
        #expect(text.contains("  --retries <count>       How often to retry on SQLITE_BUSY. (default: 3)\n"))
        #expect(text.contains("(default: 5)"))
        #expect(text.contains("  -o, --output <path>     Where to write the bundle.\n"))
        #expect(!text.contains("--output <path>     Where to write the bundle. (default"))
    }

    @Test func discussionKeepsItsLines() {
        let text = HelpFormatter.help(for: SampleCommands.backup, path: ["steward", "backup"])
        #expect(text.hasPrefix("""
            OVERVIEW: Take a consistent online snapshot.

            The bundle is written under a temporary name.
            It is renamed into place at the end.

            USAGE: steward backup --output <path>
            """))
    }

    @Test func unavailableReasonIsShownBelowTheOverview() {
        let text = HelpFormatter.help(for: SampleCommands.restore, path: ["steward", "restore"])
        #expect(text.hasPrefix("OVERVIEW: Unpack a bundle.\n\n'steward restore' is not available yet.\n\nUSAGE: steward restore\n"))
    }

    @Test func nestedGroupHintNamesItsPath() {
        let text = HelpFormatter.help(for: SampleCommands.bundle, path: ["steward", "bundle"])
        #expect(text.contains("USAGE: steward bundle <subcommand>\n"))
        #expect(text.contains("  list                    List the entries of a bundle.\n"))
        #expect(text.contains("  See 'steward bundle help <subcommand>' for detailed help.\n"))
    }

    @Test func longLabelPutsHelpOnTheNextLine() {
        let command = CommandConfiguration(
            commandName: "x", abstract: "X.",
            options: [OptionDefinition.option("output-directory", short: "o", value: "directory", help: "Where to put it.")])
        let text = HelpFormatter.help(for: command, path: ["x"])
        #expect(text.contains("  -o, --output-directory <directory>\n" + String(repeating: " ", count: 26) + "Where to put it.\n"))
    }

    @Test func longHelpIsWrappedAtEightyColumnsUnderItsColumn() throws {
        let words = (1...40).map { "word\($0)" }
        let command = CommandConfiguration(
            commandName: "x", abstract: "X.",
            options: [OptionDefinition.flag("verbose", help: words.joined(separator: " "))])
        let text = HelpFormatter.help(for: command, path: ["x"])
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.allSatisfy { $0.count <= 80 })
        let start = try #require(lines.firstIndex { $0.hasPrefix("  --verbose") })
        let helpLines = lines[start...].prefix { $0.hasPrefix("  --verbose") || $0.hasPrefix(String(repeating: " ", count: 26) + "word") }
        #expect(helpLines.count > 2)
        #expect(helpLines.dropFirst().allSatisfy { $0.hasPrefix(String(repeating: " ", count: 26) + "w") })
        let rejoined = helpLines.map { $0.dropFirst(26) }.joined(separator: " ")
        #expect(rejoined == words.joined(separator: " "))
    }

    // MARK: - Usage

    @Test(arguments: [
        (SampleCommands.inspect, ["steward", "inspect"], "steward inspect [--json] [--quiet] <path>"),
        (SampleCommands.backup, ["steward", "backup"],
         "steward backup --output <path> [--retries <count>] [--timeout <seconds>] [--check <sql> ...] [--json] <path>"),
        (SampleCommands.verify, ["steward", "verify"], "steward verify [--json] <path> [<fixtures>]"),
        (SampleCommands.root, ["steward"], "steward <subcommand>"),
        (SampleCommands.bundle, ["steward", "bundle"], "steward bundle <subcommand>"),
        (SampleCommands.list, ["steward", "bundle", "list"], "steward bundle list <bundle>"),
        (SampleCommands.restore, ["steward", "restore"], "steward restore"),
    ])
    func usageLine(_ command: CommandConfiguration, _ path: [String], _ usage: String) {
        #expect(HelpFormatter.usage(for: command, path: path) == usage)
    }

    // MARK: - Wrapping

    @Test func wrapKeepsShortTextOnOneLine() {
        #expect(HelpFormatter.wrap("short text", indent: 4) == "    short text")
        #expect(HelpFormatter.wrap("", indent: 2) == "  ")
    }

    @Test func wrapBreaksBetweenWords() {
        let text = String(repeating: "abcdefghi ", count: 20).trimmingCharacters(in: .init(charactersIn: " "))
        let wrapped = HelpFormatter.wrap(text, indent: 0)
        let lines = wrapped.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.count <= 80 && !$0.hasSuffix(" ") })
        #expect(lines.joined(separator: " ") == text)
    }

    @Test func overlongWordStaysWhole() {
        let word = String(repeating: "x", count: 100)
        #expect(HelpFormatter.wrap("a \(word) b", indent: 0) == "a\n\(word)\nb")
    }
}
