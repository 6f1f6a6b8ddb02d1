import Foundation

extension DialectSet {
    /// Reads the files of one layout; the rules of each runner are cited where they apply.
    struct Reader {
        let directory: String
        var migrations: [DialectMigration] = []
        var ignored: [String] = []

        init(directory: String) {
            self.directory = directory
        }

        func display(_ name: String) -> String { Paths.join(directory, name) }

        func read(_ name: String) throws -> (bytes: [UInt8], text: String) {
            guard let data = Paths.contents(of: Paths.join(directory, name)) else {
                throw StewardError(.notFound, "cannot read \(display(name))")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw StewardError(.badInput, "\(display(name)): not UTF-8 text")
            }
            return ([UInt8](data), text)
        }

        // MARK: - Files named VERSION_name.sql

        /// steward, golang-migrate, sqlx, goose and dbmate: one file per migration, named by
        /// its version.
        mutating func readNumbered(_ names: [String], dialect: Dialect) throws {
            for name in names {
                guard !name.hasPrefix("."), name.hasSuffix(".sql"), !DialectSet.isDirectory(display(name)) else {
                    ignored.append(name)
                    continue
                }
                if name.hasSuffix(".down.sql") {
                    ignored.append(name)
                    continue
                }
                let digits = String(name.prefix { $0.isASCII && $0.isNumber })
                let rest = name.dropFirst(digits.count)
                let isUp = name.hasSuffix(".up.sql")
                switch dialect {
                case .golangMigrate:
                    // golang-migrate source/parse.go: ^([0-9]+)_(.*)\.(down|up)\.(.*)$; a file
                    // without .up. is not one of its migrations.
                    guard !digits.isEmpty, rest.hasPrefix("_"), isUp else {
                        ignored.append(name)
                        continue
                    }
                case .dbmate:
                    // dbmate: ^(\d+).*\.sql$
                    guard !digits.isEmpty else {
                        ignored.append(name)
                        continue
                    }
                default:
                    guard !digits.isEmpty, rest.hasPrefix("_") || rest.hasPrefix(".") else {
                        throw StewardError(
                            .badInput,
                            "\(display(name)): a migration file name must start with its version, like 0001_name.sql")
                    }
                }
                let version = try self.version(digits, of: name, dialect: dialect)
                let (bytes, text) = try read(name)
                // sqlx-core src/migrate/source.rs: the description is the name after the first
                // `_`, without `.up.sql`/`.sql`, with `_` read as spaces.
                let suffix = isUp ? ".up.sql" : ".sql"
                let description = String(rest.dropFirst().dropLast(suffix.count)).replacingOccurrences(of: "_", with: " ")
                let upSQL: String
                switch dialect {
                case .goose: upSQL = try UpSection.goose(text, file: name)
                case .dbmate: upSQL = try UpSection.dbmate(text, file: name)
                case .sqlx:
                    // sqlx runs a file whose text starts with `-- no-transaction` outside any
                    // transaction (sqlx-core src/migrate/source.rs).
                    if text.hasPrefix("-- no-transaction") {
                        throw StewardError(
                            .badInput,
                            "\(name):1: '-- no-transaction' asks for the file to run outside a transaction; Steward runs every migration inside one transaction, all or nothing, so it refuses this file (run it with sqlx)")
                    }
                    upSQL = text
                default: upSQL = text
                }
                migrations.append(DialectMigration(
                    version: version, ledgerVersion: digits, fileName: name, path: display(name),
                    description: description, bytes: bytes, upSQL: upSQL))
            }
        }

        func version(_ digits: String, of name: String, dialect: Dialect) throws -> VersionKey {
            guard let key = VersionKey(digits) else {
                throw StewardError(.badInput, "\(display(name)): no version")
            }
            switch dialect {
            case .steward:
                guard let value = key.integer, (1...Int64(Int32.max)).contains(value) else {
                    throw StewardError(
                        .badInput,
                        "\(display(name)): version \(digits) is out of range (1 to \(Int32.max), the range of user_version)",
                        remedy: .chooseDialect)
                }
            case .sqlx, .goose, .golangMigrate:
                // sqlx parses an i64, goose an int64, golang-migrate a uint that its sqlite
                // driver binds as a Go int: all signed 64-bit in practice.
                guard let value = key.integer, value >= (dialect == .golangMigrate ? 0 : 1) else {
                    throw StewardError(.badInput, "\(display(name)): version \(digits) does not fit \(dialect.rawValue)'s 64-bit versions")
                }
            default:
                break
            }
            return key
        }

