/// A positional argument read through a typed key: `values[Arg.bundle]`.
public struct Argument: Sendable {
    public let definition: ArgumentDefinition

    public init(_ name: String, help: String, isOptional: Bool = false) {
        definition = ArgumentDefinition(name, help: help, isOptional: isOptional)
    }
}

/// The last positional argument, taking every remaining word: `values[Arg.files]`.
public struct RepeatedArgument: Sendable {
    public let definition: ArgumentDefinition

    public init(_ name: String, help: String, isOptional: Bool = false) {
        definition = ArgumentDefinition(name, help: help, isOptional: isOptional, isRepeating: true)
    }
}
