/// The one name of every check a report lists: verify's, backup's and restore's, so that
/// the same check has the same name in every command's JSON and text (`$defs/check` in the
/// schema enumerates them). A check is named by a case, never by a string, so that a
/// mistyped name is a compile error instead of a check that silently drops out of a report.
public enum CheckName: String, CaseIterable, Codable, Sendable {
    case sqlite
    /// Every view, trigger and virtual table prepares (`SchemaObjectsCheck`): verify's,
    /// backup's and restore's alike.
    case schemaObjects = "schema-objects"
    case integrity
    case foreignKeys = "foreign-keys"
    case ftsSync = "fts-sync"
    case ftsTriggers = "fts-triggers"
    case version
    case ledger
    case schema
    case assertions
    case searchContract = "search-contract"
    /// verify's query-plan contract (`--plans`): reported only when asked for.
    case plans
    /// Restore's checks of the bundle and the staged file, and backup's journal mode.
    case sha256
    case payloadSize = "payload-size"
    case header
    case journalMode = "journal-mode"
    case applicationID = "application-id"
    case pageCount = "page-count"
    case tables
    case contentDigest = "content-digest"
    case readWriteProbe = "read-write-probe"
    case sideFiles = "side-files"

    /// Every check verify runs, in the order its report lists them.
    package static let verifyChecks: [CheckName] = [
        .sqlite, .schemaObjects, .integrity, .foreignKeys, .ftsSync, .ftsTriggers, .version, .ledger, .schema, .assertions,
        .searchContract,
    ]

    /// The name a bundle's manifest records in `checksRun`: the bundle format predates the
    /// one name, and old bundles must stay readable, so the manifest keeps its own names and
    /// this is the one place that maps between them.
    package var manifestName: String {
        switch self {
        case .integrity: "integrity_check"
        case .foreignKeys: "foreign_key_check"
        case .version: "user_version"
        case .ftsSync: "fts5_integrity"
        case .journalMode: "journal_mode"
        default: rawValue
        }
    }

    /// The checks a manifest's `checksRun` can name (`BundleManifest.checkNames`).
    package static let manifestChecks: [CheckName] = [.integrity, .foreignKeys, .version, .journalMode, .ftsSync]

    /// The check a manifest's `checksRun` name stands for; nil for a name Steward never wrote.
    public init?(manifestName: String) {
        guard let name = Self.manifestChecks.first(where: { $0.manifestName == manifestName }) else { return nil }
        self = name
    }
}
