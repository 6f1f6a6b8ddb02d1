import Foundation

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

    public init(
        version: VersionKey, ledgerVersion: String, fileName: String, path: String, description: String,
        bytes: [UInt8], upSQL: String, journalWhen: Int64? = nil
    ) {
        self.version = version
        self.ledgerVersion = ledgerVersion
        self.fileName = fileName
        self.path = path
        self.description = description
        self.bytes = bytes
        self.upSQL = upSQL
        self.journalWhen = journalWhen
    }
}

/// A migration version as its runner compares them.
///
/// Most runners read a number: one or more unsigned decimal parts of any length (Flyway's
/// `1.10.2`, a 14-digit timestamp, `0000`), compared part by part as numbers, with missing
/// and trailing parts counting as zero (Flyway's `MigrationVersion`). diesel and dbmate read
/// text: diesel's `MigrationVersion` wraps a string and orders as strings do, so `20240313`
/// comes after `20240306170000`; dbmate keeps the digits as written (`01` is not `1`). A
/// text version compares byte by byte, as Rust's `str` and Go's `string` do.
public struct VersionKey: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Decimal digits without leading zeros ("0" for zero); trailing zero parts removed. For
    /// a text version that is not all digits, the text.
    public let parts: [String]
    /// The version as its runner's text, for the runners that compare text; nil for numbers.
    public let text: String?

    /// `text` of decimal digits; with `dotted`, digit groups separated by `.` or `_` (Flyway
    /// reads `V1_1` as `1.1`). Nil for anything else.
    public init?(_ text: String, dotted: Bool = false) {
        let pieces = dotted
            ? text.replacingOccurrences(of: "_", with: ".").split(separator: ".", omittingEmptySubsequences: false)
            : [Substring(text)]
        var parts: [String] = []
        for piece in pieces {
            guard let part = Self.number(piece) else { return nil }
            parts.append(part)
        }
        while parts.count > 1, parts.last == "0" { parts.removeLast() }
        self.parts = parts
        self.text = nil
    }

    /// A version that its runner compares as text (diesel, dbmate); any text but the empty one.
    public init?(text: String) {
        guard !text.isEmpty else { return nil }
        self.text = text
        self.parts = [Self.number(Substring(text)) ?? text]
    }

    public init(_ value: Int64) {
        parts = [String(value)]
        text = nil
    }

    private static func number(_ piece: Substring) -> String? {
        guard !piece.isEmpty, piece.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let trimmed = piece.drop { $0 == "0" }
        return trimmed.isEmpty ? "0" : String(trimmed)
    }

    /// The value when the version is a single part that fits a signed 64-bit integer.
    public var integer: Int64? {
        guard parts.count == 1 else { return nil }
        return Int64(parts[0])
    }

    public var description: String { text ?? parts.joined(separator: ".") }

    /// Two text versions are equal when their texts are; a number given on the command line
    /// (`--to 20240313`) matches a text version with the same digits.
    public static func == (lhs: VersionKey, rhs: VersionKey) -> Bool {
        if let left = lhs.text, let right = rhs.text { return left == right }
        return lhs.parts == rhs.parts
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(parts)
    }

    public static func < (lhs: VersionKey, rhs: VersionKey) -> Bool {
        if lhs.text != nil || rhs.text != nil {
            return Array(lhs.description.utf8).lexicographicallyPrecedes(Array(rhs.description.utf8))
        }
        for index in 0..<max(lhs.parts.count, rhs.parts.count) {
            let left = index < lhs.parts.count ? lhs.parts[index] : "0"
            let right = index < rhs.parts.count ? rhs.parts[index] : "0"
            if left.count != right.count { return left.count < right.count }
            if left != right { return left < right }
        }
        return false
    }
}

extension VersionKey: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) {
        self.init(value)
    }
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
