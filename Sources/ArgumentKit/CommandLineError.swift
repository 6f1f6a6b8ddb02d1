/// A usage error: printed as three lines on stderr, exit status 64 (EX_USAGE).
///
/// ```
/// Error: Unknown option '--josn'. Did you mean '--json'?
/// Usage: steward inspect [--json] <path>
///   See 'steward inspect --help' for more information.
/// ```
public struct CommandLineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The sysexits code for a usage error.
    public static let exitCode: Int32 = 64

    public let message: String
    /// The usage line of the command the error belongs to, without `Usage: `.
    public let usage: String
    /// `steward inspect`, for the help hint.
    public let commandPath: String

    public init(message: String, usage: String, commandPath: String) {
        self.message = message
        self.usage = usage
        self.commandPath = commandPath
    }

    /// The three lines, each ending in a newline.
    public var description: String {
        "Error: \(message)\nUsage: \(usage)\n  See '\(commandPath) --help' for more information.\n"
    }
}
