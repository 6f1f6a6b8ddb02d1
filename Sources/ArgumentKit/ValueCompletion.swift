/// What a shell should offer for an option's value or a positional argument.
///
/// Read from the placeholder the definition already has (`--db <path>`,
/// `--migrations <dir>`, `<bundle>`), so an option added with a conventional placeholder
/// completes correctly without anyone touching the completion scripts.
public enum ValueCompletion: Sendable, Equatable {
    /// Any file name (and directories on the way to it).
    case file
    /// Directory names only.
    case directory
    /// A free value (a number, a version, a name): nothing is offered.
    case none

    /// The completion a placeholder implies: `dir`/`directory` (or a name ending in
    /// `-dir`) is a directory; `path`, `file`, `file.sql`, `bundle` and the like are
    /// files; anything else is a free value.
    public init(placeholder: String) {
        let name = placeholder.lowercased()
        if name == "dir" || name == "directory" || name.hasSuffix("-dir") || name.hasSuffix("_dir") {
            self = .directory
        } else if ["path", "file", "bundle", "db", "database"].contains(name)
                    || name.hasPrefix("file") || name.hasSuffix("-file") || name.hasSuffix("path")
        {
            self = .file
        } else {
            self = .none
        }
    }
}

extension OptionDefinition {
    /// What to complete after this option; `.none` for a flag.
    public var valueCompletion: ValueCompletion {
        guard let valueName else { return .none }
        return ValueCompletion(placeholder: valueName)
    }
}

extension ArgumentDefinition {
    public var valueCompletion: ValueCompletion {
        ValueCompletion(placeholder: name)
    }
}
