import Foundation

/// One migration file: `NNNN_name.sql` or golang-migrate's `N_name.up.sql`.
public struct Migration: Sendable, Equatable {
    /// The numeric prefix: what `user_version` becomes once the migration is applied.
    public let version: Int32
    /// The file name, as shown in messages and reports.
    public let fileName: String
    public let path: String
    public let sql: String
}

/// A directory of migrations, ordered by version.
public struct MigrationSet: Sendable {
    public let directory: String
    public let migrations: [Migration]
    /// Files that are not migrations: `.down.sql` files and anything not ending in `.sql`.
    public let ignoredFiles: [String]

    /// The highest version in the set, or 0 for an empty set.
    public var newestVersion: Int32 { migrations.last?.version ?? 0 }

    /// Reads and checks a migration directory.
    ///
    /// - Throws: `.notFound` when the directory does not exist; `.badInput` naming the
    ///   file for a `.sql` file without a version prefix, a duplicate or out-of-range
    ///   version, or a file that is not UTF-8; `.badInput` naming every versioned file that
    ///   is not SQL (a code migration), and when the set holds no migration at all.
    public init(directory: String) throws {
        let names = try Self.entries(of: directory)
        try Self.refuseCodeMigrations(names, in: directory)

        var migrations: [Migration] = []
        var ignored: [String] = []
        var seen: [Int32: String] = [:]
        for name in names {
            guard name.hasSuffix(".sql"), !name.hasPrefix("."), !Self.isDirectory(directory, name) else {
                ignored.append(name)
                continue
            }
            if name.hasSuffix(".down.sql") {
                ignored.append(name)
                continue
            }
            let path = Paths.join(directory, name)
            guard let data = Paths.contents(of: path) else {
                throw StewardError(.notFound, "cannot read \(Self.display(directory, name))")
            }
            guard let sql = String(data: data, encoding: .utf8) else {
                throw StewardError(.badInput, "\(Self.display(directory, name)): not UTF-8 text")
            }
            // Before the version: goose and dbmate name files by 14-digit timestamps, and
            // the marker says more about such a file than the version's range does.
            if let marker = MigrationScript.sectionMarker(in: sql) {
                throw StewardError(
                    .badInput,
                    "\(Self.display(directory, name)):\(marker.line): '\(marker.text)' is a \(marker.runner) section marker; "
                        + "Steward runs a file whole, so its down section would undo its up section. "
                        + "Files in \(marker.runner)'s format are not supported")
            }
            let version = try Self.version(of: name, in: directory)
            if let other = seen[version] {
                throw StewardError(.badInput, "\(Self.display(directory, name)): version \(version) is also used by \(other)")
            }
            seen[version] = name
            migrations.append(Migration(version: version, fileName: name, path: path, sql: sql))
        }
        if migrations.isEmpty {
            throw StewardError(.badInput, Self.nothingFound(in: directory, names: names))
        }
        self.directory = directory
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.ignoredFiles = ignored
    }

    /// The names in a migrations directory, sorted, byte for byte; every layout reads
    /// its set from these.
    ///
    /// - Throws: `.notFound` when the directory does not exist or cannot be read;
    ///   `.badInput` when it is not a directory.
    static func entries(of directory: String) throws -> [String] {
        guard Paths.exists(directory) else {
            throw StewardError(.notFound, "\(directory): no such migrations directory")
        }
        guard Paths.isDirectory(directory) else {
            throw StewardError(.badInput, "\(directory) is not a directory of migrations")
        }
        do {
            return try Paths.names(in: directory).sorted()
        } catch {
            throw StewardError(.notFound, "cannot read the migrations directory \(directory): \(error.localizedDescription)")
        }
    }

    /// A code migration (`0216__x.js`, `20240101_x.go`, `V3__x.java`) usually moves data
    /// that a later SQL file then drops: running the SQL files around it loses that data
    /// with every statement succeeding, so the whole set is refused (in every layout)
    /// before anything runs, naming each such file.
    static func refuseCodeMigrations(_ names: [String], in directory: String) throws {
        let codeMigrations = names.filter { looksVersioned($0) && !$0.hasSuffix(".sql") && !isDirectory(directory, $0) }
        try refuse(codeMigrations: codeMigrations, in: directory, runner: nil)
    }

    /// Refuses the set when it holds `codeMigrations` (versioned files that are not SQL, or
    /// that `runner` runs as code), naming every one.
    static func refuse(codeMigrations: [String], in directory: String, runner: String?) throws {
        guard codeMigrations.isEmpty else {
            let list = codeMigrations.map { display(directory, $0) }.joined(separator: ", ")
            throw StewardError(
                .badInput,
                "\(directory) holds versioned files that \(runner.map { "\($0) runs as code and " } ?? "")are not SQL, which Steward cannot run: \(list); "
                    + "running the SQL files without them can lose the data they move, so nothing was run")
        }
    }

    /// Refuses the set when it holds `code`: versioned source files that `runner` skips,
    /// but that the application runs around its migrations.
    static func refuse(applicationCode code: [String], in directory: String, runner: String) throws {
        guard code.isEmpty else {
            let list = code.map { display(directory, $0) }.joined(separator: ", ")
            throw StewardError(
                .badInput,
                "\(directory) holds versioned code files beside its migrations: \(list); \(runner) itself skips them, but an application that keeps code there runs it around its migrations (moving data the next SQL file may drop), and Steward cannot, so nothing was run")
        }
    }

