import Foundation

/// What opens a file: an X25519 identity, or a passphrase for an scrypt stanza.
public enum AgeIdentity: Sendable, Equatable, CustomStringConvertible {
    case x25519(AgeX25519Identity)
    /// The passphrase's bytes (UTF-8 as given).
    case passphrase([UInt8])

    /// The file key from `stanza`, nil when this identity does not open it.
    func unwrap(_ stanza: AgeStanza) throws(AgeError) -> [UInt8]? {
        switch self {
        case .x25519(let identity): return try identity.unwrap(stanza)
        case .passphrase(let passphrase): return try AgeScrypt.unwrap(stanza, passphrase: passphrase)
        }
    }

    public var description: String {
        switch self {
        case .x25519(let identity): return identity.description
        case .passphrase: return "passphrase"
        }
    }
}
