/// What the parser found for one command. Accessors that convert values throw
/// `CommandLineError`, so validation reads like parsing.
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

    public func flag(_ name: String) -> Bool {
        checkDeclared(option: name)
        return flags.contains(name)
    }

    /// The value of an option, or its default when one is declared, or nil.
    public func value(_ name: String) -> String? {
        checkDeclared(option: name)
        return optionValues[name]?.last ?? command.options.first { $0.name == name }?.defaultValue
    }

    /// Whether the user gave the option (defaults do not count).
    public func isPresent(_ name: String) -> Bool {
        checkDeclared(option: name)
        return optionValues[name] != nil || flags.contains(name)
    }

    /// Every value of a repeating option, in order.
    public func values(_ name: String) -> [String] {
        checkDeclared(option: name)
        return optionValues[name] ?? []
    }

    public func argument(_ name: String) -> String? {
        assert(command.arguments.contains { $0.name == name },
               "<\(name)> is not an argument of '\(commandPath.joined(separator: " "))'")
        return argumentValues[name]
    }

    /// Every word given for a repeating argument, in order (the one word of another).
    public func arguments(_ name: String) -> [String] {
        assert(command.arguments.contains { $0.name == name },
               "<\(name)> is not an argument of '\(commandPath.joined(separator: " "))'")
        return argumentLists[name] ?? argumentValues[name].map { [$0] } ?? []
    }

    /// The value of an option that must be present.
    public func required(_ name: String) throws(CommandLineError) -> String {
        guard let value = value(name) else {
            throw error("Missing expected argument '\(display(of: name))'")
        }
        return value
    }

    /// An integer option within `range`.
    public func integer(_ name: String, in range: ClosedRange<Int>) throws(CommandLineError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw error(
                "The value '\(text)' is invalid for '\(display(of: name))': "
                    + "expected an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// A number of seconds within `range` (decimals allowed).
    public func seconds(_ name: String, in range: ClosedRange<Double>) throws(CommandLineError) -> Double? {
        guard let text = value(name) else { return nil }
        guard let number = Double(text), number.isFinite, range.contains(number) else {
            throw error(
                "The value '\(text)' is invalid for '\(display(of: name))': "
                    + "expected a number of seconds from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))")
        }
        return number
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
    private func checkDeclared(option name: String) {
        assert(command.options.contains { $0.name == name },
               "'--\(name)' is not an option of '\(commandPath.joined(separator: " "))'")
    }

    private func display(of name: String) -> String {
        command.options.first { $0.name == name }?.display ?? "--\(name)"
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
