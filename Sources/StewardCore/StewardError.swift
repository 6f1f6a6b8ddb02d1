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
        /// A bug in Steward (exit 70).
        case `internal` = "internal"
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
    public var errorDescription: String? { message }
}
