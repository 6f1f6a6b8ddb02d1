import Foundation
import StewardBase

extension DialectSet {
    /// Reads the files of one layout, each as its runner's released file collector does;
    /// the rules, with the runner's repository, tag and file, are in docs/conformance/.
    struct Reader {
        let directory: String
        var migrations: [DialectMigration] = []
        var ignored: [String] = []
        /// Versioned files the runner runs as code, which Steward cannot.
        var codeMigrations: [String] = []

        init(directory: String) {
            self.directory = directory
        }

        func display(_ name: String) -> String { Paths.join(directory, name) }

        func isDirectory(_ name: String) -> Bool { DialectSet.isDirectory(display(name)) }

        func read(_ name: String) throws -> (bytes: [UInt8], text: String) {
            guard let data = Paths.contents(of: Paths.join(directory, name)) else {
                throw StewardError(.notFound, "cannot read \(display(name))")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw StewardError(.badInput, "\(display(name)): not UTF-8 text")
            }
            return ([UInt8](data), text)
        }

        /// The down part kept in a file of its own, `name` in the set's directory. A file
        /// that cannot be read as text refuses only a down run: an upgrade never read it.
        func downFile(_ name: String) -> DownPart {
            do {
                let (_, text) = try read(name)
                return DownPart(fileName: name, path: display(name), sql: text)
            } catch let error as StewardError {
                return DownPart(fileName: name, path: display(name), sql: "", refusal: error.message)
            } catch {
                return DownPart(fileName: name, path: display(name), sql: "", refusal: "cannot read \(display(name))")
            }
        }

        /// A down part kept as a section of the migration's own file.
        func downSection(_ section: UpSection.DownSection, of name: String) -> DownPart {
            DownPart(fileName: name, path: display(name), sql: section.sql, refusal: section.refusal)
        }

        /// The leading ASCII digits of `name`.
        static func leadingDigits(_ name: String) -> String {
            String(name.unicodeScalars.prefix { ("0"..."9").contains($0) })
        }

        /// A version of digits as a runner that parses a signed or unsigned 64-bit integer
        /// reads it, or why not.
        func integerVersion(_ digits: String, of name: String, runner: String, minimum: Int64) throws -> VersionKey {
            guard let key = VersionKey(digits), let value = key.integer else {
                throw StewardError(.badInput, "\(display(name)): version \(digits) does not fit \(runner)'s 64-bit versions")
            }
            guard value >= minimum else {
                throw StewardError(.badInput, "\(display(name)): version \(digits) is below \(minimum), which \(runner) refuses")
            }
            return key
        }

        /// Go's `strconv.ParseInt` and Rust's `i64::from_str` read a sign (`+5_x.sql` is
        /// version 5 to goose and sqlx); Steward reads versions of digits only.
        func refuseSigned(_ digits: String, of name: String, runner: String) throws {
            guard let sign = digits.first, sign == "+" || sign == "-", VersionKey(String(digits.dropFirst())) != nil else { return }
            throw StewardError(
                .badInput,
                "\(display(name)): version \(digits) has a sign, which \(runner) reads but Steward does not (its versions are digits); rename the file without it")
        }

        /// sqlx's description, which its ledger records: the name after the first `_`,
        /// without its suffix, `_` read as spaces.
        static func description(_ rest: Substring, suffix: String) -> String {
            var rest = rest
            // Rust's trim_end_matches removes the suffix as often as it repeats.
            while rest.hasSuffix(suffix) { rest = rest.dropLast(suffix.count) }
            return rest.replacingOccurrences(of: "_", with: " ")
        }

        // MARK: - steward

