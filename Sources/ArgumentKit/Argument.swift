/// A positional argument read through a typed key: `values[Arg.bundle]`.
public struct Argument: Sendable {
    public private(set) var definition: ArgumentDefinition

    public init(_ name: String, help: String, isOptional: Bool = false) {
        definition = ArgumentDefinition(name, help: help, isOptional: isOptional)
    }

    /// An argument that takes only the words `accepts` accepts; the parser refuses the
    /// others with "The value 'x' is invalid for '<name>': expected …" (64).
    public init(_ name: String, help: String, isOptional: Bool = false, expected: String,
                accepts: @escaping @Sendable (String) -> Bool) {
        definition = ArgumentDefinition(name, help: help, isOptional: isOptional)
        definition.expectation = { accepts($0) ? nil : expected }
    }
}

/// The last positional argument, taking every remaining word: `values[Arg.files]`.
public struct RepeatedArgument: Sendable {
    public let definition: ArgumentDefinition

    public init(_ name: String, help: String, isOptional: Bool = false) {
        definition = ArgumentDefinition(name, help: help, isOptional: isOptional, isRepeating: true)
    }
}
