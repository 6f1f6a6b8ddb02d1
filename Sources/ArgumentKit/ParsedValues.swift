/// What the parser found for one command, read through the command's typed keys
/// (`values[Opt.db]`, `values[Opt.level]`, `values[Opt.json]`): the name-keyed readers
/// below are this module's own, so a command cannot read an option by a string that
/// no declaration backs.
public struct ParsedValues: Sendable {
    /// The command that was chosen.
    public let command: CommandConfiguration
    /// `["steward", "inspect"]`.
    public let commandPath: [String]
    var optionValues: [String: [String]]
    var flags: Set<String>
    var argumentValues: [String: String]
    /// Every word of a repeating argument.
    var argumentLists: [String: [String]] = [:]

    func flag(_ name: String) -> Bool {
        checkDeclared(option: name)
        return flags.contains(name)
    }

    /// The value of an option, or its default when one is declared, or nil.
    func value(_ name: String) -> String? {
        checkDeclared(option: name)
        return optionValues[name]?.last ?? command.options.first { $0.name == name }?.defaultValue
    }

    /// Whether the user gave the option (defaults do not count).
    func isPresent(_ name: String) -> Bool {
        checkDeclared(option: name)
        return optionValues[name] != nil || flags.contains(name)
    }

    /// Every value of a repeating option, in order.
    func values(_ name: String) -> [String] {
        checkDeclared(option: name)
        return optionValues[name] ?? []
    }

    func argument(_ name: String) -> String? {
        assert(command.arguments.contains { $0.name == name },
               "<\(name)> is not an argument of '\(commandPath.joined(separator: " "))'")
        return argumentValues[name]
    }

    /// Every word given for a repeating argument, in order (the one word of another).
    func arguments(_ name: String) -> [String] {
        assert(command.arguments.contains { $0.name == name },
               "<\(name)> is not an argument of '\(commandPath.joined(separator: " "))'")
        return argumentLists[name] ?? argumentValues[name].map { [$0] } ?? []
    }

    /// A usage error attached to this command, for validation done by the command itself.
    public func error(_ message: String) -> CommandLineError {
        CommandLineError(
            message: message,
            usage: HelpFormatter.usage(for: command, path: commandPath),
            commandPath: commandPath.joined(separator: " "))
    }

    /// A name the command never declared is a typo or a rename in the command's own code;
    /// read as "not given", it would silently take the default. Debug builds (and so the
    /// tests) stop there.
    func checkDeclared(option name: String) {
        assert(command.options.contains { $0.name == name },
               "'--\(name)' is not an option of '\(commandPath.joined(separator: " "))'")
    }
}
