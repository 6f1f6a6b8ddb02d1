/// Builds help and usage text in the layout of swift-argument-parser:
/// `OVERVIEW:`, `USAGE:`, `ARGUMENTS:`, `OPTIONS:`, `SUBCOMMANDS:`.
public enum HelpFormatter {
    static let labelWidth = 26
    static let lineWidth = 80

    /// `steward inspect [--json] <path>`.
    public static func usage(for command: CommandConfiguration, path: [String]) -> String {
        var parts = [path.joined(separator: " ")]
        if !command.subcommands.isEmpty {
            parts.append("<subcommand>")
            return parts.joined(separator: " ")
        }
        for option in command.options {
            var text = option.display
            if option.isRepeating { text += " ..." }
            parts.append(option.isRequired ? text : "[\(text)]")
        }
        for argument in command.arguments {
            parts.append(argument.isOptional ? "[\(argument.display)]" : argument.display)
        }
        return parts.joined(separator: " ")
    }

    /// The full help page of a command.
    public static func help(for command: CommandConfiguration, path: [String]) -> String {
        var text = "OVERVIEW: \(command.abstract)\n"
        if let reason = command.unavailableReason {
            text += "\n" + wrap(reason, indent: 0) + "\n"
        }
        if let discussion = command.discussion {
            text += "\n" + discussion.split(separator: "\n", omittingEmptySubsequences: false)
                .map { wrap(String($0), indent: 0) }.joined(separator: "\n") + "\n"
        }
        text += "\nUSAGE: \(usage(for: command, path: path))\n"

        if !command.arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for argument in command.arguments {
                text += entry(label: argument.display, help: argument.help)
            }
        }

        text += "\nOPTIONS:\n"
        for option in command.options {
            var label = option.display
            if let short = option.shortName { label = "-\(short), \(label)" }
            var help = option.help
            if let defaultValue = option.defaultValue { help += " (default: \(defaultValue))" }
            text += entry(label: label, help: help)
        }
        if command.version != nil {
            text += entry(label: "--version", help: "Show the version.")
        }
        text += entry(label: "-h, --help", help: "Show help information.")

        if !command.subcommands.isEmpty {
            text += "\nSUBCOMMANDS:\n"
            for subcommand in command.visibleSubcommands {
                text += entry(label: subcommand.commandName, help: subcommand.abstract)
            }
            text += "\n  See '\(path.joined(separator: " ")) help <subcommand>' for detailed help.\n"
        }
        return text
    }

    private static func entry(label: String, help: String) -> String {
        let indent = String(repeating: " ", count: labelWidth)
        let wrapped = wrap(help, indent: labelWidth)
        let head = "  " + label
        if head.count < labelWidth - 1 {
            return head + String(repeating: " ", count: labelWidth - head.count)
                + wrapped.dropFirst(labelWidth) + "\n"
        }
        return head + "\n" + indent + wrapped.dropFirst(labelWidth) + "\n"
    }

    /// Wraps `text` at `lineWidth`, every line indented by `indent` spaces.
    static func wrap(_ text: String, indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = pad
        for word in text.split(separator: " ") {
            if line.count > indent && line.count + 1 + word.count > lineWidth {
                lines.append(line)
                line = pad
            }
            if line.count > indent { line += " " }
            line += word
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }
}