    /// The extensions of source code that applications write code migrations in.
    static let codeExtensions: Set<String> = [
        "go", "js", "mjs", "cjs", "ts", "mts", "cts", "py", "rb", "rs", "java", "kt", "kts", "scala", "groovy",
        "php", "cs", "ex", "exs", "lua", "pl", "swift", "sh", "bash",
    ]

    /// A versioned name (`looksVersioned`) of a source-code file (`20240101_move.go`).
    static func isVersionedCode(_ name: String) -> Bool {
        guard looksVersioned(name), let dot = name.lastIndex(of: ".") else { return false }
        return codeExtensions.contains(name[name.index(after: dot)...].lowercased())
    }

    /// `^[0-9]+[_.-]` or Flyway's `^[VUR][0-9._]*__`: names that version a migration in
    /// some runner's layout.
    static func looksVersioned(_ name: String) -> Bool {
        let scalars = Array(name.unicodeScalars)
        let digits = scalars.prefix { ("0"..."9").contains($0) }
        if !digits.isEmpty, digits.count < scalars.count, "_.-".unicodeScalars.contains(scalars[digits.count]) {
            return true
        }
        guard let first = scalars.first, "VUR".unicodeScalars.contains(first) else { return false }
        // Any prefix of the run of digits, dots and underscores that ends in `__` matches.
        let run = Array(scalars.dropFirst().prefix { ("0"..."9").contains($0) || $0 == "." || $0 == "_" })
        return zip(run, run.dropFirst()).contains { $0 == "_" && $1 == "_" }
    }

    static func isDirectory(_ directory: String, _ name: String) -> Bool {
        Paths.isDirectory(Paths.join(directory, name))
    }

    /// The error for a set without a migration, naming what the directory holds instead:
    /// an empty success would tell a release that a database is up to date when the set
    /// was simply read the wrong way (diesel keeps one directory per migration).
    static func nothingFound(in directory: String, names: [String]) -> String {
        let visible = names.filter { !$0.hasPrefix(".") }
        var found: [String] = []
        let subdirectories = visible.filter { isDirectory(directory, $0) }
        let withSQL = subdirectories.filter { name in
            let inside = (try? FileManager.default.contentsOfDirectory(atPath: Paths.join(directory, name))) ?? []
            return inside.contains { $0.hasSuffix(".sql") }
        }
        if !withSQL.isEmpty {
            let examples = withSQL.prefix(3).map { name -> String in
                let inside = ((try? FileManager.default.contentsOfDirectory(atPath: Paths.join(directory, name))) ?? []).sorted()
                return Paths.join(name, inside.first { $0 == "up.sql" } ?? inside.first { $0.hasSuffix(".sql") } ?? "")
            }
            let more = withSQL.count > 3 ? " and \(withSQL.count - 3) more" : ""
            let layout = withSQL.contains { name in FileManager.default.fileExists(atPath: Paths.join(Paths.join(directory, name), "up.sql")) }
                ? " (one directory per migration with up.sql, as diesel lays them out)" : ""
            found.append("\(withSQL.count) subdirector\(withSQL.count == 1 ? "y" : "ies") with SQL files: \(examples.joined(separator: ", "))\(more)\(layout)")
        }
        let otherDirectories = subdirectories.filter { !withSQL.contains($0) }
        if !otherDirectories.isEmpty {
            found.append("subdirectories \(otherDirectories.prefix(5).joined(separator: ", "))\(otherDirectories.count > 5 ? ", …" : "")")
        }
        let files = visible.filter { !subdirectories.contains($0) }
        if !files.isEmpty {
            found.append("files that are not migrations: \(files.prefix(5).joined(separator: ", "))\(files.count > 5 ? ", …" : "")")
        }
        let what = found.isEmpty ? "the directory is empty" : "found " + found.joined(separator: "; ")
        return "no migrations found in \(directory): \(what). Steward runs NNNN_name.sql (or N_name.up.sql) files "
            + "in the directory itself"
    }

    /// The version prefix of a migration file name.
    static func version(of name: String, in directory: String) throws -> Int32 {
        let digits = name.prefix { $0.isASCII && $0.isNumber }
        let rest = name.dropFirst(digits.count)
        guard !digits.isEmpty, rest.hasPrefix("_") || rest.hasPrefix(".") else {
            throw StewardError(
                .badInput,
                "\(display(directory, name)): a migration file name must start with its version, like 0001_name.sql")
        }
        let trimmed = digits.drop { $0 == "0" }
        guard let value = Int64(trimmed.isEmpty ? "0" : String(trimmed)), trimmed.count <= 10,
              (1...Int64(Int32.max)).contains(value)
        else {
            throw StewardError(
                .badInput,
                "\(display(directory, name)): version \(digits) is out of range (1 to \(Int32.max), the range of user_version)",
                remedy: .chooseDialect)
        }
        return Int32(value)
    }

    static func display(_ directory: String, _ name: String) -> String {
        Paths.join(directory, name)
    }

    /// The migrations after `current` up to and including `target`.
    public func pending(after current: Int32, upTo target: Int32) -> [Migration] {
        migrations.filter { $0.version > current && $0.version <= target }
    }
}
