/// A declared option a command reads through a typed key (`Flag`, `Option`,
/// `RepeatedOption`) instead of by its name: renaming the key is a compile error at every
/// read, where a renamed string would read as "not given" and take the default.
public protocol OptionKey: Sendable {
    var definition: OptionDefinition { get }
}

extension OptionDefinition: OptionKey {
    public var definition: OptionDefinition { self }
}
