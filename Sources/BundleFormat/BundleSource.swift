import ArchiveKit
import Foundation

import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// Opens a bundle for reading: a plain `….tar.zst`, or an age-encrypted `….tar.zst.age`
/// decrypted on the way through, told apart by their first bytes, not by their names.
///
/// For an encrypted bundle the key is found and the header's MAC checked here, before
/// anything is extracted: no key that opens it is 77, a damaged header 65. A damaged or
/// cut payload shows while it is read, as `AgeError`, which `explain(_:path:)` words.
package enum BundleSource {
    /// What an age file starts with, whatever its version.
    static let ageIntro = Array("age-encryption.org/".utf8)

    /// What `age -a` writes first: the ASCII armor, which Steward does not read.
    static let armorIntro = Array("-----BEGIN AGE ENCRYPTED FILE-----".utf8)

    /// Whether the file starts like an age file.
    package static func isEncrypted(path: String) -> Bool {
        startsWith(path, ageIntro)
    }

    /// Whether the file is an ASCII-armored age file.
    package static func isArmored(path: String) -> Bool {
        startsWith(path, armorIntro)
    }

    private static func startsWith(_ path: String, _ prefix: [UInt8]) -> Bool {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        // Read-only: close() has nothing to report that matters here.
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: prefix.count)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { SystemCall.readSome(descriptor, UnsafeMutableRawBufferPointer(rebasing: $0[filled...])) }
            if count <= 0 { break }
            filled += count
        }
        return filled == bytes.count && bytes == prefix
    }

    /// The reader of the bundle's tar stream, decrypting it when it is encrypted.
    static func open(path: String, keys: BundleKeys, limits: ArchiveReader.Limits) throws -> (reader: ArchiveReader, encryption: BundleEncryption?) {
        if isArmored(path: path) {
            throw StewardError(.badInput, "refusing the bundle \(path): it is an ASCII-armored age file (age -a), which Steward does not read; "
                               + "decrypt it with age -d, or encrypt the bundle without -a")
        }
        guard isEncrypted(path: path) else {
            return (try ArchiveReader(path: path, limits: limits), nil)
        }
        let decryptor = try openHeader(path: path)
        let encryption = BundleEncryption(header: decryptor.header)
        let identities = try keys.identities()
        guard !identities.isEmpty else {
            throw StewardError(.noKey, "the bundle \(path) is encrypted (age, to \(encryption.describedRecipients))",
                               remedy: .giveKey)
        }
        do {
            try decryptor.unlock(with: identities)
            return (try ArchiveReader(decrypting: decryptor, limits: limits), encryption)
        } catch let error as AgeError {
            throw explain(error, path: path)
        }
    }

    /// The age header alone, for `inspect` without a key: it shows the recipient types
    /// and nothing else.
    package static func openHeader(path: String) throws -> AgeDecryptor {
        do {
            return try AgeDecryptor(path: path)
        } catch let error as AgeError {
            throw explain(error, path: path)
        } catch let error as ArchiveError {
            if case .input(let code, _) = error {
                throw StewardError(.notFound, "cannot read the bundle \(path): \(SystemCall.message(code))")
            }
            throw error
        }
    }

    /// age's refusals in words for people who did not write the bundle.
    static func explain(_ error: AgeError, path: String) -> StewardError {
        switch error {
        case .noIdentityMatched(let types):
            let encryption = BundleEncryption(recipientTypes: types)
            return StewardError(.noKey, "no key given opens the bundle \(path): it is encrypted to \(encryption.describedRecipients), "
                                + "and none of the identities or passphrase given unwraps its file key")
        case .libcrypto, .invalidState, .invalidKey, .invalidRecipients:
            return StewardError(.internal, "cannot decrypt the bundle \(path): \(error)")
        default:
            return StewardError(.badInput, "refusing the bundle \(path): \(error); nothing was written")
        }
    }
}

/// What an encrypted bundle's age header says: the format and the recipients' types.
/// The number of stanzas is in the header for anyone to count; nothing else is.
public struct BundleEncryption: Codable, Sendable, Equatable {
    public var format = "age-encryption.org/v1"
    public let recipientTypes: [String]

    package init(recipientTypes: [String]) {
        self.recipientTypes = recipientTypes
    }

    package init(header: AgeHeader) {
        self.init(recipientTypes: header.recipientTypes)
    }

    package init(recipients: [AgeRecipient]) {
        self.init(recipientTypes: recipients.map { recipient in
            if case .passphrase = recipient { return "scrypt" }
            return "X25519"
        })
    }

    /// `2 X25519 recipients`, `a passphrase (scrypt)`.
    public var describedRecipients: String {
        if recipientTypes == ["scrypt"] { return "a passphrase (scrypt)" }
        var counts: [(String, Int)] = []
        for type in recipientTypes {
            if let index = counts.firstIndex(where: { $0.0 == type }) { counts[index].1 += 1 } else { counts.append((type, 1)) }
        }
        if counts.isEmpty { return "no recipient" }
        return counts.map { "\($0.1) \(Self.printable($0.0)) recipient\($0.1 == 1 ? "" : "s")" }.joined(separator: ", ")
    }

    /// Stanza types come from the file: control characters are not passed on.
    private static func printable(_ text: String) -> String {
        String(text.unicodeScalars.prefix(40).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
    }
}
