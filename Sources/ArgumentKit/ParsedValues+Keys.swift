/// Reading the values through typed keys. A key whose option the command did not list
/// in its configuration stops a debug build, as a name-keyed read did.
extension ParsedValues {
    public subscript(key: Flag) -> Bool {
        flag(key.definition.name)
    }

    /// The value given, else the declared default, else nil.
    public subscript<Value>(key: Option<Value>) -> Value? {
        let name = key.definition.name
        guard let text = optionValues[name]?.last else {
            checkDeclared(option: name)
            return key.defaultValue
        }
        // The parser has already refused text that does not convert (the declared
        // definition carries the same conversion).
        return key.convert(text) ?? key.defaultValue
    }

    /// Every value given, in order.
    public subscript<Value>(key: RepeatedOption<Value>) -> [Value] {
        values(key.definition.name).compactMap(key.convert)
    }

    public subscript(key: Argument) -> String? {
        argument(key.definition.name)
    }

    /// Every word given for the repeating argument, in order.
    public subscript(key: RepeatedArgument) -> [String] {
        arguments(key.definition.name)
    }

    /// Whether the user gave the option (defaults do not count).
    public func isPresent(_ key: some OptionKey) -> Bool {
        isPresent(key.definition.name)
    }

    /// The value of an option that must be present, or the default it declares (so that
    /// the default is stated once, in the declaration); else a usage error.
    /// - Throws: `CommandLineError` when the option was not given and has no default.
    public func required<Value>(_ key: Option<Value>) throws(CommandLineError) -> Value {
        guard let value = self[key] else {
            throw error("Missing expected argument '\(key.definition.display)'")
        }
        return value
    }
}
