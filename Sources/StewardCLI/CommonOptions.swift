import ArgumentKit
import StewardCore

/// The options several commands share, declared once (as swift-argument-parser's
/// `@OptionGroup`): each command lists the ones it takes, and reads them through these keys.
enum CommonOptions {
    static let json = Flag("json", help: "Print the report as one JSON object on stdout.")
    static let quiet = Flag("quiet", short: "q", help: "Print no progress on stderr.")
    /// One default and one range for every command that waits for locks; a command reads
    /// it with `values.required`, which falls back on the default declared here.
    static let timeout = Option<Double>.seconds(
        "timeout", help: "How long a database's run may wait for other connections' locks, in all, before giving up (exit status 75).",
        default: LockWait.defaultSeconds, in: 0...86_400)

    /// `--load-extension`, repeatable, which each command declares with its own help (what
    /// it loads the extension into).
    static func loadExtension(help: String) -> RepeatedOption<String> {
        RepeatedOption("load-extension", value: "path", help: help)
    }

    /// `--quiet` and `--json`, in that order, last in a command's list.
    static let output: [any OptionKey] = [quiet, json]
}

/// What `--json` and `--quiet` asked for, read once for the shared run.
struct OutputOptions: Sendable {
    let json: Bool
    let quiet: Bool

    init(_ values: ParsedValues, quiet takesQuiet: Bool = true) {
        json = values[CommonOptions.json]
        quiet = takesQuiet && values[CommonOptions.quiet]
    }
}
