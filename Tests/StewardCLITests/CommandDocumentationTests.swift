import ArgumentKit
import Foundation
import Testing
import TestSupport
@testable import StewardCLI

/// Each command's declared options, its `--help` and its man page name the same options,
/// so that a renamed or added option cannot leave one of the three behind.
@Suite struct CommandDocumentationTests {
    /// The commands a user reads about; the hidden `completions` command has no page.
    static var commands: [CommandConfiguration] {
        Steward.commands.map { $0.configuration }.filter { !$0.isHidden }
    }

    static var commandNames: [String] { commands.map(\.commandName) }

    @Test func someCommandsAreChecked() {
        #expect(Self.commandNames.count >= 5, "commands: \(Self.commandNames)")
    }

    @Test(arguments: commandNames)
    func helpNamesTheDeclaredOptions(command name: String) throws {
        let command = try #require(Self.commands.first { $0.commandName == name })
        let help = HelpFormatter.help(for: command, path: ["steward", name])
        #expect(Self.optionsSection(ofHelp: help) == Self.declared(command, withHelp: true))
    }

    @Test(arguments: commandNames)
    func manPageSynopsisNamesTheDeclaredOptions(command name: String) throws {
        let command = try #require(Self.commands.first { $0.commandName == name })
        let page = try Self.manPage(of: name)
        let synopsis = Self.names(in: Self.section("SYNOPSIS", of: page)).filter { $0.hasPrefix("--") && $0 != "--help" }
        #expect(synopsis == Self.declared(command, withHelp: false).filter { $0.hasPrefix("--") },
                "man/steward-\(name).1 SYNOPSIS")
    }

    @Test(arguments: commandNames)
    func manPageOptionsNameTheDeclaredOptions(command name: String) throws {
        let command = try #require(Self.commands.first { $0.commandName == name })
        let page = try Self.manPage(of: name)
        // The names each `.TP` item sets in bold: the first line after it.
        let lines = Self.section("OPTIONS", of: page).components(separatedBy: "\n")
        var items = Set<String>()
        for (index, line) in lines.enumerated() where line == ".TP" && index + 1 < lines.count {
            items.formUnion(Self.names(in: lines[index + 1]))
        }
        #expect(items == Self.declared(command, withHelp: true), "man/steward-\(name).1 OPTIONS")
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
        let url = Fixtures.repositoryRoot.appendingPathComponent("man").appendingPathComponent("steward-\(command).1")
        return try String(contentsOf: url, encoding: .utf8)
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
