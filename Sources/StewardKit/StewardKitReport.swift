import Foundation
import StewardBase
import StewardChecks

/// What a StewardKit run found, in the shapes `steward verify --json` gives them: `checks`
/// as `CheckResult`s (`$defs/check` in schema/steward.schema.json) and `contractCases` as
/// verify's, so that CI can put the run on a device beside the run on Linux. Names, counts,
/// fixture keys and hashes only; never row data or search text.
public struct StewardKitReport: Codable, Sendable {
    public let sqliteVersion: String
    public let contractVersion: String?
    /// The contract's cases, as verify reports them. There is one database here, the app's,
    /// and it stands in for both of verify's: `fresh` and `migrated` both give its outcome.
    public let contractCases: [ContractCaseResult]
    public let checks: [CheckResult]
    public let failedChecks: [String]
    public let failedCases: [String]
    public let passed: Bool
    /// A backup proof's digests of the copy's tables (equal to the live database's when
    /// `content-digest` passed); nil for other runs.
    public let tableDigests: [TableDigest]?

    init(sqliteVersion: String, contractVersion: String? = nil, contractCases: [ContractCaseResult] = [], checks: [CheckResult],
         tableDigests: [TableDigest]? = nil) {
        self.tableDigests = tableDigests
        self.sqliteVersion = sqliteVersion
        self.contractVersion = contractVersion
        self.contractCases = contractCases
        self.checks = checks
        failedChecks = checks.filter { $0.status == .fail }.map(\.name.rawValue)
        failedCases = contractCases.filter { !$0.passed }.map(\.name)
        passed = failedChecks.isEmpty && failedCases.isEmpty
    }

    /// The check named `name`, if the run had it.
    public func check(_ name: CheckName) -> CheckResult? {
        checks.first { $0.name == name }
    }

    /// The report as JSON, encoded as the command line encodes its own (sorted keys).
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Two runs' reports as one (a contract's, and the FTS5 checks').
    func adding(_ other: StewardKitReport) -> StewardKitReport {
        StewardKitReport(
            sqliteVersion: sqliteVersion, contractVersion: contractVersion ?? other.contractVersion,
            contractCases: contractCases + other.contractCases, checks: checks + other.checks)
    }
}
