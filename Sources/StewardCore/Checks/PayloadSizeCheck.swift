import SQLiteKit
import BundleFormat
import StewardBase

/// A bundled database file is exactly its pages (restore's `payload-size`, which backup
/// runs on its copy too, so that a bundle backup publishes passes it). The file's size
/// must be the page size × the page count that the manifest records and SQLite reads:
/// the header's, when the header keeps a valid one, else the file's own size divided by
/// the page size, as SQLite itself does (https://sqlite.org/fileformat2.html, "In-header
/// database size": the count is valid only when non-zero and when the change counter at
/// offset 24 equals the version-valid-for number at offset 92; otherwise SQLite computes
/// the size from the file). Files written by SQLite before 3.7.0, and by tools that do
/// not keep the count (a GeoPackage sample made by GDAL has 0 there), are valid
/// databases with such a header.
///
/// Anything after the last page (a valid small database followed by gigabytes of zeros)
/// is refused before SQLite opens the file, when the header's count says where the
/// pages end.
enum PayloadSizeCheck {
    static func check(size: Int64, header: DatabaseHeader, source: BundleManifest.Source, durationSeconds: Double = 0) -> CheckResult {
        func fail(_ summary: String) -> CheckResult {
            .init(name: .payloadSize, status: .fail, summary: summary, durationSeconds: durationSeconds)
        }
        let pageSize = Int64(header.pageSize)
        let pages: Int64
        let from: String
        if header.isPageCountValid {
            pages = Int64(header.pageCount)
            let fromHeader = pageSize * pages
            guard fromHeader == size else {
                return fail("\(Counted.phrase(size, "byte")), but the header says \(Counted.phrase(header.pageCount, "page")) of \(header.pageSize) bytes (\(fromHeader) bytes)")
            }
            from = "as in the header and the manifest"
        } else {
            guard size > 0, size % pageSize == 0 else {
                return fail("\(Counted.phrase(size, "byte")), not a whole number of \(header.pageSize)-byte pages (the header keeps no valid page count)")
            }
            pages = size / pageSize
            from = "as in the manifest (the header keeps no valid page count, bytes 28-31 and 92-95, as SQLite before 3.7.0 "
                + "and some tools leave it: SQLite counts the pages from the file's size)"
        }
        let fromManifest = Int64(source.pageSize) * Int64(source.pageCount)
        guard fromManifest == size else {
            return fail("\(Counted.phrase(size, "byte")), but the manifest says \(Counted.phrase(source.pageCount, "page")) of \(source.pageSize) bytes (\(fromManifest) bytes)")
        }
        return .init(name: .payloadSize, status: .pass, summary: "\(Counted.phrase(size, "byte")) = \(Counted.phrase(pages, "page")) of \(header.pageSize) bytes, \(from)",
                     durationSeconds: durationSeconds)
    }
}
