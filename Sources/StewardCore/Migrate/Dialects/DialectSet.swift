import Foundation

/// A migration directory read in one runner's layout: the migrations in the order the runner
/// runs them, the files it leaves out, and the refusals (65) for what Steward cannot run the
/// way that runner would.
public struct DialectSet: Sendable {
    public let directory: String
    public let dialect: Dialect
    public let migrations: [DialectMigration]
    /// Files and folders that are not migrations of this layout (`.down.sql`, a README, a
    /// drizzle `.sql` file its journal does not list, with the reason).
    public let ignoredFiles: [String]

    /// Why the layout was chosen, for the report.
    public struct Detection: Sendable, Equatable {
        public let dialect: Dialect
        public let reason: Reason
    }

    // MARK: - Detection

    /// Picks the layout of `directory`, in the order the issue fixes: a drizzle journal,
    /// diesel folders, Flyway names, goose markers, dbmate markers, then the ledger table the
    /// database already has (sqlx, golang-migrate), otherwise Steward's own.
    public static func detect(directory: String, ledgers: Set<Dialect>) -> Detection {
        // Only the last steps need the database; `ledgers` is what it has.
        (try? detect(directory: directory, ledgers: { ledgers })) ?? Detection(dialect: .steward, reason: .found(""))
    }

    /// As `detect(directory:ledgers:)`, reading the database's ledger tables only when the
    /// files decide nothing.
    public static func detect(directory: String, ledgers: () throws -> Set<Dialect>) throws -> Detection {
        if Paths.exists(Paths.join(Paths.join(directory, "meta"), "_journal.json")) {
            return Detection(dialect: .drizzle, reason: .found("meta/_journal.json"))
        }
        let entries = (try? Paths.names(in: directory).sorted()) ?? []
        if let folder = entries.first(where: { !$0.hasPrefix(".") && isDirectory(Paths.join(directory, $0))
            && Paths.exists(Paths.join(Paths.join(directory, $0), "up.sql")) }) {
            return Detection(dialect: .diesel, reason: .found("folder \(folder) holds up.sql"))
        }
        if let name = entries.first(where: { flywayPrefix($0) != nil }) {
            return Detection(dialect: .flyway, reason: .found("Flyway file name \(name)"))
        }
        let sqlFiles = entries.filter { $0.hasSuffix(".sql") && !$0.hasPrefix(".") }
        var dbmateFile: String?
        for name in sqlFiles {
            guard let data = Paths.contents(of: Paths.join(directory, name)) else { continue }
            let lines = UpSection.lines(String(decoding: data, as: UTF8.self))
            if lines.contains(where: { UpSection.gooseAnnotation($0) != nil }) {
                return Detection(dialect: .goose, reason: .found("goose annotations in \(name)"))
            }
            if dbmateFile == nil, lines.contains(where: { UpSection.dbmateDirective($0, "up") }) {
                dbmateFile = name
            }
        }
        if let dbmateFile {
            return Detection(dialect: .dbmate, reason: .found("dbmate directives in \(dbmateFile)"))
        }
        return detection(ledgers: try ledgers())
    }

    /// The last step of detection, when the files decide nothing: the database's ledgers.
    static func detection(ledgers present: Set<Dialect>) -> Detection {
        for dialect in [Dialect.sqlx, .golangMigrate] where present.contains(dialect) {
            return Detection(dialect: dialect, reason: .found("the database has \(dialect.rawValue)'s ledger table \(dialect.ledgerTable ?? "")"))
        }
        return Detection(dialect: .steward, reason: .found("no other runner's layout or ledger"))
    }

    // MARK: - Reading

    init(directory: String, dialect: Dialect, migrations: [DialectMigration], ignoredFiles: [String]) {
        self.directory = directory
        self.dialect = dialect
        self.migrations = migrations
        self.ignoredFiles = ignoredFiles
    }