        /// Steward's own layout (docs/conformance/steward.md): the `.sql` files of the
        /// directory itself, not hidden, `.down.sql` files ignored; the version is the leading
        /// digits, followed by `_` or `.`, from 1 to 2147483647 (what `user_version` holds).
        /// A versioned file that is not SQL, a goose or dbmate section marker, or a duplicate
        /// version refuses the set. The whole file runs.
        mutating func readSteward(_ names: [String]) throws {
            try DialectSet.refuseCodeMigrations(names, in: directory)
            var seen: [Int32: String] = [:]
            for name in names {
                guard name.hasSuffix(".sql"), !name.hasPrefix("."), !isDirectory(name) else {
                    ignored.append(name)
                    continue
                }
                if name.hasSuffix(".down.sql") {
                    ignored.append(name)
                    continue
                }
                let (bytes, sql) = try read(name)
                // Before the version: goose and dbmate name files by 14-digit timestamps, and
                // the marker says more about such a file than the version's range does.
                if let marker = Self.sectionMarker(in: sql) {
                    throw StewardError(
                        .badInput,
                        "\(display(name)):\(marker.line): '\(marker.text)' is a \(marker.runner.rawValue) section marker; "
                            + "Steward runs a file whole, so its down section would undo its up section. "
                            + "Files in \(marker.runner.rawValue)'s format are not supported")
                }
                let version = try stewardVersion(of: name)
                if let other = seen[version] {
                    throw StewardError(.badInput, "\(display(name)): version \(version) is also used by \(other)")
                }
                seen[version] = name
                // `NNNN_name.sql` (or `N_name.up.sql`) is taken back by `NNNN_name.down.sql`.
                var base = name.dropLast(".sql".count)
                if base.hasSuffix(".up") { base = base.dropLast(".up".count) }
                let downName = String(base) + ".down.sql"
                let down = names.contains(downName) && !isDirectory(downName) ? downFile(downName) : nil
                migrations.append(DialectMigration(
                    version: VersionKey(Int64(version)), ledgerVersion: String(version), fileName: name, path: display(name),
                    description: name, bytes: bytes, upSQL: sql, down: down))
            }
        }

        /// The version prefix of a file name in Steward's own layout.
        func stewardVersion(of name: String) throws -> Int32 {
            let digits = name.prefix { $0.isASCII && $0.isNumber }
            let rest = name.dropFirst(digits.count)
            guard !digits.isEmpty, rest.hasPrefix("_") || rest.hasPrefix(".") else {
                throw StewardError(
                    .badInput,
                    "\(display(name)): a migration file name must start with its version, like 0001_name.sql")
            }
            let trimmed = digits.drop { $0 == "0" }
            guard let value = Int64(trimmed.isEmpty ? "0" : String(trimmed)), trimmed.count <= 10,
                  (1...Int64(Int32.max)).contains(value)
            else {
                throw StewardError(
                    .badInput,
                    "\(display(name)): version \(digits) is out of range (1 to \(Int32.max), the range of user_version)",
                    remedy: .chooseDialect)
            }
            return Int32(value)
        }

        /// The first goose (`-- +goose Up`, `-- +goose Down`, any `-- +goose` annotation) or
        /// dbmate (`-- migrate:up`, `-- migrate:down`) marker. Both runners read them line by
        /// line, as this does. Steward's own layout refuses a file that has one.
        static func sectionMarker(in sql: String) -> (line: Int, text: String, runner: Dialect)? {
            for (index, rawLine) in sql.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = Substring(rawLine).trimmingWhitespaceAndNewlines()
                guard line.hasPrefix("--") else { continue }
                let comment = line.dropFirst(2).trimmingWhitespace().lowercased()
                let shown = String(line.prefix(60))
                if comment.hasPrefix("+goose") {
                    return (index + 1, shown, .goose)
                }
                if comment.hasPrefix("migrate:up") || comment.hasPrefix("migrate:down") {
                    return (index + 1, shown, .dbmate)
                }
            }
            return nil
        }

        // MARK: - goose

