/// The version as a search contract's `legacy_version` names it, and as every migration
/// layout orders its migrations: shared by the contract (here) and the migration sets
/// (StewardCore's `MigrationSet/`).
///
/// A migration version as its runner compares them.
///
/// Most runners read a number: one or more unsigned decimal parts of any length (Flyway's
/// `1.10.2`, a 14-digit timestamp, `0000`), compared part by part as numbers, with missing
/// and trailing parts counting as zero (Flyway's `MigrationVersion`). diesel and dbmate read
/// text: diesel's `MigrationVersion` wraps a string and orders as strings do, so `20240313`
/// comes after `20240306170000`; dbmate keeps the digits as written (`01` is not `1`). A
/// text version compares byte by byte, as Rust's `str` and Go's `string` do.
public struct VersionKey: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Decimal digits without leading zeros ("0" for zero); trailing zero parts removed. For
    /// a text version that is not all digits, the text.
    public let parts: [String]
    /// The version as its runner's text, for the runners that compare text; nil for numbers.
    public let text: String?

    /// `text` of decimal digits; with `dotted`, digit groups separated by `.` or `_` (Flyway
    /// reads `V1_1` as `1.1`). Nil for anything else.
    public init?(_ text: String, dotted: Bool = false) {
        let pieces = dotted
            ? text.replacingOccurrences(of: "_", with: ".").split(separator: ".", omittingEmptySubsequences: false)
            : [Substring(text)]
        var parts: [String] = []
        for piece in pieces {
            guard let part = Self.number(piece) else { return nil }
            parts.append(part)
        }
        while parts.count > 1, parts.last == "0" { parts.removeLast() }
        self.parts = parts
        self.text = nil
    }

    /// A version that its runner compares as text (diesel, dbmate); any text but the empty one.
    public init?(text: String) {
        guard !text.isEmpty else { return nil }
        self.text = text
        self.parts = [Self.number(Substring(text)) ?? text]
    }

    public init(_ value: Int64) {
        parts = [String(value)]
        text = nil
    }

    private static func number(_ piece: Substring) -> String? {
        guard !piece.isEmpty, piece.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let trimmed = piece.drop { $0 == "0" }
        return trimmed.isEmpty ? "0" : String(trimmed)
    }

    /// The value when the version is a single part that fits a signed 64-bit integer.
    public var integer: Int64? {
        guard parts.count == 1 else { return nil }
        return Int64(parts[0])
    }

    public var description: String { text ?? parts.joined(separator: ".") }

    /// Two text versions are equal when their texts are; a number given on the command line
    /// (`--to 20240313`) matches a text version with the same digits.
    public static func == (lhs: VersionKey, rhs: VersionKey) -> Bool {
        if let left = lhs.text, let right = rhs.text { return left == right }
        return lhs.parts == rhs.parts
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(parts)
    }

    public static func < (lhs: VersionKey, rhs: VersionKey) -> Bool {
        if lhs.text != nil || rhs.text != nil {
            return Array(lhs.description.utf8).lexicographicallyPrecedes(Array(rhs.description.utf8))
        }
        for index in 0..<max(lhs.parts.count, rhs.parts.count) {
            let left = index < lhs.parts.count ? lhs.parts[index] : "0"
            let right = index < rhs.parts.count ? rhs.parts[index] : "0"
            if left.count != right.count { return left.count < right.count }
            if left != right { return left < right }
        }
        return false
    }
}

extension VersionKey: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) {
        self.init(value)
    }
}

