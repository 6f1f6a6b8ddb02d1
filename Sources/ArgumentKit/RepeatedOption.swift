/// An option that may be given many times: `values[Opt.assert]` is every value, in order.
public struct RepeatedOption<Value: Sendable>: OptionKey {
    public let definition: OptionDefinition
    let convert: @Sendable (String) -> Value?

    public init(
        _ name: String, short: Character? = nil, value valueName: String, help: String,
        expected: String, convert: @escaping @Sendable (String) -> Value?
    ) {
        var definition = OptionDefinition.option(name, short: short, value: valueName, help: help, repeating: true)
        definition.expectation = { text in convert(text) == nil ? expected : nil }
        self.definition = definition
        self.convert = convert
    }
}

extension RepeatedOption where Value == String {
    public init(_ name: String, short: Character? = nil, value valueName: String, help: String) {
        definition = .option(name, short: short, value: valueName, help: help, repeating: true)
        convert = { $0 }
    }
}
