import Foundation

/// Flyway's placeholder replacement, as flyway/flyway flyway-13.0.0
/// flyway-core/src/main/java/org/flywaydb/core/internal/parser/PlaceholderReplacingReader.java
/// does it (with the default prefix `${`, suffix `}` and separator `:`): over the whole text,
/// comments and string literals included, every `${NAME}` is replaced by NAME's value, names
/// compared without case; a name without a value fails the migration. Flyway's reader
/// looks for `${` two characters at a time, so the `{` of `$${x}` is not seen as one (the
/// text stays as written). The built-in `flyway:` placeholders are those
/// internal/parser/ParsingContext.java gives a SQLite database.
public struct FlywayPlaceholders: Sendable, Equatable {
    /// The values given by the caller, by lower-cased name.
    let given: [String: String]

    public init(_ values: [String: String]) {
        var given: [String: String] = [:]
        for (name, value) in values { given[name.lowercased()] = value }
        self.given = given
    }

    /// The built-in value of `name` (lower-cased) for `file`, when Steward knows what Flyway
    /// gives on SQLite: `flyway:defaultSchema` is `main` (SQLiteConnection's current schema),
    /// `flyway:user` is empty (SQLiteDatabase's current user), `flyway:table` is the ledger
    /// table, `flyway:filename` the file's name, `flyway:workingDirectory` the current
    /// directory and `flyway:timestamp` the local time as `yyyy-MM-dd HH:mm:ss`. Flyway sets
    /// them after the configured ones, so they win. `flyway:database` (SQLite's JDBC catalog,
    /// which is null: Flyway fails) and `flyway:environment` (Flyway's configuration) have
    /// none here.
    static func builtIn(_ name: String, file: String) -> String? {
        switch name {
        case "flyway:defaultschema": "main"
        case "flyway:user": ""
        case "flyway:table": "flyway_schema_history"
        case "flyway:filename": Paths.fileName(of: file)
        case "flyway:workingdirectory": Paths.currentDirectory()
        case "flyway:timestamp": timestamp()
        default: nil
        }
    }

    static func timestamp() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: Date())
    }

    /// `text` with its placeholders replaced.
    ///
    /// - Throws: `.badInput` naming `file`, the line and the placeholder, for a placeholder
    ///   without a value (the remedy says how to give one) or a `${` without its `}`.
    func replace(in text: String, file: String) throws -> String {
        let scalars = Array(text.unicodeScalars)
        guard scalars.contains("$") else { return text }
        var result = String.UnicodeScalarView()
        var pending: [Unicode.Scalar] = []
        var index = 0
        func line(at position: Int) -> Int {
            scalars[..<min(position, scalars.count)].reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
        }
        while true {
            if !pending.isEmpty {
                result.append(pending.removeFirst())
                continue
            }
            // Read ahead while what is read could still start the prefix.
            repeat {
                guard index < scalars.count else { break }
                pending.append(scalars[index])
                index += 1
            } while pending.count < 2 && pending == [Unicode.Scalar("$"), "{"].prefix(pending.count).map { $0 }
            guard pending.count == 2, pending == ["$", "{"] else {
                if pending.isEmpty { break }
                result.append(pending.removeFirst())
                continue
            }
            pending = []
            let start = index - 2
            var name: [Unicode.Scalar] = []
            while index < scalars.count, name.last != "}" {
                name.append(scalars[index])
                index += 1
            }
            guard name.last == "}" else {
                throw StewardError(.badInput, "\(file):\(line(at: start)): a Flyway placeholder '${' without its '}'; Flyway fails on this file")
            }
            name.removeLast()
            let text = String(String.UnicodeScalarView(name))
            let key = text.lowercased()
            guard let value = Self.builtIn(key, file: file) ?? given[key] else {
                let what = key.hasPrefix("flyway:")
                    ? "'${\(text)}' is a built-in Flyway placeholder whose value on SQLite Steward does not know (Flyway itself fails on '${flyway:database}', SQLite having no catalog)"
                    : "the Flyway placeholder '${\(text)}' has no value: Flyway replaces it everywhere in the file, string literals and comments included, and fails without one"
                throw StewardError(.badInput, "\(file):\(line(at: start)): \(what)", remedy: .givePlaceholder(name: text))
            }
            result.append(contentsOf: value.unicodeScalars)
        }
        return String(result)
    }
}
