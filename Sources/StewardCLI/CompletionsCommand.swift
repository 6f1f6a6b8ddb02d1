import ArgumentKit

/// `steward completions bash|zsh|fish`: prints a completion script generated from the
/// commands' own definitions. Hidden: `make install` and the Debian package run it to
/// install the scripts; users rarely need it themselves.
struct CompletionsCommand: StewardCommand {
    static let configuration = CommandConfiguration(
        commandName: "completions",
        abstract: "Print a shell completion script for steward.",
        discussion: """
            Prints the completion script for the named shell on stdout, generated from the \
            commands' own options. Installed by 'make install' and the Debian package; to try \
            it in the current shell: bash: source <(steward completions bash); zsh: \
            source <(steward completions zsh); fish: steward completions fish | source.
            """,
        arguments: [Arg.shell.definition],
        isHidden: true)

    enum Arg {
        static let shell = Argument(
            "shell", help: "bash, zsh or fish.", expected: names.dropLast().joined(separator: ", ") + " or " + (names.last ?? ""),
            accepts: { CompletionShell(rawValue: $0) != nil })
        private static let names = CompletionShell.allCases.map(\.rawValue)
    }

    let shell: CompletionShell
    let json = false

    init(_ values: ParsedValues) throws(CommandLineError) {
        // The parser accepted only a shell's name.
        guard let shell = values[Arg.shell].flatMap(CompletionShell.init(rawValue:)) else {
            throw values.error("Missing expected argument '<shell>'")
        }
        self.shell = shell
    }

    func run(on terminal: Terminal) throws -> Int32 {
        terminal.print(shell.script(for: Steward.root))
        return ExitCode.success
    }
}
