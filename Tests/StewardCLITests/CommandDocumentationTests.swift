import ArgumentKit
import Foundation
import Testing
import TestSupport
@testable import StewardCLI

/// Each command's declared options, its `--help` and its man page name the same options,
/// so that a renamed or added option cannot leave one of the three behind. Sets are
/// compared, so a name missing on either side fails: declared but undocumented, and
/// documented but no longer declared.
@Suite struct CommandDocumentationTests {
    /// Every command `steward` runs, the hidden `completions` included.
    static var allCommands: [CommandConfiguration] { Steward.commands.map { $0.configuration } }

    /// The commands a user reads about, each on its own page; the hidden `completions`
    /// command has none (see `aHiddenCommandHasNoPageAndNoOptionOneWouldName`).
    static var commands: [CommandConfiguration] { allCommands.filter { !$0.isHidden } }

    static var commandNames: [String] { commands.map(\.commandName) }

    /// With no command found, one name that cannot exist, so that the parameterised tests
    /// fail instead of running over nothing.
    static var checkedNames: [String] { commandNames.isEmpty ? ["(no command)"] : commandNames }
    static var allCheckedNames: [String] {
        allCommands.isEmpty ? ["(no command)"] : allCommands.map(\.commandName)
    }

    @Test func someCommandsAreChecked() {
        #expect(Self.commandNames.count >= 6, "commands: \(Self.commandNames)")
        #expect(Self.allCommands.contains { $0.isHidden }, "the hidden completions command is checked too")
    }

    @Test(arguments: allCheckedNames)
    func helpNamesTheDeclaredOptions(command name: String) throws {
        let command = try #require(Self.allCommands.first { $0.commandName == name })
        let help = HelpFormatter.help(for: command, path: ["steward", name])
        #expect(Self.optionsSection(ofHelp: help) == Self.declared(command, withHelp: true))
    }

    /// What `steward CMD --help` prints is the help these tests read.
    @Test(arguments: allCheckedNames)
    func helpIsWhatTheParserPrints(command name: String) throws {
        let command = try #require(Self.allCommands.first { $0.commandName == name })
        guard case .help(let printed, _) = try CommandLineParser(root: Steward.root).parse([name, "--help"]) else {
            Issue.record("steward \(name) --help did not ask for help")
            return
        }
        #expect(printed == HelpFormatter.help(for: command, path: ["steward", name]))
    }

