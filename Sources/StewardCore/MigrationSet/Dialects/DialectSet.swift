import Foundation
import SQLiteKit
import StewardBase

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

    /// The file beside the migrations that names the set's layout, one line such as
    /// `sqlx`: the files alone cannot always say which runner a new database belongs to.
    public static let declarationFile = ".steward-dialect"

    /// What a database says about the layout its set was applied in, for detection.
    public struct DatabaseRecords: Sendable, Equatable {
        /// The runners whose ledger table the database has.
        public var ledgers: Set<Dialect>
        /// `user_version`, 0 for a database that does not exist yet.
        public var userVersion: Int32

        public init(ledgers: Set<Dialect> = [], userVersion: Int32 = 0) {
            self.ledgers = ledgers
            self.userVersion = userVersion
        }
    }

    /// What detection does with a set that several runners read alike on a database that
    /// does not say which (no ledger, `user_version` 0).
    public enum Ambiguity: Sendable {
        /// Refuse (65), naming the layouts: a database made in the wrong one gets no ledger,
        /// or one its application's runner never reads.
        case refuse
        /// Read it in Steward's own layout: for readers that write nothing (verify).
        case stewardsOwn
    }

    /// Picks the layout of `directory`, in the order the issue fixes: a drizzle journal,
    /// diesel folders, Flyway names, goose markers, dbmate markers, then the ledger table the
    /// database already has (sqlx, golang-migrate), otherwise Steward's own. For tests and
    /// callers that only know the ledgers: an ambiguous set reads as Steward's own.
    public static func detect(directory: String, ledgers: Set<Dialect>) -> Detection {
        // Only the last steps need the database; `ledgers` is what it has.
        (try? detect(directory: directory, records: { DatabaseRecords(ledgers: ledgers) }, whenAmbiguous: .stewardsOwn))
            ?? Detection(dialect: .steward, reason: .found(""))
    }

    /// As `detect(directory:ledgers:)`: a layout the set declares (`declarationFile`) comes
    /// first; the database's records are read only when the files decide nothing.
    ///
    /// - Throws: `.badInput` for a declaration that names no layout, and, with `.refuse`,
    ///   for a set that more than one runner reads on a database that has no record of any
    ///   (remedy `.nameDialect`).
    public static func detect(
        directory: String, records: () throws -> DatabaseRecords, whenAmbiguous: Ambiguity = .refuse
    ) throws -> Detection {
        if let declared = try declaration(in: directory) {
            return declared
        }
        if let found = detectFromFiles(directory: directory) {
            return found
        }
        return try detection(directory: directory, records: try records(), whenAmbiguous: whenAmbiguous)
    }

    /// The layout the set names in its `declarationFile`, or nil when it has none.
    static func declaration(in directory: String) throws -> Detection? {
        let path = Paths.join(directory, declarationFile)
        guard let data = Paths.contents(of: path) else { return nil }
        let lines = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingWhitespace() }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        guard lines.count == 1, let dialect = Dialect(rawValue: String(lines[0])) else {
            let found = lines.isEmpty ? "nothing" : "'\(lines.prefix(2).joined(separator: " "))'"
            throw StewardError(
                .badInput,
                "\(path) must name one layout (one of \(Dialect.names.joined(separator: ", "))), and it holds \(found)")
        }
        return Detection(dialect: dialect, reason: .found("declared in \(declarationFile)"))
    }

    /// What the files alone decide: a journal, folders, names or markers; nil otherwise.
    static func detectFromFiles(directory: String) -> Detection? {
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
        return nil
    }

    /// The last step of detection, when the files decide nothing: the database's ledger,
    /// else its `user_version` (only Steward's own layout keeps one without a ledger), else,
    /// for a database with no record at all (a new one), the one layout that reads the set;
    /// a set that several read alike is refused with `.refuse`.
    static func detection(directory: String, records: DatabaseRecords, whenAmbiguous: Ambiguity) throws -> Detection {
        for dialect in [Dialect.sqlx, .golangMigrate] where records.ledgers.contains(dialect) {
            return Detection(dialect: dialect, reason: .found("the database has \(dialect.rawValue)'s ledger table \(dialect.ledgerTable ?? "")"))
        }
        if records.userVersion > 0 {
            return Detection(
                dialect: .steward,
                reason: .found("user_version \(records.userVersion) and no other runner's ledger: migrated in Steward's own layout"))
        }
        let fallback = Detection(dialect: .steward, reason: .found("no other runner's layout or ledger"))
        guard whenAmbiguous == .refuse else { return fallback }
        let candidates = readingLayouts(of: directory)
        // A set no layout reads is left to Steward's own reader, which says why.
        guard !candidates.isEmpty else { return fallback }
        throw ambiguity(directory: directory, candidates: candidates)
    }

    /// The layouts among those that name files by version alone whose reader accepts the
    /// set: Steward's own, sqlx, golang-migrate.
    static func readingLayouts(of directory: String) -> [Dialect] {
        var found: [Dialect] = []
        for dialect in [Dialect.steward, .sqlx, .golangMigrate] where (try? DialectSet(directory: directory, dialect: dialect)) != nil {
            found.append(dialect)
        }
        return found
    }

    /// The refusal of a set that the database cannot attribute to one runner.
    static func ambiguity(directory: String, candidates: [Dialect]) -> StewardError {
        let named = candidates.map { $0 == .steward ? "Steward's own layout (steward)" : $0.rawValue }
        let readers = candidates.count == 1
            ? "only \(named[0]) reads these files"
            : "these files read alike as " + named.dropLast().joined(separator: ", ") + " or " + (named.last ?? "")
        return StewardError(
            .badInput,
            "\(directory): \(readers), and the database has no ledger or user_version to say which runner it belongs to; "
                + "a database made in the wrong layout gets no ledger, or one the application's runner never reads, so Steward does not pick one. "
                + "Name the layout in \(Paths.join(directory, declarationFile)) (one line, such as \(candidates[0].rawValue))",
            remedy: .nameDialect(candidates.map(\.rawValue)))
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
        let names = try Self.entries(of: directory)
        var reader = Reader(directory: directory)
        switch dialect {
        case .steward: try reader.readSteward(names)
        case .goose: try reader.readGoose(names)
        case .dbmate: try reader.readDbmate(names)
        case .golangMigrate: try reader.readGolangMigrate(names)
        case .sqlx: try reader.readSqlx(names)
        case .diesel: try reader.readDiesel(names)
        case .drizzle: try reader.readDrizzle(names)
        case .flyway: try reader.readFlyway(placeholders: placeholders)
        }
        if !reader.codeMigrations.isEmpty {
            try Self.refuse(codeMigrations: reader.codeMigrations, in: directory, runner: dialect)
        }
        // These runners have no code migrations and skip such files, but an application
        // that keeps versioned code beside its migrations runs it around them (stash
        // registers pre- and post-migrations by version next to its golang-migrate files).
        if [.golangMigrate, .sqlx, .dbmate, .diesel, .drizzle].contains(dialect) {
            let migrationFiles = Set(reader.migrations.map(\.fileName))
            let code = names.filter { Self.isVersionedCode($0) && !migrationFiles.contains($0) && !Self.isDirectory(Paths.join(directory, $0)) }
            try Self.refuse(applicationCode: code, in: directory, runner: dialect)
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
            if dialect == .steward { throw StewardError(.badInput, Self.nothingFound(in: directory, names: names)) }
            let found = reader.ignored.isEmpty ? "it is empty" : "found instead: \(reader.ignored.prefix(5).joined(separator: ", "))"
            throw StewardError(.badInput, "no migrations found in \(directory) for the \(dialect.rawValue) layout (\(found))")
        }
        self.init(directory: directory, dialect: dialect, migrations: reader.migrations, ignoredFiles: reader.ignored)
    }

    // MARK: - What every layout refuses

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
    static func refuse(codeMigrations: [String], in directory: String, runner: Dialect?) throws {
        guard codeMigrations.isEmpty else {
            let list = codeMigrations.map { display(directory, $0) }.joined(separator: ", ")
            throw StewardError(
                .badInput,
                "\(directory) holds versioned files that \(runner.map { "\($0.rawValue) runs as code and " } ?? "")are not SQL, which Steward cannot run: \(list); "
                    + "running the SQL files without them can lose the data they move, so nothing was run")
        }
    }

    /// Refuses the set when it holds `code`: versioned source files that `runner` skips,
    /// but that the application runs around its migrations.
    static func refuse(applicationCode code: [String], in directory: String, runner: Dialect) throws {
        guard code.isEmpty else {
            let list = code.map { display(directory, $0) }.joined(separator: ", ")
            throw StewardError(
                .badInput,
                "\(directory) holds versioned code files beside its migrations: \(list); \(runner.rawValue) itself skips them, but an application that keeps code there runs it around its migrations (moving data the next SQL file may drop), and Steward cannot, so nothing was run")
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
        isDirectory(Paths.join(directory, name))
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

    static func display(_ directory: String, _ name: String) -> String {
        Paths.join(directory, name)
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

    /// The set without its `declarationFile` among the ignored files: it names the layout,
    /// it is not a stray file.
    var withoutDeclaration: DialectSet {
        DialectSet(directory: directory, dialect: dialect, migrations: migrations,
                   ignoredFiles: ignoredFiles.filter { $0 != Self.declarationFile })
    }
}

extension DialectSet.Detection {
    /// Why a run reads the set in its layout. In a report it is one string, `text`: what
    /// detection found, or for a layout the caller chose, the core's words until the
    /// command line words them with its option (the core never names one).
    public struct Reason: Codable, Sendable, Equatable {
        /// The caller named the layout; nothing was detected. Not part of the JSON.
        public let chosen: Bool
        public var text: String

        /// What in the files or the database decided the layout.
        static func found(_ text: String) -> Reason {
            Reason(chosen: false, text: text)
        }

        /// The caller named the layout.
        static let chosen = Reason(chosen: true, text: "chosen by the caller")

        private init(chosen: Bool, text: String) {
            self.chosen = chosen
            self.text = text
        }

        public init(from decoder: any Decoder) throws {
            chosen = false
            text = try decoder.singleValueContainer().decode(String.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(text)
        }
    }
}

/// The migration runner whose layout a set follows and whose ledger table records what is
/// applied. `steward` is Steward's own: `NNNN_name.sql` and `user_version`, no ledger table.
public enum Dialect: String, CaseIterable, Codable, Sendable {
    case steward
    case golangMigrate = "golang-migrate"
    case sqlx
    case goose
    case dbmate
    case diesel
    case drizzle
    case flyway

    /// The names accepted by `--dialect`, in the order the help lists them.
    public static var names: [String] { allCases.map(\.rawValue) }

    /// The ledger table the runner keeps in the database, or nil for Steward's own layout.
    public var ledgerTable: String? {
        switch self {
        case .steward: nil
        case .golangMigrate, .dbmate: "schema_migrations"
        case .sqlx: "_sqlx_migrations"
        case .goose: "goose_db_version"
        case .diesel: "__diesel_schema_migrations"
        case .drizzle: "__drizzle_migrations"
        case .flyway: "flyway_schema_history"
        }
    }

    /// Whether the runner's ledger can record a migration applied below the newest one.
    /// golang-migrate keeps a single row and drizzle compares with its newest `created_at`,
    /// so a file older than the newest applied one would be invisible to them.
    public var canRecordOutOfOrder: Bool {
        switch self {
        case .golangMigrate, .drizzle: false
        default: true
        }
    }
}

/// One migration of a set in a runner's layout: what runs (the up part only), and what the
/// runner's ledger records about it.
public struct DialectMigration: Sendable, Equatable {
    /// The version as the runner orders it.
    public let version: VersionKey
    /// The version as the runner writes it into its ledger (`20240101120000`, `1.1`), or
    /// drizzle's tag.
    public let ledgerVersion: String
    /// The file, relative to the set's directory (`0001_x.sql`, `2021-01-01-000000_x/up.sql`).
    public let fileName: String
    public let path: String
    /// The runner's description: sqlx and Flyway derive it from the name, `_` read as spaces.
    public let description: String
    /// The file's bytes exactly as read, for the runners' checksums.
    public let bytes: [UInt8]
    /// The SQL that runs: the up part, with every other line blanked so that line numbers in
    /// messages are the file's own.
    public let upSQL: String
    /// drizzle's `when` from `meta/_journal.json` (milliseconds), which its ledger records.
    public let journalWhen: Int64?
    /// The down part that takes the migration back (`migrate --down`), as its layout keeps
    /// it; nil when the layout has none for this migration. Never run by an upgrade.
    public let down: DownPart?

    public init(
        version: VersionKey, ledgerVersion: String, fileName: String, path: String, description: String,
        bytes: [UInt8], upSQL: String, journalWhen: Int64? = nil, down: DownPart? = nil
    ) {
        self.version = version
        self.ledgerVersion = ledgerVersion
        self.fileName = fileName
        self.path = path
        self.description = description
        self.bytes = bytes
        self.upSQL = upSQL
        self.journalWhen = journalWhen
        self.down = down
    }

    /// The migration as a down run runs it: the same version and ledger text, its down part
    /// as the SQL that runs, named by the file that holds it.
    func reversed() -> DialectMigration? {
        guard let down, down.refusal == nil else { return nil }
        return DialectMigration(
            version: version, ledgerVersion: ledgerVersion, fileName: down.fileName, path: down.path,
            description: description, bytes: bytes, upSQL: down.sql, journalWhen: journalWhen)
    }
}

/// The part of a migration that takes it back: a file of its own (Steward's `.down.sql`,
/// golang-migrate's and sqlx's `.down.sql`, diesel's `down.sql`) or a section of the up
/// file (goose's `-- +goose Down`, dbmate's `-- migrate:down`).
public struct DownPart: Sendable, Equatable {
    /// The file that holds it, relative to the set's directory.
    public let fileName: String
    public let path: String
    /// The SQL that runs: the down part, with every other line of its file blanked so that
    /// line numbers in messages are the file's own.
    public let sql: String
    /// Why Steward cannot run this down part as its runner would (a goose statement cut
    /// short, a dbmate `transaction:false`), naming file and line; nil when it can. Only a
    /// down run refuses it: an upgrade never reads it.
    public let refusal: String?

    public init(fileName: String, path: String, sql: String, refusal: String? = nil) {
        self.fileName = fileName
        self.path = path
        self.sql = sql
        self.refusal = refusal
    }

    /// Whether the part holds no statement: only blanks and comments.
    public var isEmpty: Bool { !SQLScanner.tokens(of: sql).contains { $0.text != ";" } }
}

/// A version the caller names (`--to`, `--baseline`) as the runner shows it: a version
/// (`3`, `20240101120000`, Flyway's `1.1` or `1_1`), or drizzle's tag (`0093_reader_view`),
/// which is what its ledger and Steward's reports call the migration. Matched against the
/// set it applies to: the text a migration's ledger writes, else the version compared as
/// the runner compares versions (`0003` is `3`).
public struct RequestedVersion: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// As given.
    public let text: String
    /// The text read as a version; nil for a tag.
    public let key: VersionKey?

    /// Nil for text that is neither a version nor a tag (digits, `_`, a name).
    public init?(_ text: String) {
        self.text = text
        key = VersionKey(text, dotted: true)
        if key == nil {
            let digits = text.prefix { $0.isASCII && $0.isNumber }
            let rest = text.dropFirst(digits.count)
            guard !digits.isEmpty, rest.hasPrefix("_"), rest.count > 1, !text.contains("/") else { return nil }
        }
    }

    public init(_ key: VersionKey) {
        text = key.description
        self.key = key
    }

    public init(integerLiteral value: Int64) {
        self.init(VersionKey(value))
    }

    public var description: String { text }

    /// The version of the set's migration this names (its runner's text, or a number that
    /// equals a text version such as diesel's); for a plain version no migration has, that
    /// version (the plan says what it means); nil for a tag no migration has.
    func resolve(in migrations: [DialectMigration]) -> VersionKey? {
        if let migration = migrations.first(where: { $0.ledgerVersion == text }) {
            return migration.version
        }
        guard let key else { return nil }
        return migrations.first { $0.version == key }?.version ?? key
    }
}
