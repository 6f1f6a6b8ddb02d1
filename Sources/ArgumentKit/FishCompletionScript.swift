/// fish completions (`complete -c`) for a command tree. A small function walks the
/// command line through the tree, so each completion applies exactly at its command.
struct FishCompletionScript {
    let root: CommandConfiguration

    var text: String {
        let name = root.commandName
        let helper = "__\(CompletionShell.identifier(name))_at"
        let nodes = CompletionNode(path: [name], command: root).all
        var lines = CompletionShell.fish.header(for: root) + [
            "",
            "# Whether the words before the cursor lead to the command named by the arguments.",
            "function \(helper)",
            "    set -l command \(name)",
            "    for word in (commandline -opc)[2..-1]",
        ]
        let subcommandPaths = nodes.dropFirst().map { Self.quoted($0.spaced) }
        if !subcommandPaths.isEmpty {
            lines += [
                "        switch \"$command $word\"",
                "            case \(subcommandPaths.joined(separator: " "))",
                "                set command \"$command $word\"",
                "        end",
            ]
        }
        lines += [
            "    end",
            "    test \"$command\" = \"$argv\"",
            "end",
            "",
            "complete -c \(name) -f",
        ]
        for node in nodes {
            let prefix = "complete -c \(name) -n " + Self.quoted("\(helper) \(node.spaced)")
            lines.append("")
            for option in node.command.options {
                var line = prefix
                if let short = option.shortName { line += " -s \(short)" }
                line += " -l \(option.name)"
                switch (option.isFlag, option.valueCompletion) {
                case (true, _): break
                case (false, .file): line += " -r -F"
                case (false, .directory): line += " -x -a '(__fish_complete_directories (commandline -ct))'"
                case (false, .none): line += " -x"
                }
                var help = option.help
                if let defaultValue = option.defaultValue { help += " (default: \(defaultValue))" }
                lines.append(line + " -d " + Self.quoted(help))
            }
            if node.command.version != nil {
                lines.append(prefix + " -l version -d 'Show the version.'")
            }
            lines.append(prefix + " -s h -l help -d 'Show help information.'")
            for subcommand in node.command.visibleSubcommands {
                lines.append(prefix + " -a " + Self.quoted(subcommand.commandName) + " -d " + Self.quoted(subcommand.abstract))
            }
            if node.command.visibleSubcommands.isEmpty {
                switch node.positionalCompletion {
                case .file: lines.append(prefix + " -F")
                case .directory: lines.append(prefix + " -a '(__fish_complete_directories (commandline -ct))'")
                case .none: break
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func quoted(_ text: String) -> String {
        "'" + text.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
    }
}
