import SQLiteKit

/// What the parallel FTS5 check (`FTS5SyncDigest`) needs to know of one FTS5 table of
/// `main`, read from its declaration: its columns, how much its index records (`detail`),
/// whether it keeps column sizes, where its text is, and its tokenizer with its arguments.
/// Nil `unsupported` means the digest can prove the table; otherwise it says why FTS5's
/// own statement checks it instead (https://sqlite.org/fts5.html, "FTS5 Table Creation
/// and Initialization").
package struct FTS5TableLayout: Sendable, Equatable {
    /// How much of each entry the index keeps: (rowid, column, offset) for `full`,
    /// (rowid, column) for `columns`, the rowid only for `none`.
    package enum Detail: String, Sendable {
        case full, column, none
    }

    package let table: String
    /// Every declared column, UNINDEXED ones included, in declaration order.
    package let columns: [String]
    /// Whether each column is indexed (not UNINDEXED).
    package let indexed: [Bool]
    package let detail: Detail
    /// `columnsize=1` (the default): the `%_docsize` table holds each row's token counts.
    package let columnSize: Bool
    /// The table that holds the text (`%_content` for a table with its own content, the
    /// `content=` table otherwise), its rowid column and its text columns in order.
    package let contentTable: String
    package let contentRowID: String
    package let contentColumns: [String]
    /// The tokenizer's name and arguments, as FTS5 splits the `tokenize` option.
    package let tokenizer: [String]
    /// The prefix indexes' lengths in characters, in declaration order (index 1, 2, …).
    package let prefixes: [Int]
    /// Why the digest cannot prove this table (FTS5's statement checks it); nil when it can.
    package let unsupported: String?

    /// `declaration`: the table's CREATE VIRTUAL TABLE statement, for its `prefix` options
    /// (there may be several; the definition keeps the last).
    package init(_ definition: FTS5Definition, declaration: String? = nil) {
        table = definition.name
        columns = definition.columns
        let unindexed = Set(definition.unindexedColumns.map { $0.lowercased() })
        indexed = definition.columns.map { !unindexed.contains($0.lowercased()) }
        let options = definition.options
        detail = Detail(rawValue: (options["detail"] ?? "full").lowercased()) ?? .full
        columnSize = (options["columnsize"] ?? "1") != "0"
        tokenizer = Self.words(of: definition.tokenizer)
        switch definition.contentMode {
        case .internal:
            contentTable = definition.name + "_content"
            contentRowID = "id"
            contentColumns = definition.columns.indices.map { "c\($0)" }
        case .external, .contentless:
            contentTable = definition.contentTable ?? ""
            contentRowID = definition.contentRowID ?? "rowid"
            contentColumns = definition.columns
        }
        let prefixes = declaration.flatMap(Self.prefixes(in:)) ?? []
        self.prefixes = prefixes
        unsupported = Self.unsupported(definition, detail: options["detail"], tokenizer: tokenizer, prefixes: prefixes)
    }

    /// The options whose entries the digest cannot see or reproduce. Every reason is a
    /// fact of the schema, never of its rows.
    private static func unsupported(_ definition: FTS5Definition, detail: String?, tokenizer: [String], prefixes: [Int]) -> String? {
        let options = definition.options
        if definition.contentMode == .contentless {
            return "contentless (content=''): there is no text to tokenize, only the index to check"
        }
        if options["prefix"] != nil && (prefixes.isEmpty || Detail(rawValue: (detail ?? "full").lowercased()) != .full) {
            return prefixes.isEmpty ? "prefix indexes declared in a way the check does not read"
                : "prefix indexes with detail=\(detail ?? "full"): their entries cannot be read through fts5vocab"
        }
        if let detail, Detail(rawValue: detail.lowercased()) == nil {
            return "detail=\(detail) is not one the digest knows"
        }
        for option in ["tokendata", "locale", "contentless_delete", "contentless_unindexed"] where (options[option] ?? "0") != "0" {
            return "\(option)=\(options[option] ?? ""): entries the digest cannot reproduce"
        }
        if tokenizer.isEmpty {
            return "its tokenize option names no tokenizer"
        }
        return nil
    }

    /// Every `prefix` option's lengths (`prefix='2 3'`, `prefix=2, prefix=3`), as FTS5 reads
    /// them: integers from 1 to 999 separated by spaces or commas; nil when one is not.
    package static func prefixes(in declaration: String) -> [Int]? {
        let tokens = SQLScanner.tokens(of: declaration)
        var lengths: [Int] = []
        for index in tokens.indices where index + 2 < tokens.count && tokens[index].isKeyword("prefix") && tokens[index + 1].text == "=" {
            for part in tokens[index + 2].text.split(whereSeparator: { $0 == " " || $0 == "," }) {
                guard let length = Int(part), (1...999).contains(length) else { return nil }
                lengths.append(length)
            }
        }
        return lengths
    }

    /// A `tokenize` value split into words as FTS5 splits it: bare words, or words quoted
    /// with ', ", ` or [ ] (a doubled quote inside stands for one).
    package static func words(of value: String) -> [String] {
        let bytes = Array(value.utf8)
        var words: [String] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                index += 1
                continue
            }
            var word: [UInt8] = []
            if let close = closingQuote(of: byte) {
                index += 1
                while index < bytes.count {
                    if bytes[index] == close {
                        if close != 0x5D, index + 1 < bytes.count, bytes[index + 1] == close {
                            word.append(close)
                            index += 2
                            continue
                        }
                        index += 1
                        break
                    }
                    word.append(bytes[index])
                    index += 1
                }
            } else {
                while index < bytes.count, isBareword(bytes[index]) {
                    word.append(bytes[index])
                    index += 1
                }
                if word.isEmpty { return [] }  // FTS5 refuses such an option; so does the digest
            }
            words.append(String(decoding: word, as: UTF8.self))
        }
        return words
    }

    private static func closingQuote(of byte: UInt8) -> UInt8? {
        switch byte {
        case 0x27, 0x22, 0x60: return byte
        case 0x5B: return 0x5D
        default: return nil
        }
    }

    /// FTS5's bare-word characters: letters, digits, '_', and every byte of a multi-byte
    /// UTF-8 character.
    private static func isBareword(_ byte: UInt8) -> Bool {
        byte >= 0x80 || byte == 0x5F || (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
}