        /// pressly/goose v3.27.3 migrate.go (`collectMigrationsFS`, `collectGoMigrations`)
        /// and migration.go (`NumericComponent`): the files matching `*.sql` and `*.go` in
        /// the directory itself; everything else is ignored. Every `.sql` file is a
        /// migration, `.down.sql` included, whose version (before its first `_`, a 64-bit
        /// integer of at least 1) goose must read, or it refuses the set. A `.go` file with
        /// a version is a Go migration (refused: Steward cannot run it); one without (a
        /// helper) and `_test.go` files are ignored.
        mutating func readGoose(_ names: [String]) throws {
            // The Go migrations first: they decide the set before any file's text does.
            codeMigrations = names.filter { name in
                let version = name.split(separator: "_", maxSplits: 1, omittingEmptySubsequences: false)
                return name.hasSuffix(".go") && !name.hasSuffix("_test.go") && version.count == 2
                    && (VersionKey(String(version[0]))?.integer ?? 0) >= 1 && !isDirectory(name)
            }
            if !codeMigrations.isEmpty {
                try DialectSet.refuse(codeMigrations: codeMigrations, in: directory, runner: .goose)
            }
            for name in names {
                guard !isDirectory(name), name.hasSuffix(".sql") || name.hasSuffix(".go") else {
                    ignored.append(name)
                    continue
                }
                let version = name.split(separator: "_", maxSplits: 1, omittingEmptySubsequences: false)
                let digits = String(version[0])
                if name.hasSuffix(".go") {
                    ignored.append(name)
                    continue
                }
                try refuseSigned(digits, of: name, runner: "goose")
                guard version.count == 2, VersionKey(digits) != nil else {
                    throw StewardError(
                        .badInput,
                        "\(display(name)): goose reads the version of every .sql file from the digits before its first '_' (like 00001_name.sql), and refuses a set with a file whose version it cannot read")
                }
                let key = try integerVersion(digits, of: name, runner: "goose", minimum: 1)
                let (bytes, text) = try read(name)
                let parts = try UpSection.gooseParts(text, file: name)
                migrations.append(DialectMigration(
                    version: key, ledgerVersion: digits, fileName: name, path: display(name),
                    description: Self.description(version[1], suffix: ".sql"), bytes: bytes,
                    upSQL: parts.up, down: parts.down.map { downSection($0, of: name) }))
            }
        }

        // MARK: - dbmate

        /// amacneil/dbmate v2.35.0 pkg/dbmate/db.go (`FindMigrations`): every file (not a
        /// directory) whose name matches `^(\d+).*\.sql$`, `.down.sql` included; the version is
        /// the digits as written, kept as text. dbmate runs them in the order of their file
        /// names (`sort.Slice` on `FileName`), not of their versions.
        mutating func readDbmate(_ names: [String]) throws {
            for name in names {
                let digits = Self.leadingDigits(name)
                guard !isDirectory(name), !digits.isEmpty, name.hasSuffix(".sql"), !name.unicodeScalars.contains("\n"),
                      let key = VersionKey(text: digits) else {
                    ignored.append(name)
                    continue
                }
                let (bytes, text) = try read(name)
                let rest = name.dropFirst(digits.count)
                let parts = try UpSection.dbmateParts(text, file: name)
                migrations.append(DialectMigration(
                    version: key, ledgerVersion: digits, fileName: name, path: display(name),
                    description: Self.description(rest.hasPrefix("_") ? rest.dropFirst() : rest, suffix: ".sql"),
                    bytes: bytes, upSQL: parts.up, down: downSection(parts.down, of: name)))
            }
        }

        // MARK: - golang-migrate

