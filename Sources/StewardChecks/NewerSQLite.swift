import SQLiteKit

/// What a database written by a newer SQLite may use that the linked one (3.40 on Debian
/// 12) lacks, each with the release that introduced it, so that a schema object that
/// cannot be prepared is described as it is: the file needs a newer SQLite, not an
/// extension. Each version is from SQLite's release log (cited per entry); a feature is
/// named only when the linked SQLite is older than its release.
package enum NewerSQLite {
    package struct Feature: Sendable, Equatable {
        package enum Kind: String, Sendable {
            case fts5Option = "the FTS5 option"
            case trigramOption = "the trigram tokenizer's option"
            case function = "the SQL function"
        }

        package let kind: Kind
        package let name: String
        /// `3.47.0`.
        package let version: String
        /// The release log, or the page that documents the feature when the log does not.
        package let source: String

        package var versionNumber: Int {
            let parts = version.split(separator: ".").compactMap { Int($0) }
            guard parts.count == 3 else { return 0 }
            return parts[0] * 1_000_000 + parts[1] * 1_000 + parts[2]
        }

        package var shownName: String { kind == .function ? "\(name)()" : name }
    }

    package static let features: [Feature] = {
        func log(_ version: String) -> String {
            "https://sqlite.org/releaselog/\(version.replacingOccurrences(of: ".", with: "_")).html"
        }
        func functions(_ names: [String], _ version: String) -> [Feature] {
            names.map { Feature(kind: .function, name: $0, version: version, source: log(version)) }
        }
        return [
            // 3.43.0: "Add support for Contentless-Delete FTS5 Indexes".
            Feature(kind: .fts5Option, name: "contentless_delete", version: "3.43.0", source: log("3.43.0")),
            // 3.45.0: "Add the FTS5 tokendata option".
            Feature(kind: .fts5Option, name: "tokendata", version: "3.45.0", source: log("3.45.0")),
            // Not in the release log; documented with the trigram tokenizer, and first
            // accepted by 3.45.0.
            Feature(kind: .trigramOption, name: "remove_diacritics", version: "3.45.0",
                    source: "https://sqlite.org/fts5.html#the_trigram_tokenizer"),
            // 3.47.0: locale=1 (locale-aware tokenizers) and contentless_unindexed=1.
            Feature(kind: .fts5Option, name: "locale", version: "3.47.0", source: log("3.47.0")),
            Feature(kind: .fts5Option, name: "contentless_unindexed", version: "3.47.0", source: log("3.47.0")),
        ]
            + functions(["unhex"], "3.41.0")
            + functions(["timediff", "octet_length"], "3.43.0")
            + functions(["concat", "concat_ws", "string_agg"], "3.44.0")
            + functions(["jsonb", "jsonb_array", "jsonb_extract", "jsonb_group_array", "jsonb_group_object", "jsonb_insert",
                         "jsonb_object", "jsonb_patch", "jsonb_remove", "jsonb_replace", "jsonb_set"], "3.45.0")
            + functions(["json_pretty"], "3.46.0")
            + functions(["fts5_locale"], "3.47.0")
            + functions(["unistr", "unistr_quote"], "3.50.0")
    }()

    /// The newer SQLite's feature that SQLite's `message` points at, for an FTS5 table
    /// declared with `tokenizer` (its `tokenize` option, to tell a trigram option from
    /// another tokenizer error); nil when it is none of them, or when the linked SQLite is
    /// not older than its release.
    package static func feature(in message: String, tokenizer: String? = nil) -> Feature? {
        let found: Feature?
        if let option = quoted(after: "unrecognized option: ", in: message) {
            found = features.first { $0.kind == .fts5Option && $0.name.caseInsensitiveEquals(option) }
        } else if message.hasPrefix("no such function: ") {
            let name = String(message.dropFirst("no such function: ".count))
            found = features.first { $0.kind == .function && $0.name.caseInsensitiveEquals(name) }
        } else if message.contains("error in tokenizer constructor"), let tokenizer {
            let words = tokenizer.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { $0.lowercased() }
            found = words.first == "trigram"
                ? features.first { $0.kind == .trigramOption && words.contains($0.name) } : nil
        } else {
            found = nil
        }
        guard let found, SQLiteLibrary.versionNumber < found.versionNumber else { return nil }
        return found
    }

    /// An error's message as it may be shown (`SQLiteError.shownMessage`), or, when a newer
    /// SQLite's feature is behind it, SQLite's own message (it names the option or function,
    /// never a value) and what it means.
    package static func explained(_ error: SQLiteError, tokenizer: String? = nil) -> String {
        feature(in: error.message, tokenizer: tokenizer) == nil ? error.shownMessage : explained(error.message, tokenizer: tokenizer)
    }

    /// SQLite's message, and what it means when a newer SQLite's feature is behind it.
    package static func explained(_ message: String, tokenizer: String? = nil) -> String {
        guard let feature = feature(in: message, tokenizer: tokenizer) else { return message }
        return "\(message): \(feature.kind.rawValue) \(feature.shownName) came with SQLite \(feature.version) (\(feature.source)); "
            + "this file needs SQLite \(feature.version) or later, and the SQLite linked is \(SQLiteLibrary.version)"
    }

    /// `X` in `unrecognized option: "X"`.
    private static func quoted(after prefix: String, in message: String) -> String? {
        guard let range = message.range(of: prefix) else { return nil }
        let rest = message[range.upperBound...].filter { $0 != "\"" }
        return rest.isEmpty ? nil : String(rest)
    }
}