    /// One page per command a user reads about, and no page for a command that is gone.
    @Test func thePagesAreTheCommandsPages() throws {
        let directory = Fixtures.repositoryRoot.appendingPathComponent("man")
        let pages = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".1") })
        #expect(!pages.isEmpty, "man/*.1")
        #expect(pages == Set(["steward.1"] + Self.commandNames.map { "steward-\($0).1" }))
    }

    /// steward(1) lists the commands under "Commands", each pointing at its page.
    @Test func theRootPageListsEveryCommand() throws {
        let page = try Self.page("steward.1")
        // The `.SS Commands` part of DESCRIPTION, up to the next `.SS`.
        let description = Self.section("DESCRIPTION", of: page).components(separatedBy: "\n")
        let lines = description.drop { $0 != ".SS Commands" }.dropFirst().prefix { !$0.hasPrefix(".SS ") }
        var listed: [String] = []
        for (index, line) in zip(lines.indices, lines) where line == ".TP" && index + 1 < lines.endIndex {
            let item = lines[index + 1]
            if item.hasPrefix(".B ") { listed.append(String(item.dropFirst(3))) }
        }
        #expect(Set(listed) == Set(Self.commandNames), "steward(1) Commands")
        for name in Self.commandNames {
            #expect(page.contains(".BR steward\\-\(name) (1)"), "steward(1) points at steward-\(name)(1)")
        }
    }

    /// steward(1)'s OPTIONS are the root's (`--help`, `--version`) and `--json`, which it
    /// documents as accepted by every command: so every command must declare it.
    @Test func theRootPageNamesTheRootOptions() throws {
        let page = try Self.page("steward.1")
        let help = HelpFormatter.help(for: Steward.root, path: ["steward"])
        let rootOptions = Self.optionsSection(ofHelp: help)
        #expect(rootOptions.isSuperset(of: ["--help", "-h", "--version"]))
        #expect(Self.items(in: Self.section("OPTIONS", of: page)) == rootOptions.union(["--json"]), "man/steward.1 OPTIONS")
        for command in Self.commands {
            #expect(command.options.contains { $0.name == "json" }, "steward \(command.commandName) declares --json")
        }
    }

    /// A hidden command has no page; an option it declared would be documented nowhere.
    @Test func aHiddenCommandHasNoPageAndNoOptionOneWouldName() {
        for command in Self.allCommands where command.isHidden {
            #expect(command.options.isEmpty, "steward \(command.commandName) declares \(command.options.map(\.name))")
            let path = Fixtures.repositoryRoot.appendingPathComponent("man/steward-\(command.commandName).1").path
            #expect(!FileManager.default.fileExists(atPath: path), "a page for the hidden \(command.commandName)")
        }
    }

    @Test(arguments: checkedNames)
    func manPageSynopsisNamesTheDeclaredOptions(command name: String) throws {
        let command = try #require(Self.commands.first { $0.commandName == name })
        let page = try Self.manPage(of: name)
        let synopsis = Self.names(in: Self.section("SYNOPSIS", of: page)).filter { $0.hasPrefix("--") && $0 != "--help" }
        #expect(synopsis == Self.declared(command, withHelp: false).filter { $0.hasPrefix("--") },
                "man/steward-\(name).1 SYNOPSIS")
    }

    @Test(arguments: checkedNames)
    func manPageOptionsNameTheDeclaredOptions(command name: String) throws {
        let command = try #require(Self.commands.first { $0.commandName == name })
        let page = try Self.manPage(of: name)
        #expect(Self.items(in: Self.section("OPTIONS", of: page)) == Self.declared(command, withHelp: true), "man/steward-\(name).1 OPTIONS")
    }

    // MARK: - Reading the three sources

    /// `--db`, `-q`, `--quiet` … as the command declares them, with `-h, --help` if asked.
    static func declared(_ command: CommandConfiguration, withHelp: Bool) -> Set<String> {
        var names = Set<String>()
        for option in command.options {
            names.insert("--\(option.name)")
            if let short = option.shortName { names.insert("-\(short)") }
        }
        if withHelp { names.formUnion(["--help", "-h"]) }
        return names
    }

    /// The option names in the labels of help's OPTIONS section (the text before the
    /// column of explanations; wrapped explanation lines start with spaces only).
    static func optionsSection(ofHelp help: String) -> Set<String> {
        var names = Set<String>()
        var inOptions = false
        for line in help.components(separatedBy: "\n") {
            if line.hasSuffix(":") && !line.hasPrefix(" ") {
                inOptions = line == "OPTIONS:"
                continue
            }
            guard inOptions, line.hasPrefix("  -") else { continue }
            let label = line.dropFirst(2).components(separatedBy: "  ").first ?? ""
            names.formUnion(Self.names(in: label))
        }
        return names
    }

    static func manPage(of command: String) throws -> String {
        try page("steward-\(command).1")
    }

    static func page(_ name: String) throws -> String {
        let url = Fixtures.repositoryRoot.appendingPathComponent("man").appendingPathComponent(name)
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// The option names each `.TP` item of a section sets in bold: the line after it.
    static func items(in section: String) -> Set<String> {
        let lines = section.components(separatedBy: "\n")
        var items = Set<String>()
        for (index, line) in lines.enumerated() where line == ".TP" && index + 1 < lines.count {
            items.formUnion(names(in: lines[index + 1]))
        }
        return items
    }

    /// The lines from `.SH NAME` to the next `.SH`.
    static func section(_ name: String, of page: String) -> String {
        var lines: [String] = []
        var inside = false
        for line in page.components(separatedBy: "\n") {
            if line.hasPrefix(".SH ") {
                inside = line == ".SH \(name)"
                continue
            }
            if inside { lines.append(line) }
        }
        return lines.joined(separator: "\n")
    }

    /// `--name` and `-x` tokens, with roff's `\-` read as `-`.
    static func names(in text: String) -> Set<String> {
        let plain = text.replacingOccurrences(of: "\\-", with: "-")
        let words = plain.split { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-")) }
        return Set(words.map(String.init).filter { word in
            word.wholeMatch(of: /--[a-z][a-z0-9-]*/) != nil || word.wholeMatch(of: /-[a-zA-Z]/) != nil
        })
    }
}
