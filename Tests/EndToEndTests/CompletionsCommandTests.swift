import Foundation
import Testing
import TestSupport

/// `steward completions bash|zsh|fish`: scripts the shells accept, generated from the
/// commands' definitions, so they offer exactly what `--help` documents.
@Suite struct CompletionsCommandTests {
    static func hasTool(_ name: String) -> Bool {
        (try? systemTool(["sh", "-c", "command -v \(name)"]).status) == 0
    }

    /// The subcommands `steward --help` lists.
    static func subcommandsInHelp() throws -> [String] {
        let help = try StewardProcess.run(["--help"]).stdout
        let section = help.components(separatedBy: "SUBCOMMANDS:").last ?? ""
        return section.split(separator: "\n").compactMap { line in
            line.wholeMatch(of: #/\ \ ([a-z][a-z-]*)\ \ +\S.*/#).map { String($0.output.1) }
        }
    }

    /// The long options a command's `--help` lists in its OPTIONS section.
    static func optionsInHelp(of command: String) throws -> [String] {
        let help = try StewardProcess.run([command, "--help"]).stdout
        let section = help.components(separatedBy: "\nOPTIONS:\n").last ?? ""
        return section.split(separator: "\n").compactMap { line in
            line.firstMatch(of: #/^\ \ (?:-[a-zA-Z],\ )?(--[a-z][a-z-]*)/#).map { String($0.output.1) }
        }
    }

    /// Writes the script for `shell` into `directory` and returns its path.
    static func script(_ shell: String, in directory: TemporaryDirectory) throws -> String {
        let run = try StewardProcess.run(["completions", shell])
        #expect(run.status == 0, "completions \(shell): \(run.stderr)")
        #expect(run.stderr.isEmpty)
        let path = directory.file("steward.\(shell)")
        try run.stdout.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// What the bash completion offers for `words`, the last being the word under the cursor.
    static func bashOffers(_ words: [String], script: String, in directory: String? = nil) throws -> [String] {
        let program = #". "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _steward; printf '%s\n' "${COMPREPLY[@]}""#
        let (status, output) = try systemTool(["bash", "-c", program, "bash", script] + words, in: directory)
        #expect(status == 0, "bash: \(output)")
        return output.split(separator: "\n").map(String.init).sorted()
    }

    @Test func bashScriptIsValidAndListsTheSubcommandsOfHelp() throws {
        let directory = try TemporaryDirectory()
        let script = try Self.script("bash", in: directory)
        let (status, output) = try systemTool(["bash", "-n", script])
        #expect(status == 0, "bash -n: \(output)")
        let subcommands = try Self.subcommandsInHelp()
        #expect(!subcommands.isEmpty)
        #expect(try Self.bashOffers(["steward", ""], script: script) == subcommands.sorted())
        #expect(try Self.bashOffers(["steward", "mi"], script: script) == ["migrate"])
    }

    @Test func bashOffersEveryOptionEachCommandDocuments() throws {
        let directory = try TemporaryDirectory()
        let script = try Self.script("bash", in: directory)
        for command in try Self.subcommandsInHelp() {
            let documented = try Self.optionsInHelp(of: command)
            #expect(documented.contains("--help"), "\(command) --help lists options")
            #expect(try Self.bashOffers(["steward", command, "--"], script: script) == documented.sorted(), "\(command)")
        }
    }

    @Test func bashOffersFilesAndDirectoriesWhereTheOptionTakesThem() throws {
        let directory = try TemporaryDirectory()
        let script = try Self.script("bash", in: directory)
        let files = directory.file("files")
        try FileManager.default.createDirectory(atPath: files + "/sets", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: files + "/tickets.sqlite", contents: Data())
        #expect(try Self.bashOffers(["steward", "migrate", "--migrations", ""], script: script, in: files) == ["sets"])
        #expect(try Self.bashOffers(["steward", "migrate", "--db", ""], script: script, in: files) == ["sets", "tickets.sqlite"])
        #expect(try Self.bashOffers(["steward", "migrate", "--db", "=", "t"], script: script, in: files) == ["tickets.sqlite"])
        #expect(try Self.bashOffers(["steward", "inspect", ""], script: script, in: files) == ["sets", "tickets.sqlite"])
        #expect(try Self.bashOffers(["steward", "migrate", "--timeout", ""], script: script, in: files) == [])
    }

    @Test(.enabled(if: hasTool("zsh"), "zsh is not installed (scripts/install-deps.sh packaging installs it)"))
    func zshScriptIsValid() throws {
        let directory = try TemporaryDirectory()
        let script = try Self.script("zsh", in: directory)
        let (status, output) = try systemTool(["zsh", "-n", script])
        #expect(status == 0, "zsh -n: \(output)")
        for command in try Self.subcommandsInHelp() {
            #expect(try String(contentsOfFile: script, encoding: .utf8).contains("_steward_\(command)()"))
        }
    }

    @Test(.enabled(if: hasTool("fish"), "fish is not installed (scripts/install-deps.sh packaging installs it)"))
    func fishScriptIsValidAndCompletes() throws {
        let directory = try TemporaryDirectory()
        let script = try Self.script("fish", in: directory)
        let (status, output) = try systemTool(["fish", "-n", script])
        #expect(status == 0, "fish -n: \(output)")
        let (_, offered) = try systemTool(["fish", "-c", "source $argv[1]; complete -C 'steward '", script])
        let names = offered.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        #expect(try names.sorted() == Self.subcommandsInHelp().sorted())
        let (_, options) = try systemTool(["fish", "-c", "source $argv[1]; complete -C 'steward backup --'", script])
        let long = options.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        #expect(try long.sorted() == Self.optionsInHelp(of: "backup").sorted())
    }

    @Test func completionsIsHiddenFromHelp() throws {
        #expect(try !Self.subcommandsInHelp().contains("completions"))
        let help = try StewardProcess.run(["completions", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: steward completions <shell>"))
    }

    @Test func anUnknownShellIsAUsageError() throws {
        let run = try StewardProcess.run(["completions", "tcsh"])
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("Error: The value 'tcsh' is invalid for '<shell>': expected bash, zsh or fish\n"))
    }
}
