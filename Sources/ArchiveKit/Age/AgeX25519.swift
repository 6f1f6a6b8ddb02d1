import Foundation

/// An age X25519 recipient, `age1…` (Bech32, lower case): a public key files are
/// encrypted to.
public struct AgeX25519Recipient: Sendable, Equatable, Hashable, CustomStringConvertible {
    static let humanReadablePart = "age"
    static let stanzaType = "X25519"
    static let label = "age-encryption.org/v1/X25519"

    public let publicKey: [UInt8]

    /// A recipient from its raw 32-byte X25519 public key.
    ///
    /// - Throws: `AgeError` for a key that is not 32 bytes.
    public init(publicKey: [UInt8]) throws(AgeError) {
        guard publicKey.count == AgePrimitives.keySize else { throw .invalidKey("an X25519 public key is 32 bytes") }
        self.publicKey = publicKey
    }

    /// Parses `age1…`; the error never repeats the text.
    /// - Throws: `AgeError.invalidKey` for text that is not Bech32, not `age1` in lower case,
    ///   or does not hold a 32-byte key.
    public init(_ text: String) throws(AgeError) {
        let data = try bech32Data(text, humanReadablePart: Self.humanReadablePart, kind: "recipient", letterCase: "lower")
        guard data.count == AgePrimitives.keySize else { throw .invalidKey("an age recipient holds a 32-byte key") }
        self.publicKey = data
    }

    /// `age1…`
    public var description: String {
        (try? Bech32.encode(humanReadablePart: Self.humanReadablePart, data: publicKey)) ?? "age1?"
    }

    /// The stanza that gives this recipient the file key (age-encryption.org/v1, "X25519").
    func wrap(fileKey: [UInt8]) throws(AgeError) -> AgeStanza {
        let ephemeralSecret = try AgePrimitives.randomBytes(AgePrimitives.keySize)
        let ephemeralShare = try AgePrimitives.x25519PublicKey(privateKey: ephemeralSecret)
        guard let shared = try AgePrimitives.x25519(privateKey: ephemeralSecret, peer: publicKey) else {
            throw .invalidKey("the recipient's public key is a low-order point")
        }
        let wrapKey = try AgePrimitives.hkdf(key: shared, salt: ephemeralShare + publicKey, info: Self.label, length: 32)
        let body = try ChaChaPoly(key: wrapKey).seal(nonce: AgeStanza.zeroNonce, fileKey)
        return AgeStanza(type: Self.stanzaType, arguments: [AgeBase64.encode(ephemeralShare)], body: body)
    }
}

/// An age X25519 identity, `AGE-SECRET-KEY-1…` (Bech32, upper case): the private key that
/// opens files encrypted to its recipient. Its description never shows the key.
public struct AgeX25519Identity: Sendable, Equatable, CustomStringConvertible {
    static let humanReadablePart = "AGE-SECRET-KEY-"

    let secretKey: [UInt8]
    public let recipient: AgeX25519Recipient

    /// An identity from its raw 32-byte X25519 secret key.
    ///
    /// - Throws: `AgeError` for a key that is not 32 bytes, or when its public key cannot be derived.
    public init(secretKey: [UInt8]) throws(AgeError) {
        guard secretKey.count == AgePrimitives.keySize else { throw .invalidKey("an X25519 secret key is 32 bytes") }
        self.secretKey = secretKey
        self.recipient = try AgeX25519Recipient(publicKey: AgePrimitives.x25519PublicKey(privateKey: secretKey))
    }

    /// Parses `AGE-SECRET-KEY-1…`; the error never repeats the text.
    /// - Throws: `AgeError.invalidKey` for text that is not Bech32, not `AGE-SECRET-KEY-1` in
    ///   upper case, or does not hold a 32-byte key.
    public init(_ text: String) throws(AgeError) {
        try self.init(secretKey: bech32Data(text, humanReadablePart: Self.humanReadablePart, kind: "identity", letterCase: "upper"))
    }

    /// A new identity from libcrypto's random generator.
    /// - Throws: `AgeError` when no random key can be made.
    public static func generate() throws(AgeError) -> AgeX25519Identity {
        try AgeX25519Identity(secretKey: AgePrimitives.randomBytes(AgePrimitives.keySize))
    }

    /// `AGE-SECRET-KEY-1…`, for writing a key file; never logged.
    /// - Throws: `AgeError` when the key cannot be encoded as Bech32.
    public func encoded() throws(AgeError) -> String {
        do {
            return try Bech32.encode(humanReadablePart: Self.humanReadablePart, data: secretKey)
        } catch {
            throw .invalidKey("cannot encode the identity: \(error)")
        }
    }

    public var description: String { "identity of \(recipient)" }

    /// The file key from an X25519 stanza, nil when the stanza is not for this identity.
    /// The stanza's form was checked when the header was parsed.
    func unwrap(_ stanza: AgeStanza) throws(AgeError) -> [UInt8]? {
        guard stanza.type == AgeX25519Recipient.stanzaType,
              let share = stanza.arguments.first.flatMap({ AgeBase64.decode(Array($0.utf8)) })
        else { return nil }
        guard let shared = try AgePrimitives.x25519(privateKey: secretKey, peer: share) else {
            throw .malformedHeader("an X25519 stanza's share is a low-order point")
        }
        let wrapKey = try AgePrimitives.hkdf(key: shared, salt: share + recipient.publicKey, info: AgeX25519Recipient.label, length: 32)
        return try ChaChaPoly(key: wrapKey).open(nonce: AgeStanza.zeroNonce, stanza.body)
    }
}

/// The data of `text`, the Bech32 form of an age `kind` whose human-readable part is
/// `humanReadablePart` (written in `letterCase`, which the error names); the error never
/// repeats the text.
/// - Throws: `AgeError.invalidKey` for text that is not Bech32 or has another human-readable part.
private func bech32Data(_ text: String, humanReadablePart: String, kind: String, letterCase: String) throws(AgeError) -> [UInt8] {
    let decoded: (humanReadablePart: String, data: [UInt8])
    do {
        decoded = try Bech32.decode(text)
    } catch {
        throw .invalidKey("not an age \(kind) (\(humanReadablePart)1…): \(error)")
    }
    guard decoded.humanReadablePart == humanReadablePart else {
        throw .invalidKey("not an age X25519 \(kind): it must start with '\(humanReadablePart)1' in \(letterCase) case")
    }
    return decoded.data
}
