import Foundation

/// The header of an age file (age-encryption.org/v1, "Header"):
///
/// ```
/// age-encryption.org/v1
/// -> X25519 <share>
/// <wrapped file key, base64 in lines of 64 columns>
/// --- <HMAC-SHA-256 of everything above, up to and including "---">
/// ```
///
/// Parsing is strict: LF line ends only, canonical unpadded base64, full 64-column body
/// lines but the last, which is shorter (possibly empty). A header has exactly one
/// encoding, so the MAC is checked over the bytes as read.
public struct AgeHeader: Sendable, Equatable {
    static let versionLine = Array("age-encryption.org/v1".utf8)
    static let versionPrefix = Array("age-encryption.org/".utf8)
    static let stanzaPrefix = Array("-> ".utf8)
    static let macPrefix = Array("---".utf8)
    /// A hostile header cannot make the reader hold more than this.
    static let maximumSize = 1 << 20
    static let maximumLineLength = 16 * 1024

    public let stanzas: [AgeStanza]
    /// The MAC as the header holds it.
    let mac: [UInt8]
    /// What the MAC covers: the header up to and including `---`.
    let authenticatedBytes: [UInt8]

    /// The recipient types, in the order of the stanzas (what an age header reveals
    /// without a key).
    public var recipientTypes: [String] { stanzas.map(\.type) }

    // MARK: - Writing

    /// The header for `stanzas`, with its MAC under `fileKey`, ready to be written.
    static func encode(stanzas: [AgeStanza], fileKey: [UInt8]) throws(AgeError) -> [UInt8] {
        var bytes = versionLine + [0x0A]
        for stanza in stanzas { bytes += stanza.encoded() }
        bytes += macPrefix
        let mac = try macValue(of: bytes, fileKey: fileKey)
        bytes += Array(" \(AgeBase64.encode(mac))\n".utf8)
        return bytes
    }

    static func macValue(of bytes: [UInt8], fileKey: [UInt8]) throws(AgeError) -> [UInt8] {
        let key = try AgePrimitives.hkdf(key: fileKey, salt: [], info: "header", length: 32)
        return try AgePrimitives.hmacSHA256(key: key, message: bytes)
    }

    // MARK: - Reading

    /// Whether the header's MAC matches under `fileKey`.
    func isAuthentic(fileKey: [UInt8]) throws(AgeError) -> Bool {
        AgePrimitives.constantTimeEqual(try Self.macValue(of: authenticatedBytes, fileKey: fileKey), mac)
    }

    /// Reads the header from `input`, which is left at the first byte of the payload.
    static func read(from input: AgeInput) throws -> AgeHeader {
        var authenticated: [UInt8] = []
        func nextLine(_ place: String) throws -> [UInt8] {
            let line: [UInt8]?
            do {
                line = try input.readLine(limit: maximumLineLength)
            } catch AgeInput.LineFailure.tooLong {
                throw AgeError.malformedHeader("a line of the header is longer than \(maximumLineLength) bytes")
            } catch AgeInput.LineFailure.unterminated {
                throw AgeError.malformedHeader("the input ends inside \(place)")
            }
            guard let line else { throw AgeError.malformedHeader("the input ends before \(place)") }
            guard authenticated.count + line.count < maximumSize else {
                throw AgeError.malformedHeader("the header is larger than \(maximumSize) bytes")
            }
            return line
        }

        let version: [UInt8]
        do {
            version = try nextLine("the version line")
        } catch AgeError.malformedHeader {
            throw AgeError.notAge
        }
        guard version == versionLine else {
            if version.starts(with: versionPrefix) {
                throw AgeError.unsupportedVersion(String(decoding: version.prefix(64), as: UTF8.self))
            }
            throw AgeError.notAge
        }
        authenticated = version + [0x0A]

        var stanzas: [AgeStanza] = []
        var line = try nextLine("the first stanza")
        while line.starts(with: stanzaPrefix) {
            authenticated += line + [0x0A]
            let fields = line.dropFirst(stanzaPrefix.count).split(separator: 0x20, omittingEmptySubsequences: false)
            guard fields.allSatisfy({ AgeStanza.isValidArgument($0) }) else {
                throw AgeError.malformedHeader("a stanza has an empty argument or a character outside visible ASCII")
            }
            var encodedBody: [UInt8] = []
            while true {
                let bodyLine = try nextLine("a stanza's body")
                authenticated += bodyLine + [0x0A]
                guard bodyLine.count <= AgeStanza.bodyColumns else {
                    throw AgeError.malformedHeader("a stanza's body line is longer than 64 columns")
                }
                encodedBody += bodyLine
                if bodyLine.count < AgeStanza.bodyColumns { break }
            }
            guard let body = AgeBase64.decode(encodedBody) else {
                throw AgeError.malformedHeader("a stanza's body is not canonical unpadded base64")
            }
            let stanza = AgeStanza(
                type: String(decoding: fields[0], as: UTF8.self),
                arguments: fields.dropFirst().map { String(decoding: $0, as: UTF8.self) },
                body: body)
            try stanza.checkKnownForm()
            stanzas.append(stanza)
            line = try nextLine("the header's MAC line")
        }

        // "--- " and the 43 characters of a 32-byte MAC, nothing else.
        guard line.starts(with: macPrefix) else {
            throw AgeError.malformedHeader("a header line is neither a stanza ('-> ') nor the MAC line ('--- ')")
        }
        let encodedMAC = line.dropFirst(macPrefix.count)
        guard encodedMAC.first == 0x20, let mac = AgeBase64.decode(encodedMAC.dropFirst()), mac.count == 32 else {
            throw AgeError.malformedHeader("the MAC line is not '--- ' and a 32-byte MAC in canonical base64")
        }
        authenticated += macPrefix

        if stanzas.contains(where: { $0.type == AgeScrypt.stanzaType }), stanzas.count != 1 {
            throw AgeError.malformedHeader("an scrypt stanza must be the only stanza of its header")
        }
        return AgeHeader(stanzas: stanzas, mac: mac, authenticatedBytes: authenticated)
    }
}
