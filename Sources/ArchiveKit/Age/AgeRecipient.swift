import Foundation

/// Whom a file is encrypted to: X25519 recipients (any number), or one passphrase.
public enum AgeRecipient: Sendable, Equatable {
    case x25519(AgeX25519Recipient)
    /// The passphrase's bytes (UTF-8 as given) and the scrypt work factor, log2 N.
    case passphrase([UInt8], workFactor: Int = AgeScrypt.defaultWorkFactor)

    func wrap(fileKey: [UInt8]) throws(AgeError) -> AgeStanza {
        switch self {
        case .x25519(let recipient): return try recipient.wrap(fileKey: fileKey)
        case .passphrase(let passphrase, let workFactor):
            return try AgeScrypt.wrap(fileKey: fileKey, passphrase: passphrase, workFactor: workFactor)
        }
    }

    /// The age format's rule: at least one recipient, and a passphrase only alone.
    static func check(_ recipients: [AgeRecipient]) throws(AgeError) {
        guard !recipients.isEmpty else { throw .invalidRecipients("no recipient to encrypt to") }
        let passphrases = recipients.filter { if case .passphrase = $0 { return true } else { return false } }
        guard passphrases.isEmpty || recipients.count == 1 else {
            throw .invalidRecipients("a passphrase must be the only recipient of an age file")
        }
        for case .passphrase(let passphrase, _) in recipients where passphrase.isEmpty {
            throw .invalidRecipients("the passphrase is empty")
        }
    }
}
