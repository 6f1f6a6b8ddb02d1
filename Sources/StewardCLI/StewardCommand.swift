import ArgumentKit
import StewardCore

/// A subcommand: its configuration, validation of parsed values into a typed command,
/// and running it. Parse, then validate, then run.
protocol StewardCommand {
    static var configuration: CommandConfiguration { get }

    /// Validates the parsed values; throws a usage error for bad values.
    init(_ values: ParsedValues) throws(CommandLineError)

    /// Whether the user asked for JSON.
    var json: Bool { get }

    /// Runs the command and returns the exit status. Throws `StewardError` for failures.
    func run(on terminal: Terminal) throws -> Int32
}

