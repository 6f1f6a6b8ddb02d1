import Foundation

/// One recipient stanza of an age header: `-> TYPE ARGS…` and a base64 body
/// (age-encryption.org/v1, "Header").
public struct AgeStanza: Sendable, Equatable {
    /// The first argument, which names the recipient type (`X25519`, `scrypt`, …).
    public let type: String
    /// The arguments after the type.
    public let arguments: [String]
    public let body: [UInt8]

    static let zeroNonce = [UInt8](repeating: 0, count: 12)
    static let bodyColumns = 64

    init(type: String, arguments: [String], body: [UInt8]) {
        self.type = type
        self.arguments = arguments
        self.body = body
    }

    /// Whether a stanza argument (the type included) is allowed: one or more visible
    /// ASCII characters (VCHAR).
    static func isValidArgument(_ argument: some Collection<UInt8>) -> Bool {
        !argument.isEmpty && argument.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// The stanza as the header holds it: the argument line, then the body in lines of 64
    /// columns, the last one shorter (empty when the body fills its lines).
    func encoded() -> [UInt8] {
        var bytes = Array("-> ".utf8)
        bytes += Array(([type] + arguments).joined(separator: " ").utf8)
        bytes.append(0x0A)
        let body = Array(AgeBase64.encode(self.body).utf8)
        var offset = 0
        while true {
            let end = min(offset + Self.bodyColumns, body.count)
            bytes += body[offset..<end]
            bytes.append(0x0A)
            if end - offset < Self.bodyColumns { break }
            offset = end
        }
        return bytes
    }

    /// Checks the form the specification gives the recipient types it defines, so that a
    /// malformed stanza is refused whatever identity reads the file. Other types are
    /// left alone: they are for other implementations' identities.
    func checkKnownForm() throws(AgeError) {
        switch type {
        case AgeX25519Recipient.stanzaType:
            guard arguments.count == 1 else { throw .malformedHeader("an X25519 stanza has \(arguments.count) arguments, not 1") }
            guard let share = AgeBase64.decode(Array(arguments[0].utf8)), share.count == AgePrimitives.keySize else {
                throw .malformedHeader("an X25519 stanza's share is not 32 bytes in canonical base64")
            }
            guard body.count == AgePrimitives.keySize else {
                throw .malformedHeader("an X25519 stanza's body is \(body.count) bytes, not 32")
            }
        case AgeScrypt.stanzaType:
            guard arguments.count == 2 else { throw .malformedHeader("an scrypt stanza has \(arguments.count) arguments, not 2") }
            guard let salt = AgeBase64.decode(Array(arguments[0].utf8)), salt.count == AgeScrypt.saltSize else {
                throw .malformedHeader("an scrypt stanza's salt is not 16 bytes in canonical base64")
            }
            _ = try AgeScrypt.parseWorkFactor(arguments[1])
            guard body.count == AgePrimitives.keySize else {
                throw .malformedHeader("an scrypt stanza's body is \(body.count) bytes, not 32")
            }
        default:
            break
        }
    }
}
