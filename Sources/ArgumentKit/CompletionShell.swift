/// The shells `steward completions` writes scripts for. Each script is generated from the
/// command tree itself, so a new subcommand or option completes without editing a script.
public enum CompletionShell: String, CaseIterable, Sendable {
    case bash
    case zsh
    case fish

    /// The completion script for `root` and every visible command below it.
    public func script(for root: CommandConfiguration) -> String {
        switch self {
        case .bash: BashCompletionScript(root: root).text
        case .zsh: ZshCompletionScript(root: root).text
        case .fish: FishCompletionScript(root: root).text
        }
    }

    /// The script's first lines: what it is, and that it is generated.
    func header(for root: CommandConfiguration) -> [String] {
        let name = root.commandName
        return [
            "# \(rawValue) completion for \(name)",
            "# Written by `\(name) completions \(rawValue)` from the commands' own definitions; do not edit.",
        ]
    }

    /// A shell function name made from a command name.
    static func identifier(_ text: String) -> String {
        String(text.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }
}

/// A command and the words that lead to it (`["steward", "migrate"]`).
struct CompletionNode {
    let path: [String]
    let command: CommandConfiguration

    var spaced: String { path.joined(separator: " ") }

    /// This command and all visible commands below it, parents before children.
    var all: [CompletionNode] {
        [self] + command.visibleSubcommands.flatMap {
            CompletionNode(path: path + [$0.commandName], command: $0).all
        }
    }

    /// The option names the parser accepts, with `-h/--help` and, on a command that has a
    /// version, `--version`.
    var optionWords: [String] {
        var words: [String] = []
        for option in command.options {
            if let short = option.shortName { words.append("-\(short)") }
            words.append("--\(option.name)")
        }
        if command.version != nil { words.append("--version") }
        return words + ["-h", "--help"]
    }

    /// What a positional argument completes to: the first argument that names a file or
    /// directory decides, since our commands take at most one such argument.
    var positionalCompletion: ValueCompletion {
        command.arguments.lazy.map(\.valueCompletion).first { $0 != .none } ?? .none
    }
}

extension OptionDefinition {
    /// `-q` and `--quiet`, or just `--db`.
    var names: [String] {
        (shortName.map { ["-\($0)"] } ?? []) + ["--\(name)"]
    }
}
