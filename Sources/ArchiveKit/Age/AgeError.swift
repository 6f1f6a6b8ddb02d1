import Foundation

/// Why an age file could not be written or opened, or a key not read.
///
/// The cases follow the classes of failure the age test vectors tell apart (C2SP CCTV
/// `age/`): a header that does not parse, no identity that unwraps the file key, a header
/// MAC that does not match, a payload that does not decrypt to its end. Messages never
/// quote a secret key, a passphrase or plaintext.
public enum AgeError: Error, LocalizedError, Equatable, Sendable, CustomStringConvertible {
    /// The input does not start like an age file at all.
    case notAge
    /// An age file of a version other than `age-encryption.org/v1`.
    case unsupportedVersion(String)
    /// The header breaks the format (a stanza, its body, the MAC line, the nonce).
    case malformedHeader(String)
    /// No identity given unwraps any recipient stanza; `stanzaTypes` lists the stanzas'
    /// types as the header names them (`X25519`, `scrypt`, …).
    case noIdentityMatched(stanzaTypes: [String])
    /// The file key was unwrapped but the header's MAC does not match: the header was changed.
    case headerMACMismatch
    /// A payload chunk does not authenticate: flipped, reordered or replaced.
    case damagedChunk(index: UInt64)
    /// The payload ends before its final chunk.
    case truncated(String)
    /// Bytes follow the final chunk.
    case trailingData
    /// A key or key file that does not parse; `reason` never contains the key.
    case invalidKey(String)
    /// Recipients that cannot go together or are missing (scrypt with another recipient,
    /// none at all).
    case invalidRecipients(String)
    /// The caller used the encryptor or decryptor out of order.
    case invalidState(String)
    /// libcrypto failed where it should not (memory, an unavailable algorithm).
    case libcrypto(String)

    public var description: String {
        switch self {
        case .notAge: return "the input is not an age-encrypted file"
        case .unsupportedVersion(let version):
            return "the age file has the unsupported version '\(ArchiveError.printable(version))'"
        case .malformedHeader(let reason): return "the age header is malformed (\(reason))"
        case .noIdentityMatched(let types):
            let list = types.isEmpty ? "none" : types.map { ArchiveError.printable($0) }.joined(separator: ", ")
            return "no identity given opens the age file (its recipient types: \(list))"
        case .headerMACMismatch: return "the age header's MAC does not match: the header was changed or damaged"
        case .damagedChunk(let index):
            return "the encrypted payload is damaged: chunk \(index) does not authenticate"
        case .truncated(let reason): return "the encrypted payload is truncated (\(reason))"
        case .trailingData: return "the encrypted payload has data after its final chunk"
        case .invalidKey(let reason): return reason
        case .invalidRecipients(let reason): return reason
        case .invalidState(let reason): return reason
        case .libcrypto(let operation): return "libcrypto failed: \(operation)"
        }
    }

    public var errorDescription: String? { description }
}
