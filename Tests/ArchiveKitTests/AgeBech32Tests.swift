import Foundation
import Testing
@testable import ArchiveKit

/// Bech32 against BIP-173's own test vectors, and age's keys against `age-keygen`.
@Suite struct AgeBech32Tests {
    /// BIP-173, "Test vectors": valid Bech32 strings.
    static let validStrings = [
        "A12UEL5L",
        "a12uel5l",
        "an83characterlonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1tt5tgs",
        "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw",
        "11qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqc8247j",
        "split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w",
        "?1ezyfcl",
    ]

    /// BIP-173, "Test vectors": invalid Bech32 strings and why.
    static let invalidStrings: [(String, Bech32.Failure)] = [
        ("\u{20}1nwldj5", .invalidCharacter),          // HRP character out of range
        ("\u{7F}1axkwrx", .invalidCharacter),
        ("\u{80}1eym55h", .invalidCharacter),
        ("an84characterslonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1569pvx", .tooLong),
        ("pzry9x0s0muk", .missingSeparator),             // no separator character
        ("1pzry9x0s0muk", .invalidHumanReadablePart),    // empty HRP
        ("x1b4n0q5v", .invalidCharacter),                // invalid data character
        ("li1dgmt3", .missingSeparator),                 // too short checksum
        ("de1lg7wt\u{FF}", .invalidCharacter),           // invalid character in checksum
        ("A1G7SGD8", .invalidChecksum),                  // checksum calculated with uppercase HRP
        ("10a06t8", .invalidHumanReadablePart),          // empty HRP
        ("1qzzfhee", .invalidHumanReadablePart),         // empty HRP
        ("a12UEL5L", .mixedCase),
    ]

    @Test(arguments: validStrings)
    func validStringDecodes(_ string: String) throws {
        let decoded = try Bech32.decodeGroups(string)
        #expect(string.lowercased().hasPrefix(decoded.humanReadablePart.lowercased() + "1"))
    }

    @Test(arguments: zip(invalidStrings.map(\.0), invalidStrings.map(\.1)))
    func invalidStringIsRefused(_ string: String, _ failure: Bech32.Failure) {
        #expect(throws: failure) { try Bech32.decodeGroups(string) }
    }

    /// One string of one case after a round trip: encode(decode(s)) == s for byte data.
    @Test func bytesRoundTripInBothCases() throws {
        let data: [UInt8] = Array(0...31)
        for hrp in ["age", "AGE-SECRET-KEY-"] {
            let encoded = try Bech32.encode(humanReadablePart: hrp, data: data)
            #expect(encoded == (hrp == "age" ? encoded.lowercased() : encoded.uppercased()))
            let decoded = try Bech32.decode(encoded)
            #expect(decoded.humanReadablePart == hrp)
            #expect(decoded.data == data)
        }
    }

    /// Leftover bits after the last whole byte must be zero and fewer than five
    /// (BIP-173, "convertbits"); the checksum itself is valid in both strings.
    @Test func nonZeroOrLongPaddingIsRefused() throws {
        let ones = Bech32.encodeGroups(humanReadablePart: Array("a".utf8), groups: [31, 31])
        #expect(try Bech32.decodeGroups(ones).groups == [31, 31])
        #expect(throws: Bech32.Failure.invalidPadding) { try Bech32.decode(ones) }
        let fiveBits = Bech32.encodeGroups(humanReadablePart: Array("a".utf8), groups: [0])
        #expect(throws: Bech32.Failure.invalidPadding) { try Bech32.decode(fiveBits) }
        let clean = Bech32.encodeGroups(humanReadablePart: Array("a".utf8), groups: [31, 28])
        #expect(try Bech32.decode(clean).data == [0xFF])
    }

    /// A key pair from `age-keygen` (1.1.1): the secret key decodes, and libcrypto's
    /// X25519 gives the public key `age-keygen -y` printed, Bech32-encoded the same way.
    @Test(arguments: [
        ("AGE-SECRET-KEY-1N77R83RUYVWSM4HVJCEWGP3VCC47GY9J29NLFKDNY53DGC4Y7KUS88EY94",
         "age1hr8ykkr7hljce97hsthwrakf3t42ntqmt9rgw9e9sll0xk9wzeyqqm9yf7"),
        ("AGE-SECRET-KEY-1EGTZVFFV20835NWYV6270LXYVK2VKNX2MMDKWYKLMGR48UAWX40Q2P2LM0",
         "age1xmwwc06ly3ee5rytxm9mflaz2u56jjj36s0mypdrwsvlul66mv4q47ryef"),
    ])
    func keyPairMatchesAgeKeygen(_ secret: String, _ recipient: String) throws {
        let identity = try AgeX25519Identity(secret)
        #expect(identity.recipient.description == recipient)
        #expect(try identity.encoded() == secret)
        #expect(try AgeX25519Recipient(recipient) == identity.recipient)
        #expect(!identity.description.contains(secret))
    }

    @Test func keysInTheWrongCaseOrWithTheWrongPrefixAreRefused() throws {
        let secret = "AGE-SECRET-KEY-1N77R83RUYVWSM4HVJCEWGP3VCC47GY9J29NLFKDNY53DGC4Y7KUS88EY94"
        let recipient = "age1hr8ykkr7hljce97hsthwrakf3t42ntqmt9rgw9e9sll0xk9wzeyqqm9yf7"
        #expect(throws: AgeError.self) { try AgeX25519Identity(secret.lowercased()) }
        #expect(throws: AgeError.self) { try AgeX25519Recipient(recipient.uppercased()) }
        #expect(throws: AgeError.self) { try AgeX25519Identity(recipient) }
        #expect(throws: AgeError.self) { try AgeX25519Recipient(secret) }
        // One character changed: the checksum catches it, and the message does not quote the key.
        let typo = String(secret.dropLast()) + "5"
        do {
            _ = try AgeX25519Identity(typo)
            Issue.record("a key with a typo was accepted")
        } catch {
            #expect(!"\(error)".contains("N77R83"))
        }
    }
}
