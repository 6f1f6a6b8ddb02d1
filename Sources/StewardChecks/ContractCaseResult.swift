/// One case of a search contract as every report gives it: `steward verify`'s
/// `contractCases` and StewardKit's alike, so that CI can put a run through an app's own
/// connection beside a run of the command line and compare them as JSON.
public struct ContractCaseResult: Codable, Sendable, Equatable {
    public let name: String
    public let passed: Bool
    /// Whether the fresh and the migrated database gave the same outcome.
    public let agree: Bool
    public let freshMatches: Bool
    public let migratedMatches: Bool
    /// Outcomes as `keys [1, 2]`, `rejected: too-long`, `error: syntax`: fixture
    /// keys only, never query text.
    public let expected: String
    public let fresh: String
    public let migrated: String

    package init(name: String, passed: Bool, agree: Bool, freshMatches: Bool, migratedMatches: Bool,
                 expected: String, fresh: String, migrated: String) {
        self.name = name
        self.passed = passed
        self.agree = agree
        self.freshMatches = freshMatches
        self.migratedMatches = migratedMatches
        self.expected = expected
        self.fresh = fresh
        self.migrated = migrated
    }
}
