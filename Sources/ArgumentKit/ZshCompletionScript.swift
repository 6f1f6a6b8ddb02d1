/// A zsh completion function (`#compdef`) for a command tree, built on `_arguments`: one
/// function per command, subcommands dispatched through `->` states.
struct ZshCompletionScript {
    let root: CommandConfiguration

    var text: String {
        let name = root.commandName
        let nodes = CompletionNode(path: [name], command: root).all
        var lines = ["#compdef \(name)"] + CompletionShell.zsh.header(for: root) + [""]
        for node in nodes {
            lines += function(for: node)
            lines.append("")
        }
        // Autoloaded from fpath, the file is the body of the function: define, then run.
        // Sourced (`source <(steward completions zsh)`), register with compdef instead.
        let function = "_" + Self.identifier(node: nodes[0])
        lines += [
            "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then",
            "    \(function) \"$@\"",
            "else",
            "    compdef \(function) \(name)",
            "fi",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    private func function(for node: CompletionNode) -> [String] {
        let command = node.command
        var specs: [String] = []
        for option in command.options {
            specs.append(Self.spec(for: option))
        }
        if command.version != nil {
            specs.append("'(- : *)--version[Show the version.]'")
        }
        specs.append("'(- : *)'{-h,--help}'[Show help information.]'")

        var body: [String] = []
        let function = "_" + Self.identifier(node: node)
        if command.visibleSubcommands.isEmpty {
            for argument in command.arguments {
                let colons = argument.isOptional ? "::" : ":"
                specs.append(Self.quoted(colons + Self.message(argument.name) + ":" + Self.action(argument.valueCompletion)))
            }
            body.append("    _arguments -S \\")
            body += specs.map { "        \($0) \\" }
            body[body.count - 1].removeLast(2)
            return ["\(function)() {"] + body + ["}"]
        }

        specs.append("': :->command'")
        specs.append("'*:: :->argument'")
        body += [
            "    local curcontext=$curcontext state state_descr line ret=1",
            "    typeset -A opt_args",
            "    _arguments -C \\",
        ]
        body += specs.map { "        \($0) \\" }
        body[body.count - 1].removeLast(2)
        body[body.count - 1] += " && ret=0"
        body += [
            "    case $state in",
            "        command)",
            "            local -a commands",
            "            commands=(",
        ]
        for subcommand in command.visibleSubcommands {
            body.append("                " + Self.quoted(
                subcommand.commandName.replacing(":", with: "\\:") + ":" + subcommand.abstract))
        }
        body += [
            "            )",
            "            _describe -t commands \(Self.quoted(node.spaced + " command")) commands && ret=0",
            "            ;;",
            "        argument)",
            "            curcontext=${curcontext%:*:*}:\(Self.identifier(node: node))-$words[1]:",
            "            case $words[1] in",
        ]
        for subcommand in command.visibleSubcommands {
            let child = CompletionNode(path: node.path + [subcommand.commandName], command: subcommand)
            body.append("                \(Self.quoted(subcommand.commandName))) _\(Self.identifier(node: child)) && ret=0 ;;")
        }
        body += [
            "            esac",
            "            ;;",
            "    esac",
            "    return ret",
        ]
        return ["\(function)() {"] + body + ["}"]
    }

    /// `'--db=[The database.]:path:_files'`, `'*--assert=[…]:file.sql:_files'`,
    /// `'(-q --quiet)'{-q,--quiet}'[…]'`.
    static func spec(for option: OptionDefinition) -> String {
        var help = option.help
        if let defaultValue = option.defaultValue { help += " (default: \(defaultValue))" }
        let repeating = option.isRepeating ? "*" : ""
        var tail = "[" + escapedHelp(help) + "]"
        if let valueName = option.valueName {
            tail += ":" + message(valueName) + ":" + action(option.valueCompletion)
        }
        let long = "--\(option.name)" + (option.isFlag ? "" : "=")
        guard let short = option.shortName else {
            return quoted(repeating + long + tail)
        }
        let exclusion = option.isRepeating ? "" : quoted("(-\(short) --\(option.name))")
        return exclusion + "{" + repeating + "-\(short)," + repeating + long + "}" + quoted(tail)
    }

    static func action(_ completion: ValueCompletion) -> String {
        switch completion {
        case .file: "_files"
        case .directory: "_files -/"
        // A single space: the message is shown, nothing is offered.
        case .none: " "
        }
    }

    /// Brackets end the description in an `_arguments` spec.
    static func escapedHelp(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing("[", with: "\\[").replacing("]", with: "\\]")
    }

    /// Colons separate the parts of a spec.
    static func message(_ text: String) -> String {
        text.replacing(":", with: "\\:")
    }

    static func quoted(_ text: String) -> String {
        "'" + text.replacing("'", with: "'\\''") + "'"
    }

    static func identifier(node: CompletionNode) -> String {
        CompletionShell.identifier(node.path.joined(separator: "_"))
    }
}
