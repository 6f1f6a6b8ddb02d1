/// A small tokenizer for reading SQL that SQLite has already accepted: trigger
/// headers, FTS5 declarations, the first keyword of a statement. It is not a parser
/// and never decides where statements end; SQLite does that.
public struct SQLScanner {
    public enum Kind: Sendable, Equatable {
        /// A bare word: keyword or identifier.
        case word
        /// `"x"`, `` `x` `` or `[x]`; `text` holds the unquoted name.
        case quotedIdentifier
        /// `'x'`; `text` holds the unquoted value.
        case string
        case number
        /// Any other single character, or `||`, `<=` and the like as one symbol.
        case symbol
    }

    public struct Token: Sendable, Equatable {
        public let kind: Kind
        public let text: String
        /// Byte offset of the token's first byte in the UTF-8 text.
        public let offset: Int

        /// The token as a name: words and quoted identifiers (and strings, which
        /// SQLite accepts as names in some places).
        public var name: String? {
            switch kind {
            case .word, .quotedIdentifier, .string: return text
            default: return nil
            }
        }

        /// Whether the token is the keyword `keyword` (case-insensitive, unquoted).
        public func isKeyword(_ keyword: String) -> Bool {
            kind == .word && text.caseInsensitiveEquals(keyword)
        }
    }

    private let bytes: [UInt8]
    private(set) public var position: Int = 0

    public init(_ text: String) {
        self.bytes = Array(text.utf8)
    }

    /// A scanner over UTF-8 bytes the caller already holds, starting at `position`: no
    /// copy, so that scanning from many places in one large text stays linear.
    public init(utf8 bytes: [UInt8], from position: Int = 0) {
        self.bytes = bytes
        self.position = min(max(position, 0), bytes.count)
    }

    /// All tokens of the text.
    public static func tokens(of text: String) -> [Token] {
        var scanner = SQLScanner(text)
        var result: [Token] = []
        while let token = scanner.nextToken() { result.append(token) }
        return result
    }

    /// The next token, skipping whitespace and comments; nil at the end.
    public mutating func nextToken() -> Token? {
        skipTrivia()
        guard position < bytes.count else { return nil }
        let start = position
        let byte = bytes[position]
        switch byte {
        case UInt8(ascii: "'"):
            return Token(kind: .string, text: quoted(until: byte), offset: start)
        case UInt8(ascii: "\""), UInt8(ascii: "`"):
            return Token(kind: .quotedIdentifier, text: quoted(until: byte), offset: start)
        case UInt8(ascii: "["):
            position += 1
            let bodyStart = position
            while position < bytes.count && bytes[position] != UInt8(ascii: "]") { position += 1 }
            let text = String(decoding: bytes[bodyStart..<position], as: UTF8.self)
            if position < bytes.count { position += 1 }
            return Token(kind: .quotedIdentifier, text: text, offset: start)
        case _ where Self.isDigit(byte):
            while position < bytes.count && (Self.isWordByte(bytes[position]) || bytes[position] == UInt8(ascii: ".")) {
                position += 1
            }
            return Token(kind: .number, text: String(decoding: bytes[start..<position], as: UTF8.self), offset: start)
        case _ where Self.isWordByte(byte):
            while position < bytes.count && Self.isWordByte(bytes[position]) { position += 1 }
            return Token(kind: .word, text: String(decoding: bytes[start..<position], as: UTF8.self), offset: start)
        default:
            position += 1
            let pairs: Set<String> = ["||", "<=", ">=", "<>", "!=", "==", "<<", ">>", "->"]
            if position < bytes.count {
                let pair = String(decoding: bytes[start...position], as: UTF8.self)
                if pairs.contains(pair) {
                    position += 1
                    return Token(kind: .symbol, text: pair, offset: start)
                }
            }
            return Token(kind: .symbol, text: String(decoding: bytes[start..<position], as: UTF8.self), offset: start)
        }
    }

    /// The byte offset of the first token at or after the current position, or the end.
    public mutating func offsetOfNextToken() -> Int {
        skipTrivia()
        return position
    }

    private mutating func skipTrivia() {
        while position < bytes.count {
            let byte = bytes[position]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C {
                position += 1
            } else if byte == UInt8(ascii: "-"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "-") {
                while position < bytes.count && bytes[position] != 0x0A { position += 1 }
            } else if byte == UInt8(ascii: "/"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "*") {
                position += 2
                while position < bytes.count
                    && !(bytes[position] == UInt8(ascii: "*") && position + 1 < bytes.count
                        && bytes[position + 1] == UInt8(ascii: "/"))
                {
                    position += 1
                }
                position = min(position + 2, bytes.count)
            } else {
                return
            }
        }
    }

    /// Reads a quoted run where a doubled quote stands for one.
    private mutating func quoted(until quote: UInt8) -> String {
        position += 1
        var body: [UInt8] = []
        while position < bytes.count {
            if bytes[position] == quote {
                if position + 1 < bytes.count && bytes[position + 1] == quote {
                    body.append(quote)
                    position += 2
                    continue
                }
                position += 1
                break
            }
            body.append(bytes[position])
            position += 1
        }
        return String(decoding: body, as: UTF8.self)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        // Bytes of multi-byte UTF-8 characters are identifier characters in SQLite.
        byte >= 0x80 || isDigit(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
            || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
    }
}

extension String {
    /// ASCII case-insensitive comparison, as SQLite compares keywords and names.
    public func caseInsensitiveEquals(_ other: String) -> Bool {
        self.utf8.count == other.utf8.count
            && zip(self.utf8, other.utf8).allSatisfy { Self.fold($0) == Self.fold($1) }
    }

    private static func fold(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
