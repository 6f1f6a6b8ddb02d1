/// Parses `steward`'s arguments against a tree of `CommandConfiguration`s.
///
/// Conventions (as in swift-argument-parser): `--name value` and `--name=value`;
/// `-h`/`--help` anywhere before `--` asks for help on the command named so far;
/// `--version` on the root; `--` ends options; `help <command>` prints that help.
public struct CommandLineParser: Sendable {
    public enum Outcome: Sendable {
        /// Run this command with these values.
        case run(ParsedValues)
        /// Print this text on stdout and exit 0; `path` names the command it is about
        /// (`["steward", "inspect"]`).
        case help(String, path: [String])
        /// Print this version on stdout and exit 0.
        case version(String)
    }

    public let root: CommandConfiguration

    public init(root: CommandConfiguration) {
        self.root = root
    }

    /// Parses the arguments after the program name.
    /// - Throws: `CommandLineError`, a usage error (exit status 64): an unknown command or
    ///   option, a missing or invalid value, a missing or extra argument.
    public func parse(_ arguments: [String]) throws(CommandLineError) -> Outcome {
        var command = root
        var path = [root.commandName]
        var index = 0

        // Walk down the subcommands first.
        while !command.subcommands.isEmpty {
            guard index < arguments.count else {
                return .help(HelpFormatter.help(for: command, path: path), path: path)
            }
            let word = arguments[index]
            if word == "-h" || word == "--help" {
                return .help(HelpFormatter.help(for: command, path: path), path: path)
            }
            if word == "--version", let version = command.version {
                return .version(version)
            }
            if word == "help" && path.count == 1 {
                return try helpCommand(Array(arguments[(index + 1)...]))
            }
            if word.hasPrefix("-") {
                let name = word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word
                var message = "Unknown option '\(name)'"
                let candidates = command.version == nil ? ["--help"] : ["--help", "--version"]
                if let suggestion = Self.nearest(to: name, among: candidates) {
                    message += ". Did you mean '\(suggestion)'?"
                }
                throw error(message, command: command, path: path)
            }
            guard let next = command.subcommand(named: word) else {
                throw unknownCommand(word, command: command, path: path)
            }
            command = next
            path.append(word)
            index += 1
        }

        let remaining = Array(arguments[index...])
        // Help wins over every other problem on the line, as users expect.
        if let end = remaining.firstIndex(of: "--") ?? Optional(remaining.count),
           remaining[..<end].contains(where: { $0 == "-h" || $0 == "--help" })
        {
            return .help(HelpFormatter.help(for: command, path: path), path: path)
        }
        return .run(try parseOptions(remaining, command: command, path: path))
    }

    private func helpCommand(_ words: [String]) throws(CommandLineError) -> Outcome {
        var command = root
        var path = [root.commandName]
        for word in words {
            guard let next = command.subcommand(named: word) else {
                throw unknownCommand(word, command: command, path: path)
            }
            command = next
            path.append(word)
        }
        return .help(HelpFormatter.help(for: command, path: path), path: path)
    }

    private func parseOptions(
        _ words: [String], command: CommandConfiguration, path: [String]
    ) throws(CommandLineError) -> ParsedValues {
        var values = ParsedValues(
            command: command, commandPath: path, optionValues: [:], flags: [], argumentValues: [:])
        var positionals: [String] = []
        var reader = CommandLineWords(words)

        while let word = reader.next() {
            guard case .option(let name, let inlineValue) = word else {
                if case .positional(let text) = word { positionals.append(text) }
                continue
            }
            guard let option = command.option(named: name) else {
                var message = "Unknown option '\(name)'"
                let candidates = command.options.map { "--\($0.name)" } + ["--help"]
                if let suggestion = Self.nearest(to: name, among: candidates) {
                    message += ". Did you mean '\(suggestion)'?"
                }
                throw error(message, command: command, path: path)
            }
            if option.isFlag {
                if inlineValue != nil {
                    throw error("The flag '--\(option.name)' does not take a value", command: command, path: path)
                }
                values.flags.insert(option.name)
                continue
            }
            guard let value = inlineValue ?? reader.value() else {
                throw error("Missing value for '\(option.display)'", command: command, path: path)
            }
            if !option.isRepeating, values.optionValues[option.name] != nil {
                throw error("'\(option.display)' was given more than once", command: command, path: path)
            }
            if let problem = Self.problem(with: value, expected: option.expectation?(value), for: option.display) {
                throw error(problem, command: command, path: path)
            }
            values.optionValues[option.name, default: []].append(value)
        }

        for (position, argument) in command.arguments.enumerated() {
            if position < positionals.count {
                for value in argument.isRepeating ? Array(positionals[position...]) : [positionals[position]] {
                    if let problem = Self.problem(with: value, expected: argument.expectation?(value), for: "<\(argument.name)>") {
                        throw error(problem, command: command, path: path)
                    }
                }
                values.argumentValues[argument.name] = positionals[position]
                if argument.isRepeating { values.argumentLists[argument.name] = Array(positionals[position...]) }
            } else if !argument.isOptional {
                throw error("Missing expected argument '\(argument.display)'", command: command, path: path)
            }
        }
        if positionals.count > command.arguments.count, command.arguments.last?.isRepeating != true {
            throw error("Unexpected argument '\(positionals[command.arguments.count])'", command: command, path: path)
        }
        for option in command.options where option.isRequired && values.optionValues[option.name] == nil {
            throw error("Missing expected argument '\(option.display)'", command: command, path: path)
        }
        return values
    }

    /// Why a value cannot be used: it is not what a typed option expects, or it is empty
    /// (no option or argument takes an empty word: a path, a name or a list file that is
    /// nothing is a mistake of the caller, such as an unset shell variable).
    private static func problem(with value: String, expected: String?, for display: String) -> String? {
        if let expected { return "The value '\(value)' is invalid for '\(display)': expected \(expected)" }
        return value.isEmpty ? "The value '' is invalid for '\(display)'" : nil
    }

    private func unknownCommand(_ word: String, command: CommandConfiguration, path: [String]) -> CommandLineError {
        var message = "Unknown command '\(word)'"
        if let suggestion = Self.nearest(to: word, among: command.subcommands.map(\.commandName)) {
            message += ". Did you mean '\(suggestion)'?"
        }
        return error(message, command: command, path: path)
    }

    private func error(_ message: String, command: CommandConfiguration, path: [String]) -> CommandLineError {
        CommandLineError(
            message: message,
            usage: HelpFormatter.usage(for: command, path: path),
            commandPath: path.joined(separator: " "))
    }

    // MARK: - Suggestions

    /// The candidate closest to `word` by edit distance, when it is close enough to be
    /// a likely typo.
    static func nearest(to word: String, among candidates: [String]) -> String? {
        let scored = candidates.map { ($0, editDistance(word, $0)) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        let core = word.drop { $0 == "-" }.count
        let limit = max(1, min(3, core / 3 + 1))
        return best.1 <= limit ? best.0 : nil
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and
    /// transpositions of neighbours each cost one.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
