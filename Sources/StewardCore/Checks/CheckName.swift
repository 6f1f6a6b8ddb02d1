/// Every check verify runs, in the order its report lists them, and the names backup's
/// manifest and restore's report give the database checks they share with it. A check is
/// named by a case, never by a string, so that a mistyped name is a compile error instead
/// of a check that silently drops out of a report.
enum CheckName: String, CaseIterable, Sendable {
    case sqlite
    case integrity
    case foreignKeys = "foreign-keys"
    case ftsSync = "fts-sync"
    case ftsTriggers = "fts-triggers"
    case version
    case ledger
    case schema
    case assertions
    case searchContract = "search-contract"

    /// The name in backup's manifest (`checksRun`) and in backup's and restore's reports,
    /// which predate verify's names; the checks only verify runs keep theirs.
    var bundleName: String {
        switch self {
        case .integrity: "integrity_check"
        case .foreignKeys: "foreign_key_check"
        case .version: "user_version"
        case .ftsSync: "fts5_integrity"
        default: rawValue
        }
    }
}
