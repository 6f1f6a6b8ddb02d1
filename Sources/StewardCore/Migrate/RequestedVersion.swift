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