        // MARK: - diesel

        /// One folder per migration holding `up.sql`. The version is the folder name up to
        /// its first `_`, dashes removed (diesel_migrations migrations_internals/src/lib.rs,
        /// `version_from_string`).
        mutating func readDiesel(_ names: [String]) throws {
            for name in names {
                let folder = display(name)
                guard !name.hasPrefix("."), DialectSet.isDirectory(folder) else {
                    ignored.append(name)
                    continue
                }
                let up = Paths.join(name, "up.sql")
                guard Paths.exists(display(up)) else {
                    throw StewardError(.badInput, "\(folder): a diesel migration folder without up.sql")
                }
                let versionText = String(name.split(separator: "_", maxSplits: 1, omittingEmptySubsequences: false)[0])
                    .replacingOccurrences(of: "-", with: "")
                guard let version = VersionKey(versionText) else {
                    throw StewardError(.badInput, "\(folder): the folder name must start with its version, like 2024-01-01-000000_name")
                }
                let metadata = Paths.join(name, "metadata.toml")
                if let data = Paths.contents(of: display(metadata)),
                   Self.runsOutsideTransaction(String(decoding: data, as: UTF8.self)) {
                    throw StewardError(
                        .badInput,
                        "\(display(metadata)): run_in_transaction = false asks for the migration to run outside a transaction; Steward runs every migration inside one transaction, all or nothing, so it refuses this folder (run it with diesel)")
                }
                let (bytes, text) = try read(up)
                migrations.append(DialectMigration(
                    version: version, ledgerVersion: versionText, fileName: up, path: display(up),
                    description: String(name.drop { $0 != "_" }.dropFirst()), bytes: bytes, upSQL: text))
            }
        }

        /// Whether metadata.toml sets `run_in_transaction = false` at its top level.
        static func runsOutsideTransaction(_ toml: String) -> Bool {
            for line in toml.split(whereSeparator: \.isNewline) {
                let trimmed = line.trimmingWhitespace()
                if trimmed.hasPrefix("[") { break }
                let pair = trimmed.split(separator: "=", maxSplits: 1).map { $0.trimmingWhitespace() }
                if pair.count == 2, pair[0] == "run_in_transaction" {
                    return pair[1].split(separator: "#").first?.trimmingWhitespace() == "false"
                }
            }
            return false
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

        /// `meta/_journal.json` lists the files that run, in order (drizzle-orm
        /// src/migrator.ts, `readMigrationFiles`); a `.sql` file it does not list never runs.
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
                let digits = String(entry.tag.prefix { $0.isASCII && $0.isNumber })
                let version = VersionKey(digits) ?? VersionKey(Int64(entry.idx))
                migrations.append(DialectMigration(
                    version: version, ledgerVersion: entry.tag, fileName: name, path: display(name),
                    description: entry.tag, bytes: bytes, upSQL: text, journalWhen: entry.when))
            }
            for name in names where !listed.contains(name) {
                ignored.append(name.hasSuffix(".sql") && !name.hasPrefix(".") ? "\(name) (not in meta/_journal.json, not run)" : name)
            }
        }

        // MARK: - Flyway

        /// `V<version>__<description>.sql`; versions with `.` or `_` between digit groups,
        /// compared as numbers part by part (flyway-core api/MigrationVersion.java).
        mutating func readFlyway(_ names: [String]) throws {
            for name in names {
                guard !name.hasPrefix("."), let (kind, versionText, description) = DialectSet.flywayPrefix(name) else {
                    ignored.append(name)
                    continue
                }
                guard kind == "V" else {
                    let what = kind == "R" ? "a repeatable migration (R__)" : "an undo migration (U)"
                    throw StewardError(
                        .badInput,
                        "\(display(name)): \(what); Steward runs only versioned migrations (V) for now, so it refuses the set (run it with Flyway)")
                }
                guard let version = VersionKey(versionText, dotted: true) else {
                    throw StewardError(.badInput, "\(display(name)): '\(versionText)' is not a Flyway version")
                }
                let (bytes, text) = try read(name)
                migrations.append(DialectMigration(
                    version: version, ledgerVersion: versionText.replacingOccurrences(of: "_", with: "."),
                    fileName: name, path: display(name),
                    description: description.replacingOccurrences(of: "_", with: " "), bytes: bytes, upSQL: text))
            }
        }
    }
}
