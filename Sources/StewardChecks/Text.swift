import SQLiteKit

/// Foundation's `trimmingCharacters(in: .whitespaces)` and `(in: .whitespacesAndNewlines)`
/// without its detour through `NSString`: on Linux that detour cost about 0.6 ms of a
/// no-op `migrate`, which trims every line of every migration file (design notes, "Performance"). The sets
/// are Foundation's, scalar by scalar (`WhitespaceTrimmingTests` compares every scalar).
extension Substring {
    /// As `trimmingCharacters(in: .whitespaces)`: Unicode category Zs, U+200B and the tab.
    package func trimmingWhitespace() -> String {
        WhitespaceTrimming.trimming(self, where: WhitespaceTrimming.isWhitespace)
    }

    /// As `trimmingCharacters(in: .whitespacesAndNewlines)`: Unicode categories Z*,
    /// U+200B, U+0009 to U+000D and U+0085.
    package func trimmingWhitespaceAndNewlines() -> String {
        WhitespaceTrimming.trimming(self, where: WhitespaceTrimming.isWhitespaceOrNewline)
    }
}

extension String {
    package func trimmingWhitespace() -> String { self[...].trimmingWhitespace() }
    package func trimmingWhitespaceAndNewlines() -> String { self[...].trimmingWhitespaceAndNewlines() }
}

package enum WhitespaceTrimming {
    package static func trimming(_ text: Substring, where isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }),
              let last = scalars.lastIndex(where: { !isTrimmed($0) })
        else { return "" }
        return String(scalars[first...last])
    }

    /// U+200B (zero width space) was Zs until Unicode 4.0.1 and still is in Foundation's sets.
    package static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x80 { return scalar.value == 0x20 || scalar.value == 0x09 }
        return scalar.value == 0x200B || scalar.properties.generalCategory == .spaceSeparator
    }

    package static func isWhitespaceOrNewline(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x80 { return scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value) }
        if scalar.value == 0x85 || scalar.value == 0x200B { return true }
        switch scalar.properties.generalCategory {
        case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }
}

/// Line numbers in an SQL file, by byte offset (the offsets SQLite and `forEachStatement`
/// give). The line feeds are found once, so that naming the line of each of many
/// statements does not rescan the file from its start.
package struct SourceLines: Sendable {
    package let utf8: [UInt8]
    private let lineFeeds: [Int]

    package init(_ text: String) {
        let utf8 = Array(text.utf8)
        self.utf8 = utf8
        self.lineFeeds = utf8.indices.filter { utf8[$0] == 0x0A }
    }

    /// The 1-based line of a byte offset: one more than the line feeds before it.
    package func line(at offset: Int) -> Int {
        var low = 0, high = lineFeeds.count
        while low < high {
            let middle = (low + high) / 2
            if lineFeeds[middle] < offset { low = middle + 1 } else { high = middle }
        }
        return low + 1
    }

    /// The byte offset of the first token at or after `offset`, past whitespace and comments.
    package func firstToken(from offset: Int) -> Int {
        var scanner = SQLScanner(utf8: utf8, from: offset)
        return scanner.offsetOfNextToken()
    }

    /// The line of the first token at or after `offset`: where a statement starts.
    package func lineOfFirstToken(from offset: Int) -> Int {
        line(at: firstToken(from: offset))
    }
}