    /// Reads `directory` in `dialect`'s layout, as that runner's file collector and parser
    /// read it (docs/conformance/).
    ///
    /// - Parameter placeholders: the values of Flyway placeholders; nil leaves them as
    ///   written, for a reader that does not run the SQL (verify's ledger check).
    /// - Throws: `.notFound` when the directory does not exist; `.badInput` naming the file
    ///   for a file the runner runs as code (a goose `.go`, a Flyway script), a file the
    ///   runner refuses or would run differently, a duplicate or malformed version, text
    ///   that is not UTF-8, or no migration at all.
    public init(directory: String, dialect: Dialect, placeholders: FlywayPlaceholders? = FlywayPlaceholders([:])) throws {
        if dialect == .steward {
            // Steward's own layout keeps `MigrationSet`'s refusals (code files, markers).
            self.init(steward: try MigrationSet(directory: directory))
            return
        }
        let names = try MigrationSet.entries(of: directory)
        var reader = Reader(directory: directory)
        switch dialect {
        case .steward: break
        case .goose: try reader.readGoose(names)
        case .dbmate: try reader.readDbmate(names)
        case .golangMigrate: try reader.readGolangMigrate(names)
        case .sqlx: try reader.readSqlx(names)
        case .diesel: try reader.readDiesel(names)
        case .drizzle: try reader.readDrizzle(names)
        case .flyway: try reader.readFlyway(placeholders: placeholders)
        }
        if !reader.codeMigrations.isEmpty {
            try MigrationSet.refuse(codeMigrations: reader.codeMigrations, in: directory, runner: dialect.rawValue)
        }
        // These runners have no code migrations and skip such files, but an application
        // that keeps versioned code beside its migrations runs it around them (stash
        // registers pre- and post-migrations by version next to its golang-migrate files).
        if [.golangMigrate, .sqlx, .dbmate, .diesel, .drizzle].contains(dialect) {
            let migrationFiles = Set(reader.migrations.map(\.fileName))
            let code = names.filter { MigrationSet.isVersionedCode($0) && !migrationFiles.contains($0) && !Self.isDirectory(Paths.join(directory, $0)) }
            try MigrationSet.refuse(applicationCode: code, in: directory, runner: dialect.rawValue)
        }
        switch dialect {
        case .drizzle: break
        case .dbmate: reader.migrations.sort { Array($0.fileName.utf8).lexicographicallyPrecedes(Array($1.fileName.utf8)) }
        default: reader.migrations.sort { $0.version < $1.version }
        }
        var seen: [VersionKey: String] = [:]
        for migration in reader.migrations {
            if let other = seen[migration.version] {
                throw StewardError(
                    .badInput,
                    "\(Paths.join(directory, migration.fileName)): version \(migration.version) is also used by \(other)")
            }
            seen[migration.version] = migration.fileName
        }
        guard !reader.migrations.isEmpty else {
            let found = reader.ignored.isEmpty ? "it is empty" : "found instead: \(reader.ignored.prefix(5).joined(separator: ", "))"
            throw StewardError(.badInput, "no migrations found in \(directory) for the \(dialect.rawValue) layout (\(found))")
        }
        self.init(directory: directory, dialect: dialect, migrations: reader.migrations, ignoredFiles: reader.ignored)
    }

    /// The set's own key for a version given from outside: the command line reads numbers,
    /// and a text version (diesel's, dbmate's) compares as text only with its own kind.
    public func ownKey(for given: VersionKey) -> VersionKey {
        migrations.first { $0.version == given }?.version ?? given
    }

    /// The kind and version text of a Flyway file name: `V1_1__x.sql` → ("V", "1_1").
    static func flywayPrefix(_ name: String) -> (kind: Character, version: String, description: String)? {
        guard name.hasSuffix(".sql"), let kind = name.first, "VUR".contains(kind),
              let separator = name.range(of: "__") else { return nil }
        let version = String(name[name.index(after: name.startIndex)..<separator.lowerBound])
        guard version.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "_") }) else { return nil }
        guard kind == "R" ? version.isEmpty : !version.isEmpty else { return nil }
        let description = String(name[separator.upperBound...].dropLast(".sql".count))
        return (kind, version, description)
    }

    static func isDirectory(_ path: String) -> Bool {
        Paths.isDirectory(path)
    }
}
