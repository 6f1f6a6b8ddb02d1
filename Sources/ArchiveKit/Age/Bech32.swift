import Foundation

/// Bech32 (BIP-173), the encoding of age's keys: `age1…` recipients and
/// `AGE-SECRET-KEY-1…` identities. An encoding with a checksum, not a cryptographic
/// primitive. Plain Bech32, not Bech32m, as age uses.
///
/// <https://github.com/bitcoin/bips/blob/master/bip-0173.mediawiki>
public enum Bech32 {
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case tooLong
        case mixedCase
        case missingSeparator
        case invalidHumanReadablePart
        case invalidCharacter
        case invalidChecksum
        case invalidPadding

        public var description: String {
            switch self {
            case .tooLong: return "longer than \(Bech32.maximumLength) characters"
            case .mixedCase: return "upper and lower case mixed"
            case .missingSeparator: return "no '1' separator followed by a checksum"
            case .invalidHumanReadablePart: return "the part before the '1' is empty or not printable"
            case .invalidCharacter: return "a character outside Bech32's alphabet"
            case .invalidChecksum: return "the checksum does not match (a typo?)"
            case .invalidPadding: return "the data does not end on a whole byte"
            }
        }
    }

    private static let charset = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)
    private static let generator: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]

    /// BIP-173's limit; age's keys (62 and 74 characters) are within it.
    public static let maximumLength = 90

    /// `hrp` + `1` + data + checksum, in the case of `hrp` (all lower or all upper).
    /// - Throws: `Bech32.Failure` for a human-readable part that cannot be encoded or a
    ///   result longer than the format allows.
    public static func encode(humanReadablePart hrp: String, data: [UInt8]) throws(Failure) -> String {
        let hrpBytes = Array(hrp.utf8)
        guard !hrpBytes.isEmpty, hrpBytes.allSatisfy({ (33...126).contains($0) }) else { throw .invalidHumanReadablePart }
        let isUpper = hrp.uppercased() == hrp && hrp.lowercased() != hrp
        guard hrp.lowercased() == hrp || hrp.uppercased() == hrp else { throw .mixedCase }
        let lowerHRP = Array(hrp.lowercased().utf8)
        let values = try convertBits(data, from: 8, to: 5, pad: true)
        guard lowerHRP.count + 1 + values.count + 6 <= maximumLength else { throw .tooLong }
        let encoded = encodeGroups(humanReadablePart: lowerHRP, groups: values)
        return isUpper ? encoded.uppercased() : encoded
    }

    /// A lower-case HRP and 5-bit groups, with their checksum, in lower case.
    static func encodeGroups(humanReadablePart hrp: [UInt8], groups: [UInt8]) -> String {
        let checksum = createChecksum(hrp: hrp, values: groups)
        let text = hrp + [UInt8(ascii: "1")] + (groups + checksum).map { charset[Int($0 & 31)] }
        return String(decoding: text, as: UTF8.self)
    }

    /// The human-readable part, in the case it was written in, and the data bytes.
    /// - Throws: `Bech32.Failure` naming what is wrong: length, characters, mixed case,
    ///   separator or checksum.
    public static func decode(_ string: String) throws(Failure) -> (humanReadablePart: String, data: [UInt8]) {
        let (hrp, values) = try decodeGroups(string)
        return (hrp, try convertBits(values, from: 5, to: 8, pad: false))
    }

    /// The human-readable part and the 5-bit groups before the checksum, the checksum
    /// verified: what BIP-173's own test vectors exercise.
    static func decodeGroups(_ string: String) throws(Failure) -> (humanReadablePart: String, groups: [UInt8]) {
        let bytes = Array(string.utf8)
        guard bytes.count <= maximumLength else { throw .tooLong }
        guard bytes.allSatisfy({ (33...126).contains($0) }) else { throw .invalidCharacter }
        let hasLower = bytes.contains { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }
        let hasUpper = bytes.contains { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
        guard !(hasLower && hasUpper) else { throw .mixedCase }
        guard let separator = bytes.lastIndex(of: UInt8(ascii: "1")) else { throw .missingSeparator }
        guard separator >= 1 else { throw .invalidHumanReadablePart }
        guard separator + 7 <= bytes.count else { throw .missingSeparator }
        let hrp = Array(bytes[..<separator])
        let lowerHRP = hrp.map(lowercased)
        var values: [UInt8] = []
        values.reserveCapacity(bytes.count - separator - 1)
        for byte in bytes[(separator + 1)...] {
            guard let value = charset.firstIndex(of: lowercased(byte)) else { throw .invalidCharacter }
            values.append(UInt8(value))
        }
        guard polymod(expand(lowerHRP) + values) == 1 else { throw .invalidChecksum }
        return (String(decoding: hrp, as: UTF8.self), Array(values.dropLast(6)))
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    private static func polymod(_ values: [UInt8]) -> UInt32 {
        var checksum: UInt32 = 1
        for value in values {
            let top = checksum >> 25
            checksum = (checksum & 0x1ff_ffff) << 5 ^ UInt32(value)
            for (bit, constant) in generator.enumerated() where (top >> UInt32(bit)) & 1 == 1 {
                checksum ^= constant
            }
        }
        return checksum
    }

    private static func expand(_ hrp: [UInt8]) -> [UInt8] {
        hrp.map { $0 >> 5 } + [0] + hrp.map { $0 & 31 }
    }

    private static func createChecksum(hrp: [UInt8], values: [UInt8]) -> [UInt8] {
        let mod = polymod(expand(hrp) + values + [0, 0, 0, 0, 0, 0]) ^ 1
        return (0..<6).map { UInt8((mod >> UInt32(5 * (5 - $0))) & 31) }
    }

    /// Regroups bits; without padding, leftover bits must be fewer than `from` and zero
    /// (BIP-173: "any incomplete group at the end MUST be 4 bits or less, MUST be all zeroes").
    private static func convertBits(_ data: [UInt8], from: Int, to: Int, pad: Bool) throws(Failure) -> [UInt8] {
        var accumulator: UInt32 = 0
        var bits = 0
        let mask = UInt32((1 << to) - 1)
        var result: [UInt8] = []
        for value in data {
            guard UInt32(value) >> UInt32(from) == 0 else { throw .invalidCharacter }
            accumulator = accumulator << UInt32(from) | UInt32(value)
            bits += from
            while bits >= to {
                bits -= to
                result.append(UInt8((accumulator >> UInt32(bits)) & mask))
            }
            accumulator &= (1 << UInt32(bits)) - 1
        }
        if pad {
            if bits > 0 { result.append(UInt8((accumulator << UInt32(to - bits)) & mask)) }
        } else if bits >= from || (accumulator << UInt32(to - bits)) & mask != 0 {
            throw .invalidPadding
        }
        return result
    }
}
