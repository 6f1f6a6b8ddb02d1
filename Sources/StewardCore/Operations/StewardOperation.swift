/// The shape every command's work has in StewardCore: built from its options, a
/// cancellation that SIGINT and SIGTERM set, and a progress callback, it runs once and
/// returns a Codable report, or throws `StewardError`. The CLI runs any of them the same
/// way (`OperationCommand` in StewardCLI): signals, progress, JSON or text.
public protocol StewardOperation {
    associatedtype Options: Sendable
    /// What the run reports while it works, for progress output.
    associatedtype Event: Sendable
    associatedtype Report: Codable & Sendable

    init(options: Options, cancellation: Cancellation, progress: @escaping @Sendable (Event) -> Void)

    /// - Throws: `StewardError`, whose kind decides the exit status.
    func run() throws -> Report
}

extension StewardOperation {
    /// A run nobody watches: no progress, and a cancellation only the caller can set.
    public init(options: Options, cancellation: Cancellation = Cancellation()) {
        self.init(options: options, cancellation: cancellation, progress: { _ in })
    }

    /// A run that reports progress and is never cancelled.
    public init(options: Options, progress: @escaping @Sendable (Event) -> Void) {
        self.init(options: options, cancellation: Cancellation(), progress: progress)
    }
}
