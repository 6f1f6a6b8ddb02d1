import Foundation

/// age's passphrase recipient and identity, the scrypt stanza
/// (age-encryption.org/v1, "scrypt recipient stanza"): `-> scrypt SALT LOG2N`, the file key
/// wrapped with a key scrypt derives from the passphrase. Such a stanza must be the only
/// one in its header.
public enum AgeScrypt {
    static let stanzaType = "scrypt"
    static let label = Array("age-encryption.org/v1/scrypt".utf8)
    static let saltSize = 16

    /// The work factor (log2 N) `age` itself writes: about a second and 256 MiB.
    public static let defaultWorkFactor = 18
    /// The largest work factor read, as `age` reads (4 GiB of memory); above it a header
    /// is refused rather than allowed to make the reader allocate without bound.
    public static let maximumWorkFactor = 22

    static func wrap(fileKey: [UInt8], passphrase: [UInt8], workFactor: Int) throws(AgeError) -> AgeStanza {
        guard (1...maximumWorkFactor).contains(workFactor) else {
            throw .invalidRecipients("the scrypt work factor must be between 1 and \(maximumWorkFactor)")
        }
        let salt = try AgePrimitives.randomBytes(saltSize)
        let key = try AgePrimitives.scrypt(passphrase: passphrase, salt: label + salt, logN: workFactor, length: 32)
        let body = try ChaChaPoly(key: key).seal(nonce: AgeStanza.zeroNonce, fileKey)
        return AgeStanza(type: stanzaType, arguments: [AgeBase64.encode(salt), String(workFactor)], body: body)
    }

    /// The file key, or nil when the passphrase does not open the stanza. The stanza's
    /// form was checked when the header was parsed.
    static func unwrap(_ stanza: AgeStanza, passphrase: [UInt8]) throws(AgeError) -> [UInt8]? {
        guard stanza.type == stanzaType, stanza.arguments.count == 2,
              let salt = AgeBase64.decode(Array(stanza.arguments[0].utf8))
        else { return nil }
        let workFactor = try parseWorkFactor(stanza.arguments[1])
        let key = try AgePrimitives.scrypt(passphrase: passphrase, salt: label + salt, logN: workFactor, length: 32)
        return try ChaChaPoly(key: key).open(nonce: AgeStanza.zeroNonce, stanza.body)
    }

    /// A decimal number without sign or leading zero, 1 to `maximumWorkFactor`.
    static func parseWorkFactor(_ text: String) throws(AgeError) -> Int {
        let digits = Array(text.utf8)
        guard !digits.isEmpty, digits.count <= 2, digits.allSatisfy({ (0x30...0x39).contains($0) }), digits[0] != 0x30,
              let value = Int(text), (1...maximumWorkFactor).contains(value)
        else {
            throw .malformedHeader("an scrypt stanza's work factor is not a decimal number from 1 to \(maximumWorkFactor)")
        }
        return value
    }
}
