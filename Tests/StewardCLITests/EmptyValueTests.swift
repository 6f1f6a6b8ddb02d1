import ArgumentKit
import Testing
@testable import StewardCLI

/// No option or argument of any command takes an empty value: ArgumentKit refuses it,
/// before the command is built, with one message and exit status 64. Before, each
/// command checked some of its options by hand: `migrate --migrations ''` and
/// `verify --assert ''` ran and failed later, `verify --db ''` named the option without
/// its value, `inspect ''` said the argument was missing.
@Suite struct EmptyValueTests {
    static func run(_ arguments: [String]) -> (status: Int32, out: String, error: String) {
        let captured = OperationCommandTests.Captured()
        let terminal = Terminal(out: { captured.out += $0 }, error: { captured.error += $0 }, isErrorInteractive: false)
        let status = Steward.run(arguments: arguments, terminal: terminal)
        return (status, captured.out, captured.error)
    }

    /// Every value option of every command, given empty beside what the command requires.
    static var everyValueOption: [(arguments: [String], display: String)] {
        Steward.commands.flatMap { type -> [([String], String)] in
            let command = type.configuration
            let arguments = command.arguments.map { _ in "bash" }
            return command.options.filter { !$0.isFlag }.map { option in
                let others = command.options.filter { $0.isRequired && $0.name != option.name }
                    .flatMap(CommandOptionReadsTests.words)
                return ([command.commandName] + others + ["--\(option.name)", ""] + arguments, option.display)
            }
        }
    }

    @Test func everyValueOptionRefusesAnEmptyValue() {
        for (arguments, display) in Self.everyValueOption {
            let run = Self.run(arguments)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.error.hasPrefix("Error: The value '' is invalid for '\(display)'"), "\(arguments): \(run.error)")
        }
    }

    @Test(arguments: [
        (["verify", "--db", ""], "The value '' is invalid for '--db <path>'"),
        (["verify", "--db", "a.db", "--report", ""], "The value '' is invalid for '--report <file>'"),
        (["verify", "--db", "a.db", "--assert", ""], "The value '' is invalid for '--assert <file.sql>'"),
        (["migrate", "--db", "a.db", "--migrations", ""], "The value '' is invalid for '--migrations <dir>'"),
        (["migrate", "--db", "a.db", "--fts-deferred", ""], "The value '' is invalid for '--fts-deferred <table>'"),
        (["backup", "--db", "a.db", "--out", "o", "--name", ""], "The value '' is invalid for '--name <file>'"),
        (["backup", "--db", "a.db", "--out", "o", "--passphrase-env", ""], "The value '' is invalid for '--passphrase-env <name>'"),
        (["inspect", ""], "The value '' is invalid for '<path>'"),
        (["restore", "", "--into", "r"], "The value '' is invalid for '<bundle>'"),
        (["restore", "--check-only", "a.tar.zst", ""], "The value '' is invalid for '<bundle>'"),
        (["completions", ""], "The value '' is invalid for '<shell>': expected bash, zsh or fish"),
    ])
    func theMessageNamesTheOptionWithItsValue(arguments: [String], message: String) {
        let run = Self.run(arguments)
        #expect(run.status == 64)
        #expect(run.error.hasPrefix("Error: \(message)\nUsage: steward \(arguments[0]) "), "\(run.error)")
    }
}
