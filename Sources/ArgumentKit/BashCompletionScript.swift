/// A bash completion function for a command tree (`complete -F`), self-contained: it
/// needs neither the bash-completion package nor its helpers.
struct BashCompletionScript {
    let root: CommandConfiguration

    var text: String {
        let name = root.commandName
        let function = "_" + CompletionShell.identifier(name)
        let nodes = CompletionNode(path: [name], command: root).all
        let subcommandPaths = nodes.dropFirst().map { Self.quoted($0.spaced) }

        var lines = CompletionShell.bash.header(for: root) + [
            "",
            "\(function)() {",
            "    local cur=${COMP_WORDS[COMP_CWORD]} prev='' prefix='' command=\(Self.quoted(name)) word i ended=''",
            "    (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}",
            "    # With '=' in COMP_WORDBREAKS (the default), --db=x arrives as '--db' '=' 'x'.",
            "    if [[ $cur == = ]]; then",
            "        cur=",
            "    elif [[ $prev == = ]] && (( COMP_CWORD > 1 )); then",
            "        prev=${COMP_WORDS[COMP_CWORD-2]}",
            "    elif [[ $cur == --*=* ]]; then",
            "        prev=${cur%%=*} prefix=${cur%%=*}= cur=${cur#*=}",
            "    fi",
            "    COMPREPLY=()",
            "",
            "    for (( i = 1; i < COMP_CWORD; i++ )); do",
            "        word=${COMP_WORDS[i]}",
            "        [[ $word == -- ]] && ended=1",
        ]
        if !subcommandPaths.isEmpty {
            lines += [
                "        case \"$command $word\" in",
                "            \(subcommandPaths.joined(separator: "|"))) command=\"$command $word\" ;;",
                "        esac",
            ]
        }
        lines += [
            "    done",
            "",
            "    local subcommands='' options='' values='' files='' directories='' positional=''",
            "    case $command in",
        ]
        for node in nodes {
            let valueOptions = node.command.options.filter { !$0.isFlag }
            lines.append("        \(Self.quoted(node.spaced)))")
            var assignments: [String] = []
            let subcommands = node.command.visibleSubcommands.map(\.commandName)
            if !subcommands.isEmpty { assignments.append("subcommands=\(Self.quoted(subcommands))") }
            assignments.append("options=\(Self.quoted(node.optionWords))")
            if !valueOptions.isEmpty {
                assignments.append("values=\(Self.quoted(valueOptions.flatMap(\.names)))")
            }
            let files = valueOptions.filter { $0.valueCompletion == .file }.flatMap(\.names)
            if !files.isEmpty { assignments.append("files=\(Self.quoted(files))") }
            let directories = valueOptions.filter { $0.valueCompletion == .directory }.flatMap(\.names)
            if !directories.isEmpty { assignments.append("directories=\(Self.quoted(directories))") }
            switch node.positionalCompletion {
            case .file: assignments.append("positional='file'")
            case .directory: assignments.append("positional='directory'")
            case .none: break
            }
            lines += assignments.map { "            " + $0 }
            lines.append("            ;;")
        }
        lines += [
            "    esac",
            "",
            "    local kind=''",
            "    if [[ -z $ended && -n $prev && \" $values \" == *\" $prev \"* ]]; then",
            "        if [[ \" $directories \" == *\" $prev \"* ]]; then",
            "            kind=-d",
            "        elif [[ \" $files \" == *\" $prev \"* ]]; then",
            "            kind=-f",
            "        else",
            "            return 0",
            "        fi",
            "    elif [[ -z $ended && $cur == -* ]]; then",
            "        mapfile -t COMPREPLY < <(compgen -W \"$options\" -- \"$cur\")",
            "        return 0",
            "    elif [[ -n $subcommands ]]; then",
            "        mapfile -t COMPREPLY < <(compgen -W \"$subcommands\" -- \"$cur\")",
            "        return 0",
            "    elif [[ $positional == file ]]; then",
            "        kind=-f",
            "    elif [[ $positional == directory ]]; then",
            "        kind=-d",
            "    else",
            "        mapfile -t COMPREPLY < <(compgen -W \"$options\" -- \"$cur\")",
            "        return 0",
            "    fi",
            "    compopt -o filenames 2>/dev/null",
            "    mapfile -t COMPREPLY < <(compgen \"$kind\" -- \"$cur\")",
            "    if [[ -n $prefix ]]; then",
            "        COMPREPLY=(\"${COMPREPLY[@]/#/$prefix}\")",
            "    fi",
            "    return 0",
            "}",
            "",
            "complete -F \(function) \(name)",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// A word list in single quotes, safe for any text.
    static func quoted(_ words: [String]) -> String {
        quoted(words.joined(separator: " "))
    }

    static func quoted(_ text: String) -> String {
        "'" + text.replacing("'", with: "'\\''") + "'"
    }
}
