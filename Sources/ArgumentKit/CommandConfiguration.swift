/// What a command accepts, and the text that explains it: the static description a
/// command type provides, in the manner of swift-argument-parser's `CommandConfiguration`.
public struct CommandConfiguration: Sendable {
    public var commandName: String
    public var abstract: String
    public var discussion: String?
    /// The text of `--version`, made only when asked for (it may read a build stamp).
    public var version: String? { makeVersion() }
    private let makeVersion: @Sendable () -> String?
    public var arguments: [ArgumentDefinition]
    public var options: [OptionDefinition]
    public var subcommands: [CommandConfiguration]
    /// When set, the command is listed and has help, but running it is refused with this reason.
    public var unavailableReason: String?
    /// A hidden command runs and has help, but is left out of its parent's help and of
    /// shell completions (`steward completions`, which writes the completions themselves).
    public var isHidden: Bool

    public init(
        commandName: String,
        abstract: String,
        discussion: String? = nil,
        version: @autoclosure @escaping @Sendable () -> String? = nil,
        arguments: [ArgumentDefinition] = [],
        options: [any OptionKey] = [],
        subcommands: [CommandConfiguration] = [],
        unavailableReason: String? = nil,
        isHidden: Bool = false
    ) {
        self.commandName = commandName
        self.abstract = abstract
        self.discussion = discussion
        self.makeVersion = version
        self.arguments = arguments
        self.options = options.map(\.definition)
        self.subcommands = subcommands
        self.unavailableReason = unavailableReason
        self.isHidden = isHidden
    }

    public func subcommand(named name: String) -> CommandConfiguration? {
        subcommands.first { $0.commandName == name }
    }

    /// The words after the command's name that the parser would give its arguments, read
    /// as it reads them (`CommandLineWords`) but judging nothing: what can be known of a
    /// command line the parser refused.
    public func positionalWords(in words: [String]) -> [String] {
        var positionals: [String] = []
        var reader = CommandLineWords(words)
        while let word = reader.next() {
            switch word {
            case .positional(let text):
                positionals.append(text)
            case .option(let name, nil) where option(named: name)?.isFlag == false:
                _ = reader.value()
            case .option:
                break
            }
        }
        return positionals
    }

    /// The option `--name` or `-n`.
    func option(named word: String) -> OptionDefinition? {
        if word.hasPrefix("--") {
            let name = word.dropFirst(2)
            return options.first { $0.name == name }
        }
        guard word.count == 2, let short = word.last else { return nil }
        return options.first { $0.shortName == short }
    }

    /// The subcommands that help and completions show.
    public var visibleSubcommands: [CommandConfiguration] {
        subcommands.filter { !$0.isHidden }
    }
}

/// A positional argument such as `<path>`.
public struct ArgumentDefinition: Sendable {
    public var name: String
    public var help: String
    public var isOptional: Bool
    /// The last argument may take every remaining word (`<file> ...`).
    public var isRepeating: Bool
    /// What a valid word is, or nil when any (non-empty) word is; as `OptionDefinition`'s.
    var expectation: (@Sendable (String) -> String?)?

    public init(_ name: String, help: String, isOptional: Bool = false, isRepeating: Bool = false) {
        self.name = name
        self.help = help
        self.isOptional = isOptional
        self.isRepeating = isRepeating
    }

    var display: String { isRepeating ? "<\(name)> ..." : "<\(name)>" }
}

/// A named option (`--db <path>`) or flag (`--json`).
public struct OptionDefinition: Sendable {
    public var name: String
    public var shortName: Character?
    /// The placeholder of the value; nil for a flag.
    public var valueName: String?
    public var help: String
    /// Shown in help as `(default: …)`.
    public var defaultValue: String?
    public var isRequired: Bool
    public var isRepeating: Bool
    /// For a typed option (`Option`, `RepeatedOption`): what a valid value is, or nil when
    /// the text is one; the parser refuses the others with a usage error.
    var expectation: (@Sendable (String) -> String?)?

    /// An option that takes a value.
    public static func option(
        _ name: String, short: Character? = nil, value valueName: String, help: String,
        default defaultValue: String? = nil, required: Bool = false, repeating: Bool = false
    ) -> OptionDefinition {
        OptionDefinition(
            name: name, shortName: short, valueName: valueName, help: help,
            defaultValue: defaultValue, isRequired: required, isRepeating: repeating, expectation: nil)
    }

    /// A flag that is either present or absent.
    public static func flag(_ name: String, short: Character? = nil, help: String) -> OptionDefinition {
        OptionDefinition(
            name: name, shortName: short, valueName: nil, help: help,
            defaultValue: nil, isRequired: false, isRepeating: false, expectation: nil)
    }

    public var isFlag: Bool { valueName == nil }

    /// `--db <path>` or `--json`.
    public var display: String {
        guard let valueName else { return "--\(name)" }
        return "--\(name) <\(valueName)>"
    }
}
