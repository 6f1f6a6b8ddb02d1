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

    /// Whether SQL the user hands this command may rely on SQLite's heap limits (below).
    static var honoursSQLiteHeapLimits: Bool { get }
}

extension StewardCommand {
    /// Whether SQL the user hands this command may rely on SQLite's heap limits
    /// (`PRAGMA hard_heap_limit` in a migration). A command that says no runs with
    /// SQLite's memory statistics off (`SQLiteLibrary.turnOffMemoryStatistics`): its
    /// checks run side by side on several threads, and the statistics' process-wide mutex
    /// made them wait on each other (design notes, "Performance"). Default: true.
    static var honoursSQLiteHeapLimits: Bool { true }
}