        /// golang-migrate/migrate v4.19.1 source/parse.go: `^([0-9]+)_(.*)\.(down|up)\.(.*)$`,
        /// whatever follows the direction (`30_x.up..sql` and `1_x.up.txt` are migrations:
        /// the file's text goes to the database as it is). The identifier is greedy, so the
        /// direction is the last `.up.` or `.down.`. Nil for a name that does not match.
        static func golangMigrateName(_ name: String) -> (digits: String, identifier: Substring, isUp: Bool)? {
            guard !name.unicodeScalars.contains("\n") else { return nil }
            let digits = leadingDigits(name)
            let rest = name.dropFirst(digits.count)
            guard !digits.isEmpty, rest.hasPrefix("_") else { return nil }
            let tail = Array(rest.dropFirst().unicodeScalars)
            for start in stride(from: tail.count - 1, through: 0, by: -1) where tail[start] == "." {
                let after = tail[(start + 1)...]
                for (word, isUp) in [("up.", true), ("down.", false)] where after.starts(with: word.unicodeScalars) {
                    return (digits, Substring(String(String.UnicodeScalarView(tail[..<start]))), isUp)
                }
            }
            return nil
        }

        /// The files of source/iofs/iofs.go (`Init`): not directories, matching the pattern.
        /// A version that does not fit `strconv.ParseUint`'s 64 bits is skipped by
        /// golang-migrate (ignored here too); a version with only a down file is one
        /// golang-migrate passes over, recording it without running anything (refused).
        mutating func readGolangMigrate(_ names: [String]) throws {
            var upVersions = Set<VersionKey>()
            var downOnly: [VersionKey: String] = [:]
            var ups: [(version: VersionKey, name: String, digits: String, identifier: Substring)] = []
            for name in names {
                guard !isDirectory(name), let parsed = Self.golangMigrateName(name),
                      let key = VersionKey(parsed.digits), key.parts[0].count <= 20, UInt64(key.parts[0]) != nil else {
                    ignored.append(name)
                    continue
                }
                guard parsed.isUp else {
                    ignored.append(name)
                    downOnly[key] = downOnly[key] ?? name
                    continue
                }
                let version = try integerVersion(parsed.digits, of: name, runner: "golang-migrate", minimum: 0)
                upVersions.insert(version)
                ups.append((version, name, parsed.digits, parsed.identifier))
            }
            // golang-migrate pairs an up file with the down file of the same version
            // (source/migration.go, `Migrations.Append`), whatever their identifiers.
            for up in ups {
                let (bytes, text) = try read(up.name)
                migrations.append(DialectMigration(
                    version: up.version, ledgerVersion: up.digits, fileName: up.name, path: display(up.name),
                    description: up.identifier.replacingOccurrences(of: "_", with: " "), bytes: bytes, upSQL: text,
                    down: downOnly[up.version].map(downFile)))
            }
            if let found = downOnly.filter({ !upVersions.contains($0.key) }).min(by: { $0.key < $1.key }) {
                throw StewardError(
                    .badInput,
                    "\(display(found.value)): version \(found.key) has a down file and no up file; golang-migrate passes over such a version, recording it without running anything, and Steward refuses the set rather than guess (add its up file, or remove this one)")
            }
        }

        // MARK: - sqlx

