import StewardBase

/// The shape every command's work has in StewardCore: built from its options, a
/// cancellation that SIGINT and SIGTERM set, and a progress callback, it runs once and
/// returns an Encodable report, or throws `StewardError`. The CLI runs any of them the same
/// way (`OperationCommand` in StewardCLI): signals, progress, JSON or text.
public protocol StewardOperation {
    associatedtype Options: Sendable
    /// What the run reports while it works, for progress output.
    associatedtype Event: Sendable
    /// Encoded as the command's JSON; nothing decodes it.
    associatedtype Report: Encodable & Sendable

    /// What the run is made of, kept as it is given: the operations' one initializer.
    var setup: OperationSetup<Options, Event> { get }

    init(setup: OperationSetup<Options, Event>)

    /// - Throws: `StewardError`, whose kind decides the exit status.
    func run() throws -> Report
}

/// An operation's options, the cancellation it polls, and where its progress goes.
public struct OperationSetup<Options: Sendable, Event: Sendable>: Sendable {
    public let options: Options
    public let cancellation: Cancellation
    public let progress: @Sendable (Event) -> Void

    public init(options: Options, cancellation: Cancellation, progress: @escaping @Sendable (Event) -> Void) {
        self.options = options
        self.cancellation = cancellation
        self.progress = progress
    }
}

extension StewardOperation {
    public init(options: Options, cancellation: Cancellation, progress: @escaping @Sendable (Event) -> Void) {
        self.init(setup: OperationSetup(options: options, cancellation: cancellation, progress: progress))
    }

    var options: Options { setup.options }
    var cancellation: Cancellation { setup.cancellation }
    var progress: @Sendable (Event) -> Void { setup.progress }

    /// A run nobody watches: no progress, and a cancellation only the caller can set.
    public init(options: Options, cancellation: Cancellation = Cancellation()) {
        self.init(options: options, cancellation: cancellation, progress: { _ in })
    }

    /// A run that reports progress and is never cancelled.
    public init(options: Options, progress: @escaping @Sendable (Event) -> Void) {
        self.init(options: options, cancellation: Cancellation(), progress: progress)
    }
}
