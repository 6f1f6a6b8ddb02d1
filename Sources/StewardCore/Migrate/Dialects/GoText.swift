/// The few string functions of Go's standard library that goose's and dbmate's parsers
/// decide with, scalar for scalar, so that a line is read as those runners read it (and
/// not as Foundation would trim it).
enum GoText {
    /// `unicode.IsSpace`: the Latin-1 blanks, then the Unicode White_Space property. Also
    /// what `bufio.ScanWords` splits on. U+200B, which Foundation trims, is not one.
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0: true
        case 0...0xFF: false
        default: scalar.properties.isWhitespace
        }
    }

    /// `\s` in Go's regular expressions (RE2, ASCII only): `[\t\n\f\r ]`, no vertical tab.
    static func isRegexpSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar == "\n" || scalar == "\u{0C}" || scalar == "\r" || scalar == " "
    }

    /// `strings.TrimSpace`.
    static func trimSpace<S: StringProtocol>(_ text: S) -> Substring.UnicodeScalarView {
        let scalars = Substring(text).unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
              let last = scalars.lastIndex(where: { !isSpace($0) }) else { return Substring("").unicodeScalars }
        return scalars[first...last]
    }

    /// `strings.Fields`, as `bufio.ScanWords` gives the words of a line.
    static func words<S: StringProtocol>(_ text: S) -> [Substring.UnicodeScalarView] {
        Substring(text).unicodeScalars.split(whereSeparator: isSpace)
    }

    /// `strings.EqualFold` of `text` with an ASCII `word`: Unicode simple case folding, under
    /// which U+017F (long s) folds to `s` and U+212A (Kelvin sign) to `k`.
    static func equalFold<S: Sequence>(_ text: S, _ word: String) -> Bool where S.Element == Unicode.Scalar {
        let left = Array(text)
        let right = Array(word.unicodeScalars)
        guard left.count == right.count else { return false }
        return zip(left, right).allSatisfy { scalar, letter in
            if scalar == letter { return true }
            let lower = Character(letter).lowercased()
            if scalar.isASCII { return Character(scalar).lowercased() == lower }
            return (scalar == "\u{017F}" && lower == "s") || (scalar == "\u{212A}" && lower == "k")
        }
    }

    /// `strings.ReplaceAll(text, old, "")`: every non-overlapping `old`, left to right, removed.
    static func removingAll(_ old: String, from text: [Unicode.Scalar]) -> [Unicode.Scalar] {
        let pattern = Array(old.unicodeScalars)
        var result: [Unicode.Scalar] = []
        var index = 0
        while index < text.count {
            if index + pattern.count <= text.count, Array(text[index..<index + pattern.count]) == pattern {
                index += pattern.count
            } else {
                result.append(text[index])
                index += 1
            }
        }
        return result
    }

    /// The position of the first `pattern` in `text`.
    static func firstIndex(of pattern: String, in text: [Unicode.Scalar]) -> Int? {
        let pattern = Array(pattern.unicodeScalars)
        guard pattern.count <= text.count else { return nil }
        return (0...(text.count - pattern.count)).first { Array(text[$0..<$0 + pattern.count]) == pattern }
    }
}

extension UpSection {
    /// A file's lines split on LF scalars, as `bufio.Scanner` and `strings.Split(s, "\n")`
    /// split them. Splitting the `String` itself would not: "\r\n" is one `Character`, so a
    /// CRLF file would be one line. Each line keeps its CR; the last is empty when the text
    /// ends with LF.
    static func lines(_ text: String) -> [Substring] {
        text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { Substring($0) }
    }
}
