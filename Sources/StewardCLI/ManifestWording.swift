import StewardCore
import BundleFormat
import StewardBase

/// The words `backup` and `inspect` both give a bundle manifest's source and checks, so
/// that the two reports of one bundle read alike; each command adds its own label and
/// what follows.
enum ManifestWording {
    /// `user_version 3, application_id 0, 7 pages of 4096 bytes, journal mode wal`
    static func source(_ source: BundleManifest.Source) -> String {
        "user_version \(source.userVersion), application_id \(source.applicationID), "
            + "\(Counted.phrase(source.pageCount, "page")) of \(source.pageSize) bytes, journal mode \(ReportOutput.escaped(source.journalMode))"
    }

    /// `integrity_check ok, 0 foreign key violations, user_version 3`
    static func checks(_ checks: BundleManifest.Checks) -> String {
        "integrity_check \(ReportOutput.escaped(checks.integrityCheck)), \(Counted.phrase(checks.foreignKeyViolations, "foreign key violation")), "
            + "user_version \(checks.userVersion)"
    }
}
