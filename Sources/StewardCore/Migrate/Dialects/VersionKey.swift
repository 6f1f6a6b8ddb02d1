import Foundation

/// A migration version as the runners compare them: one or more unsigned decimal parts of
/// any length (Flyway's `1.10.2`, a 14-digit timestamp, `0000`), compared part by part as
/// numbers, with missing and trailing parts counting as zero (Flyway's `MigrationVersion`).
public struct VersionKey: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Decimal digits without leading zeros ("0" for zero); trailing zero parts removed.
    public let parts: [String]

    /// `text` of decimal digits; with `dotted`, digit groups separated by `.` or `_` (Flyway
    /// reads `V1_1` as `1.1`). Nil for anything else.
    public init?(_ text: String, dotted: Bool = false) {
        let pieces = dotted
            ? text.replacingOccurrences(of: "_", with: ".").split(separator: ".", omittingEmptySubsequences: false)
            : [Substring(text)]
        var parts: [String] = []
        for piece in pieces {
            guard !piece.isEmpty, piece.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            let trimmed = piece.drop { $0 == "0" }
            parts.append(trimmed.isEmpty ? "0" : String(trimmed))
        }
        while parts.count > 1, parts.last == "0" { parts.removeLast() }
        self.parts = parts
    }

    public init(_ value: Int64) {
        parts = [String(value)]
    }

    /// The value when the version is a single part that fits a signed 64-bit integer.
    public var integer: Int64? {
        guard parts.count == 1 else { return nil }
        return Int64(parts[0])
    }

    public var description: String { parts.joined(separator: ".") }

    public static func < (lhs: VersionKey, rhs: VersionKey) -> Bool {
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
