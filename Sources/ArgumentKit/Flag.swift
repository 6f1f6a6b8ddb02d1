/// A flag that is present or absent: `values[Opt.json]` is a `Bool`.
public struct Flag: OptionKey {
    public let definition: OptionDefinition

    public init(_ name: String, short: Character? = nil, help: String) {
        definition = .flag(name, short: short, help: help)
    }
}
