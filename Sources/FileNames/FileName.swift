/// File names as the system has them: bytes, which need not be UTF-8, carried in a Swift
/// `String` without losing one.
///
/// Swift strings hold only valid Unicode, and `CommandLine.arguments` replaces bytes that
/// are not UTF-8 with U+FFFD, so that `x\xff.db` would become another name. Here each
/// such byte 0xHH becomes the private-use scalar U+F00HH (U+F0080 to U+F00FF), which no
/// valid UTF-8 yields for itself: a name that really holds one of those scalars has its
/// bytes escaped the same way, so every byte string maps to exactly one `String` and back
/// (as Python's "surrogateescape", which Swift strings cannot hold).
///
/// A name must be turned back into bytes with `bytes(_:)` or `cString(_:)` wherever it
/// reaches the system; renderers show the escaped bytes as `\xHH`.
public enum FileName {
    private static let base: UInt32 = 0xF0000

    /// The name for `bytes` (without the terminating NUL).
    public static func decode(_ bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        guard bytes.contains(where: { $0 >= 0x80 }) else { return String(decoding: bytes, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        var index = 0
        while index < bytes.count {
            if let (scalar, length) = scalar(in: bytes, at: index), rawByte(scalar) == nil {
                scalars.append(scalar)
                index += length
            } else {
                // One byte at a time: each escaped scalar stands for exactly one byte.
                scalars.append(escape(bytes[index]))
                index += 1
            }
        }
        return String(scalars)
    }

    /// The well-formed UTF-8 sequence at `index` (Unicode, table 3-7) and its length.
    private static func scalar(in bytes: [UInt8], at index: Int) -> (Unicode.Scalar, Int)? {
        let first = bytes[index]
        if first < 0x80 { return (Unicode.Scalar(first), 1) }
        let length: Int
        var second: ClosedRange<UInt8> = 0x80...0xBF
        switch first {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; second = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; second = 0x80...0x9F
        case 0xF0: length = 4; second = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; second = 0x80...0x8F
        default: return nil
        }
        guard index + length <= bytes.count, second.contains(bytes[index + 1]) else { return nil }
        var value = UInt32(first) & (0xFF >> (length + 1))
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard (0x80...0xBF).contains(byte) else { return nil }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        return Unicode.Scalar(value).map { ($0, length) }
    }

    /// The bytes `name` stands for.
    public static func bytes(_ name: String) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(name.utf8.count)
        for scalar in name.unicodeScalars {
            if let byte = rawByte(scalar) {
                result.append(byte)
            } else {
                result.append(contentsOf: String(scalar).utf8)
            }
        }
        return result
    }

    /// The bytes of `name` with a terminating NUL, to pass where C wants a path.
    public static func cString(_ name: String) -> [CChar] {
        bytes(name).map { CChar(bitPattern: $0) } + [0]
    }

    /// The byte an escaped scalar stands for, nil for any other scalar.
    public static func rawByte(_ scalar: Unicode.Scalar) -> UInt8? {
        let value = scalar.value
        guard value >= base + 0x80, value <= base + 0xFF else { return nil }
        return UInt8(value - base)
    }

    /// Whether `name` holds a byte that is not UTF-8 (and so cannot be shown as it is).
    public static func hasRawBytes(_ name: String) -> Bool {
        name.unicodeScalars.contains { rawByte($0) != nil }
    }

    private static func escape(_ byte: UInt8) -> Unicode.Scalar {
        // Always valid: base + 0x80...0xFF lies in plane 15, a private-use plane.
        Unicode.Scalar(base + UInt32(byte)) ?? "\u{FFFD}"
    }
}