        /// launchbadge/sqlx v0.8.6 sqlx-core/src/migrate/source.rs (`resolve_blocking`): every
        /// file (not a directory) whose name has a `_` and ends with `.sql` after it; others
        /// are ignored. The part before the first `_` must be a 64-bit integer, or sqlx
        /// refuses the set (`.1_x.sql` and `V1__x.sql` included). `.down.sql` files are the
        /// reverse migrations.
        mutating func readSqlx(_ names: [String]) throws {
            // sqlx reverts a version with its `.down.sql` file (sqlx-core/src/migrate/source.rs:
            // `ReversibleDown`, matched by version in migrator.rs `undo`).
            var downs: [VersionKey: String] = [:]
            for name in names where name.hasSuffix(".down.sql") && !isDirectory(name) {
                let parts = name.split(separator: "_", maxSplits: 1, omittingEmptySubsequences: false)
                if parts.count == 2, let key = VersionKey(String(parts[0])), downs[key] == nil { downs[key] = name }
            }
            for name in names {
                let parts = name.split(separator: "_", maxSplits: 1, omittingEmptySubsequences: false)
                guard !isDirectory(name), parts.count == 2, parts[1].hasSuffix(".sql") else {
                    ignored.append(name)
                    continue
                }
                let digits = String(parts[0])
                try refuseSigned(digits, of: name, runner: "sqlx")
                guard VersionKey(digits) != nil else {
                    throw StewardError(
                        .badInput,
                        "\(display(name)): sqlx reads the version of every NAME_x.sql file from the digits before its first '_' (like 20240101120000_name.sql), and refuses a set with one it cannot read")
                }
                if parts[1].hasSuffix(".down.sql") {
                    ignored.append(name)
                    continue
                }
                let version = try integerVersion(digits, of: name, runner: "sqlx", minimum: 0)
                let (bytes, text) = try read(name)
                // sqlx runs a file whose text starts with `-- no-transaction` outside any
                // transaction (the bytes: a byte-order mark before it is text too).
                if bytes.starts(with: Array("-- no-transaction".utf8)) {
                    throw StewardError(
                        .badInput,
                        "\(name):1: '-- no-transaction' asks for the file to run outside a transaction; Steward runs every migration inside one transaction, all or nothing, so it refuses this file (run it with sqlx)")
                }
                migrations.append(DialectMigration(
                    version: version, ledgerVersion: digits, fileName: name, path: display(name),
                    description: Self.description(parts[1], suffix: parts[1].hasSuffix(".up.sql") ? ".up.sql" : ".sql"),
                    bytes: bytes, upSQL: text, down: downs[version].map(downFile)))
            }
        }

        // MARK: - diesel

        /// diesel-rs/diesel v2.3.12 diesel_migrations/migrations_internals/src/lib.rs
        /// (`migrations_directories`, `valid_sql_migration_directory`, `version_from_string`)
        /// and diesel_migrations/src/file_based_migrations.rs: every entry not starting with
        /// `.` that is not a file and not an empty directory is a migration and must hold
        /// `up.sql` (else diesel refuses the set); files beside them are ignored. The version
        /// is the name up to its first `_`, dashes removed, kept as text: diesel orders
        /// versions as strings (`MigrationVersion` wraps one).
        mutating func readDiesel(_ names: [String]) throws {
            for name in names {
                let folder = display(name)
                guard !name.hasPrefix("."), DialectSet.isDirectory(folder) else {
                    ignored.append(name)
                    continue
                }
                let inside = (try? Paths.names(in: folder)) ?? []
                if inside.isEmpty {
                    ignored.append(name)
                    continue
                }
                guard inside.contains("up.sql") else {
                    throw StewardError(.badInput, "\(folder): a diesel migration folder without up.sql; diesel refuses the set too")
                }
                let up = Paths.join(name, "up.sql")
                let versionText = String(name.split(separator: "_", maxSplits: 1, omittingEmptySubsequences: false)[0])
                    .replacingOccurrences(of: "-", with: "")
                guard let version = VersionKey(text: versionText) else {
                    throw StewardError(.badInput, "\(folder): the folder name must start with its version, like 2024-01-01-000000_name")
                }
                let metadata = Paths.join(name, "metadata.toml")
                if let data = Paths.contents(of: display(metadata)) {
                    switch Self.runInTransaction(String(decoding: data, as: UTF8.self)) {
                    case true?:
                        break
                    case false?:
                        throw StewardError(
                            .badInput,
                            "\(display(metadata)): run_in_transaction = false asks for the migration to run outside a transaction; Steward runs every migration inside one transaction, all or nothing, so it refuses this folder (run it with diesel)")
                    case nil:
                        throw StewardError(
                            .badInput,
                            "\(display(metadata)) does not set run_in_transaction, which diesel then reads as false (serde's default for the field), running the migration outside a transaction; Steward runs every migration inside one, so it refuses this folder (write run_in_transaction = true, or run it with diesel)")
                    }
                }
                let (bytes, text) = try read(up)
                let downName = Paths.join(name, "down.sql")
                let down = inside.contains("down.sql") && !isDirectory(downName) ? downFile(downName) : nil
                migrations.append(DialectMigration(
                    version: version, ledgerVersion: versionText, fileName: up, path: display(up),
                    description: String(name.drop { $0 != "_" }.dropFirst()), bytes: bytes, upSQL: text, down: down))
            }
        }

