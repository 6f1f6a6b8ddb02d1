/// An option that takes one value of type `Value`: `values[Opt.level]` is the value given,
/// else the default, else nil. The parser converts the text while it parses, so a value
/// of the wrong type is a usage error (64) before the command sees it.
public struct Option<Value: Sendable>: OptionKey {
    public let definition: OptionDefinition
    public let defaultValue: Value?
    let convert: @Sendable (String) -> Value?

    /// `expected` completes "The value 'x' is invalid for '--name <value>': expected …";
    /// `convert` returns nil for text that is not a `Value`.
    public init(
        _ name: String, short: Character? = nil, value valueName: String, help: String,
        default defaultValue: Value? = nil, defaultText: String? = nil, required: Bool = false,
        expected: String, convert: @escaping @Sendable (String) -> Value?
    ) {
        var definition = OptionDefinition.option(
            name, short: short, value: valueName, help: help,
            default: defaultText ?? defaultValue.map { String(describing: $0) }, required: required)
        definition.expectation = { text in convert(text) == nil ? expected : nil }
        self.definition = definition
        self.defaultValue = defaultValue
        self.convert = convert
    }
}

extension Option where Value == String {
    /// Any text.
    public init(
        _ name: String, short: Character? = nil, value valueName: String, help: String,
        default defaultValue: String? = nil, required: Bool = false
    ) {
        definition = .option(name, short: short, value: valueName, help: help, default: defaultValue, required: required)
        self.defaultValue = defaultValue
        convert = { $0 }
    }
}

extension Option where Value == Int {
    /// An integer within `range`.
    public init(
        _ name: String, short: Character? = nil, value valueName: String, help: String,
        default defaultValue: Int? = nil, in range: ClosedRange<Int>
    ) {
        self.init(
            name, short: short, value: valueName, help: help, default: defaultValue,
            expected: "an integer from \(range.lowerBound) to \(range.upperBound)",
            convert: { text in Int(text).flatMap { range.contains($0) ? $0 : nil } })
    }
}

extension Option where Value == Double {
    /// A number of seconds within `range`, decimals allowed.
    public static func seconds(
        _ name: String, value valueName: String = "seconds", help: String,
        default defaultValue: Double? = nil, in range: ClosedRange<Double>
    ) -> Option<Double> {
        Option(
            name, value: valueName, help: help, default: defaultValue, defaultText: defaultValue.map(format),
            expected: "a number of seconds from \(format(range.lowerBound)) to \(format(range.upperBound))",
            convert: { text in Double(text).flatMap { $0.isFinite && range.contains($0) ? $0 : nil } })
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
