import Foundation

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