        /// The top-level `run_in_transaction` of metadata.toml, nil when it has none.
        static func runInTransaction(_ toml: String) -> Bool? {
            for line in toml.split(whereSeparator: \.isNewline) {
                let trimmed = line.trimmingWhitespace()
                if trimmed.hasPrefix("[") { break }
                let pair = trimmed.split(separator: "=", maxSplits: 1).map { $0.trimmingWhitespace() }
                if pair.count == 2, pair[0] == "run_in_transaction" {
                    switch pair[1].split(separator: "#").first?.trimmingWhitespace() {
                    case "true": return true
                    case "false": return false
                    default: return nil
                    }
                }
            }
            return nil
        }

        // MARK: - drizzle

        struct Journal: Decodable {
            struct Entry: Decodable {
                let idx: Int
                let when: Int64
                let tag: String
            }
            let dialect: String?
            let entries: [Entry]
        }

        /// `meta/_journal.json` lists the files that run, in order (drizzle-team/drizzle-orm
        /// 0.45.2 drizzle-orm/src/migrator.ts, `readMigrationFiles`); a `.sql` file it does not
        /// list never runs.
        mutating func readDrizzle(_ names: [String]) throws {
            let journalPath = Paths.join(Paths.join(directory, "meta"), "_journal.json")
            guard let data = Paths.contents(of: journalPath) else {
                throw StewardError(.notFound, "cannot read \(journalPath)")
            }
            let journal: Journal
            do {
                journal = try JSONDecoder().decode(Journal.self, from: data)
            } catch {
                throw StewardError(.badInput, "\(journalPath): not a drizzle journal (entries with idx, when and tag)")
            }
            // drizzle-kit writes the database its SQL is for; a PostgreSQL or MySQL set would
            // fail on its first statement, or worse, half succeed.
            if let dialect = journal.dialect, !["sqlite", "turso"].contains(dialect.lowercased()) {
                throw StewardError(
                    .badInput, "\(journalPath) says its SQL is for '\(dialect)'; Steward runs SQLite migrations only")
            }
            var listed = Set<String>()
            var previousWhen: Int64?
            for entry in journal.entries {
                let name = entry.tag + ".sql"
                guard !entry.tag.contains("/"), Paths.exists(display(name)) else {
                    throw StewardError(.badInput, "\(journalPath): entry \(entry.idx) names \(name), which is not in \(directory)")
                }
                if let previousWhen, entry.when <= previousWhen {
                    throw StewardError(
                        .badInput,
                        "\(journalPath): entry \(entry.idx) (\(entry.tag)) has a 'when' not after the one before it; drizzle would skip it on databases that have the one before")
                }
                previousWhen = entry.when
                listed.insert(name)
                let (bytes, text) = try read(name)
                let digits = Self.leadingDigits(entry.tag)
                let version = VersionKey(digits) ?? VersionKey(Int64(entry.idx))
                migrations.append(DialectMigration(
                    version: version, ledgerVersion: entry.tag, fileName: name, path: display(name),
                    description: entry.tag, bytes: bytes, upSQL: text, journalWhen: entry.when))
            }
            for name in names where !listed.contains(name) {
                ignored.append(name.hasSuffix(".sql") && !name.hasPrefix(".") ? "\(name) (not in meta/_journal.json, not run)" : name)
            }
        }
    }
}
