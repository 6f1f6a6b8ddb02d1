import Foundation

/// A failure of a Steward operation, with the kind that decides the exit status.
/// Messages name files and tables as the user gave them, never row data.
public struct StewardError: Error, LocalizedError, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Codable, Sendable {
        /// A check failed or Steward refused to publish (exit 1).
        case checkFailed = "check-failed"
        /// Malformed input: bad migration set, corrupt bundle, not a database (exit 65).
        case badInput = "bad-input"
        /// An input does not exist or cannot be read (exit 66).
        case notFound = "not-found"
        /// An output cannot be created (exit 73).
        case cannotCreate = "cannot-create"
        /// Reading or writing failed, or the disk is full (exit 74).
        case inputOutput = "io-error"
        /// The database stayed busy or locked past the timeout (exit 75).
        case busy = "busy"
        /// No key given opens an encrypted bundle (exit 77).
        case noKey = "no-key"
        /// SIGINT or SIGTERM arrived; partial output was removed (exit 130).
        case interrupted = "interrupted"
        /// Options that cannot be used together once the input is known (exit 64).
        case usage = "usage"
        /// A bug in Steward (exit 70).
        case `internal` = "internal"
    }

    public let kind: Kind
    public let message: String
    /// What the user can do about it, which the CLI words with the option that does it.
    public let remedy: Remedy?

    public init(_ kind: Kind, _ message: String, remedy: Remedy? = nil) {
        self.kind = kind
        self.message = message
        self.remedy = remedy
    }

    public var description: String { message }
    public var errorDescription: String? { message }
}

// MARK: - Messages many operations share

extension StewardError {
    /// Work stopped by a signal: "interrupted by SIGINT" followed by `detail` as given
    /// (for example "; nothing changed"), so each operation can say what it left behind.
    package static func interrupted(by cancellation: Cancellation?, _ detail: String = "") -> StewardError {
        StewardError(.interrupted, "interrupted by \(cancellation?.reason ?? "a signal")\(detail)")
    }

    /// A file that is no SQLite database: "not a SQLite database: PATH (REASON)".
    package static func notADatabase(_ path: String, _ reason: String) -> StewardError {
        StewardError(.badInput, "not a SQLite database: \(path) (\(reason))")
    }

    /// A lock held past the timeout: "PATH is locked by another connection; gave up after N s (MESSAGE)".
    package static func gaveUp(on path: String, after timeout: Double, _ message: String, prefix: String = "") -> StewardError {
        let seconds = timeout == timeout.rounded() ? String(Int(timeout)) : String(timeout)
        return StewardError(.busy, "\(prefix)\(path) is locked by another connection; gave up after \(seconds) s (\(message))")
    }
}
