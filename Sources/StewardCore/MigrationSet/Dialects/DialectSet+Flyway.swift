import Foundation
import StewardBase

/// Flyway's file collector, as flyway/flyway flyway-13.0.0 flyway-core reads a filesystem
/// location: internal/scanner/filesystem/FileSystemScanner.java (the directory and its
/// subdirectories, hidden subdirectories skipped), internal/resource/ResourceNameParser.java
/// (prefix `V`, `U` or `R`, case as written; version; `__`; description; suffix `.sql` in
/// any case), api/MigrationVersion.java (versions) and internal/resolver/sql/
/// SqlMigrationResolver.java (a name that does not parse is skipped, callbacks apart).
extension DialectSet {
    /// The callbacks Flyway runs from SQL files named after them (api/callback/Event.java).
    static let flywayCallbacks: Set<String> = [
        "beforeClean", "afterClean", "afterCleanError", "beforeMigrate", "beforeEachMigrate",
        "beforeEachMigrateStatement", "afterEachMigrateStatement", "afterEachMigrateStatementError",
        "afterEachMigrate", "afterEachMigrateError", "beforeRepeatables", "afterVersioned",
        "afterMigrateApplied", "afterMigrate", "afterMigrateError", "beforeUndo", "beforeEachUndo",
        "beforeEachUndoStatement", "afterEachUndoStatement", "afterEachUndoStatementError", "afterEachUndo",
        "afterEachUndoError", "afterUndo", "afterUndoError", "beforeValidate", "afterValidate",
        "afterValidateError", "beforeBaseline", "afterBaseline", "afterBaselineError", "beforeRepair",
        "afterRepair", "afterRepairError", "beforeInfo", "afterInfo", "afterInfoError",
        "afterMigrateOperationFinish", "afterInfoOperationFinish", "createSchema", "beforeCreateSchema",
        "beforeConnect", "afterConnect",
    ]

    /// Script migrations (internal/resolver/script/ScriptMigrationResolver.java) and Java
    /// or Kotlin ones: code Flyway runs, which Steward cannot.
    static let flywayCodeSuffixes = [".cmd", ".bat", ".ps1", ".py", ".sh", ".bash", ".java", ".kt", ".class"]

    /// What a file name is to Flyway.
    enum FlywayName: Equatable {
        case versioned(version: String, description: String)
        case repeatable, undo, callback
        /// A name Flyway skips (not its suffix or prefix, or a version it cannot read).
        case none
    }

    /// `name` (a file name, no directory) read with `suffix` (Flyway compares it without case).
    static func flywayName(_ name: String, suffix: String = ".sql") -> FlywayName {
        guard name.count > suffix.count + 1, name.uppercased().hasSuffix(suffix.uppercased()) else { return .none }
        let base = String(name.dropLast(suffix.count))
        if flywayCallbacks.contains(where: { base == $0 || base.hasPrefix($0 + "__") }) { return .callback }
        guard let kind = base.first, "VUR".contains(kind) else { return .none }
        let rest = base.dropFirst()
        let separator = rest.range(of: "__")
        let version = separator.map { String(rest[..<$0.lowerBound]) } ?? String(rest)
        let description = separator.map { String(rest[$0.upperBound...]) } ?? ""
        if kind == "R" { return version.isEmpty ? .repeatable : .none }
        guard !version.isEmpty, VersionKey(version, dotted: true) != nil else { return .none }
        return kind == "U" ? .undo : .versioned(version: version, description: description)
    }

    /// The files under `directory`, as paths relative to it, sorted; hidden subdirectories
    /// are skipped, hidden files are not (FileSystemScanner).
    static func flywayFiles(in directory: String, under prefix: String = "") throws -> [String] {
        var files: [String] = []
        for name in try Paths.names(in: Paths.join(directory, prefix.isEmpty ? "." : prefix)).sorted() {
            let relative = prefix.isEmpty ? name : Paths.join(prefix, name)
            if isDirectory(Paths.join(directory, relative)) {
                if !name.hasPrefix(".") { files += try flywayFiles(in: directory, under: relative) }
            } else {
                files.append(relative)
            }
        }
        return files
    }
}

extension DialectSet.Reader {
    /// Versioned migrations (`V<version>__<description>.sql`), in any subdirectory; versions
    /// with `.` or `_` between digit groups, compared as numbers part by part. Refused:
    /// repeatable migrations (`R__`) and SQL callbacks (`afterMigrate.sql`), which Flyway
    /// runs and Steward does not; a script configuration (`V1__x.sql.conf`), whose settings
    /// Steward does not read; script, Java and Kotlin migrations (code). Undo migrations
    /// (`U1__x.sql`) run only with `flyway undo` and are ignored, as migrate ignores them.
    mutating func readFlyway(placeholders: FlywayPlaceholders?) throws {
        let files = try DialectSet.flywayFiles(in: directory)
        for file in files {
            let name = Paths.fileName(of: file)
            let kind = DialectSet.flywayName(name)
            if name.hasSuffix(".conf"), case .versioned = DialectSet.flywayName(String(name.dropLast(5))) {
                throw StewardError(
                    .badInput,
                    "\(display(file)): a Flyway script configuration (executeInTransaction, encoding, placeholderReplacement, shouldExecute), which Steward does not read, so it refuses the set (run it with Flyway)")
            }
            switch kind {
            case .versioned(let versionText, let description):
                guard let version = VersionKey(versionText, dotted: true) else { continue }
                let (bytes, text) = try read(file)
                let upSQL = try placeholders.map { try $0.replace(in: text, file: file) } ?? text
                migrations.append(DialectMigration(
                    version: version, ledgerVersion: versionText.replacingOccurrences(of: "_", with: "."),
                    fileName: file, path: display(file),
                    description: description.replacingOccurrences(of: "_", with: " "), bytes: bytes, upSQL: upSQL))
            case .repeatable:
                throw StewardError(
                    .badInput,
                    "\(display(file)): a repeatable migration (R__), which Flyway runs after the versioned ones whenever it changes; Steward runs only versioned migrations (V), so it refuses the set (run it with Flyway)")
            case .callback:
                throw StewardError(
                    .badInput,
                    "\(display(file)): a Flyway SQL callback, which Flyway runs around its commands; Steward does not, so it refuses the set (run it with Flyway)")
            case .undo:
                ignored.append("\(file) (an undo migration, run only by flyway undo)")
            case .none:
                let code = DialectSet.flywayCodeSuffixes.first { suffix in
                    switch DialectSet.flywayName(name, suffix: suffix) {
                    case .versioned, .repeatable: true
                    default: false
                    }
                }
                if code != nil {
                    codeMigrations.append(file)
                } else {
                    ignored.append(file)
                }
            }
        }
    }
}

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
