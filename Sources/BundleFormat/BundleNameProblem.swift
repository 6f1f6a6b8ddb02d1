import StewardBase

/// Why a name cannot be a bundle's, in the core's words; `remedy` when an option gives
/// what the name tried to (a directory), so the command line can name it.
public struct BundleNameProblem: Sendable, Equatable {
    public let message: String
    public let remedy: StewardError.Remedy?

    init(_ message: String, remedy: StewardError.Remedy? = nil) {
        self.message = message
        self.remedy = remedy
    }
}
