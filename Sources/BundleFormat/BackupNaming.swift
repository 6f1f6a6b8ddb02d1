import ArchiveKit
import FileNames
import Foundation

import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// The names a backup gives things: the default bundle name, the payload's stem, the
/// time stamps, and which names `--name` may use.
package enum BackupNaming {
    static let bundleExtension = ".tar.zst"
    /// An encrypted bundle is an age file of a bundle.
    static let encryptedBundleExtension = ".tar.zst.age"

    /// The database file name without its directory and last extension, made into a
    /// valid entry name: `/srv/Tickets DB.sqlite` → `Tickets_DB`.
    static func stem(of path: String) -> String {
        let base = Paths.fileName(of: path)
        let withoutExtension = Paths.removingExtension(base)
        return ArchiveEntryName.component(from: withoutExtension.isEmpty ? base : withoutExtension)
    }

    /// `<stem>-v<user_version>-<UTC time>.tar.zst`, such as `tickets-v2-20261130T041500Z.tar.zst`;
    /// with a tag, `<stem>-<tag>-v<user_version>-<UTC time>.tar.zst`; `-as-is` before the extension
    /// for a bundle made with --as-is; `.tar.zst.age` when encrypted. `version`, when given,
    /// replaces the user_version (made into a valid entry name).
    package static func defaultBundleName(
        database: String, tag: String? = nil, userVersion: Int32, version: String? = nil, at seconds: Int64,
        encrypted: Bool = false, asIs: Bool = false
    ) -> String {
        let tagged = tag.map { "-\(ArchiveEntryName.component(from: $0))" } ?? ""
        let shown = version.map { ArchiveEntryName.component(from: $0, fallback: "0") } ?? String(userVersion)
        return "\(stem(of: database))\(tagged)-v\(shown)-\(compactTimestamp(seconds))\(asIs ? asIsMarker : "")\(encrypted ? encryptedBundleExtension : bundleExtension)"
    }

    /// Why `name` cannot be a bundle name, or nil when it can: one file name, not hidden
    /// (hidden names belong to temporaries), ending in `.tar.zst`, or `.tar.zst.age` when
    /// the bundle is encrypted (a plain bundle never ends in `.age`).
    /// What the name of a bundle made with `--as-is` carries.
    package static let asIsMarker = "-as-is"

    package static func problem(withBundleName name: String, encrypted: Bool = false) -> BundleNameProblem? {
        if encrypted {
            if !name.hasSuffix(encryptedBundleExtension) || name == encryptedBundleExtension {
                return BundleNameProblem("the name of an encrypted bundle must end in \(encryptedBundleExtension)")
            }
            return problem(withBundleName: String(name.dropLast(4)))
        }
        if name.isEmpty { return BundleNameProblem("the name is empty") }
        if name.contains("/") { return BundleNameProblem("the name must be a file name, without '/'", remedy: .directoryApart) }
        if name.hasPrefix(".") { return BundleNameProblem("the name must not start with '.'") }
        if name.utf8.contains(0) { return BundleNameProblem("the name contains a NUL byte") }
        if FileName.bytes(name).count > 255 { return BundleNameProblem("the name is longer than 255 bytes") }
        if !name.hasSuffix(bundleExtension) || name == bundleExtension { return BundleNameProblem("the name must end in \(bundleExtension)") }
        return nil
    }

    /// `2026-11-30T04:15:00Z`.
    package static func isoTimestamp(_ seconds: Int64) -> String {
        let parts = utc(seconds)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second)
    }

    /// `2026-11-30T04:15:00Z` → seconds since 1970; nil when it does not parse.
    static func seconds(ofTimestamp text: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text).map { Int64($0.timeIntervalSince1970) }
    }

    /// `20261130T041500Z`: ISO 8601 basic format, safe in file names.
    package static func compactTimestamp(_ seconds: Int64) -> String {
        let parts = utc(seconds)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second)
    }

    private static func utc(_ seconds: Int64) -> (year: Int32, month: Int32, day: Int32, hour: Int32, minute: Int32, second: Int32) {
        var time = time_t(seconds)
        var parts = tm()
        // gmtime_r fails only for years beyond int; the epoch is a sane stand-in then.
        if gmtime_r(&time, &parts) == nil {
            return (1970, 1, 1, 0, 0, 0)
        }
        return (parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec)
    }
}
