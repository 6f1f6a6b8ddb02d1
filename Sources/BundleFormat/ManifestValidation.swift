import ArchiveKit
import Foundation
import StewardBase

/// `manifest.json` from a bundle that may have been written, or edited, by anybody:
/// decoded, then checked field by field before anything trusts it.
enum ManifestValidation {
    /// The two fields that say which format the rest is in, read before the rest so that
    /// a newer format is reported as such rather than as a malformed manifest.
    private struct Format: Decodable {
        let format: String?
        let formatVersion: Int?
    }

    static func decode(_ bytes: [UInt8], refusal: (String) -> StewardError) throws -> BundleManifest {
        let entry = BundleManifest.manifestEntry
        let format: Format
        do {
            format = try JSONDecoder().decode(Format.self, from: Data(bytes))
        } catch let error as DecodingError {
            // Not JSON, or JSON of another shape than an object: nothing has a path yet.
            if Self.codingPath(of: error).isEmpty {
                throw refusal("\(entry) is malformed: it is not a JSON object")
            }
            throw refusal("\(entry) is malformed: \(describe(error))")
        }
        guard format.format == BundleManifest.formatName else {
            let found = format.format.map { "'\(ArchiveEntryName.printable($0))'" } ?? "missing"
            throw refusal("\(entry) is not a Steward bundle manifest (format \(found), expected '\(BundleManifest.formatName)')")
        }
        guard let version = format.formatVersion else {
            throw refusal("\(entry) is malformed: formatVersion is missing")
        }
        guard version == BundleManifest.currentFormatVersion else {
            throw refusal("\(entry) has the unknown format version \(version); this Steward reads version \(BundleManifest.currentFormatVersion)")
        }
        let manifest: BundleManifest
        do {
            manifest = try JSONDecoder().decode(BundleManifest.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw refusal("\(entry) is malformed: \(describe(error))")
        }
        if let problem = problem(with: manifest) {
            throw refusal("\(entry) is malformed: \(problem)")
        }
        return manifest
    }

    /// What is wrong with a decoded version 1 manifest, or nil.
    static func problem(with manifest: BundleManifest) -> String? {
        guard manifest.files.count == 1, let file = manifest.files.first else {
            return "a version 1 bundle lists exactly one payload file, this one lists \(manifest.files.count)"
        }
        let components = file.path.split(separator: "/", omittingEmptySubsequences: false)
        guard ArchiveEntryName.isValid(file.path, maximumComponents: 2), components.count == 2,
              components.first == Substring(BundleManifest.dataDirectory)
        else {
            return "the payload path '\(ArchiveEntryName.printable(file.path))' is not \(BundleManifest.dataDirectory)/NAME with NAME of A-Z a-z 0-9 . _ -"
        }
        guard file.size >= 0 else { return "the size of \(file.path) is negative" }
        guard file.sha256.utf8.count == 64, file.sha256.utf8.allSatisfy(isLowerHex) else {
            return "the SHA-256 of \(file.path) is not 64 lower-case hex digits"
        }
        let pageSize = manifest.source.pageSize
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
            return "the page size \(pageSize) is not a power of two from 512 to 65536"
        }
        guard manifest.source.pageCount >= 0 else { return "the page count is negative" }
        // Strings that reports print: each must have the form its field has, so that a
        // crafted manifest cannot put arbitrary text where a time or a mode is expected.
        guard isRFC3339(manifest.createdAt) else { return "createdAt is not an RFC 3339 time" }
        for (field, mode) in [("source.journalMode", manifest.source.journalMode), ("checks.journalMode", manifest.checks.journalMode)] {
            guard journalModes.contains(mode) else { return "\(field) is not a SQLite journal mode" }
        }
        guard isVersion(manifest.sqliteVersion) else { return "sqliteVersion is not a version number such as 3.40.1" }
        if let names = manifest.checks.checksRun {
            for name in names where !BundleManifest.checkNames.contains(name) {
                return "checks.checksRun names '\(ArchiveEntryName.printable(name))', not a check Steward runs (\(BundleManifest.checkNames.joined(separator: ", ")))"
            }
        }
        if manifest.checks.fts5Tables != nil, manifest.checks.checksRun?.contains(CheckName.ftsSync.manifestName) != true {
            return "checks.fts5Tables is present, but checks.checksRun does not record fts5_integrity"
        }
        if manifest.checks.fts4Tables != nil, manifest.checks.checksRun?.contains(CheckName.ftsSync.manifestName) != true {
            return "checks.fts4Tables is present, but checks.checksRun does not record fts5_integrity"
        }
        return nil
    }

    private static let journalModes: Set<String> = ["delete", "truncate", "persist", "memory", "wal", "off"]

    /// `2026-11-30T04:15:00Z`, with optional fractions of a second and a numeric offset
    /// instead of `Z` (RFC 3339, section 5.6), and a date and time that exist.
    static func isRFC3339(_ text: String) -> Bool {
        let pattern = #/(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))/#
        guard text.utf8.allSatisfy({ $0 < 0x80 }), let match = text.wholeMatch(of: pattern),
              let year = Int(match.1), let month = Int(match.2), let day = Int(match.3),
              let hour = Int(match.4), let minute = Int(match.5), let second = Int(match.6)
        else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(month), (1...days[month - 1]).contains(day),
              hour < 24, minute < 60, second <= 60
        else { return false }
        if let offsetHour = match.9.flatMap({ Int($0) }), let offsetMinute = match.10.flatMap({ Int($0) }) {
            return offsetHour < 24 && offsetMinute < 60
        }
        return true
    }

    /// Digits separated by dots: `3.40.1`.
    private static func isVersion(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return (2...4).contains(parts.count)
            && parts.allSatisfy { !$0.isEmpty && $0.count <= 6 && $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }

    private static func codingPath(of error: DecodingError) -> [CodingKey] {
        switch error {
        case .keyNotFound(let key, let context): return context.codingPath + [key]
        case .valueNotFound(_, let context), .typeMismatch(_, let context), .dataCorrupted(let context): return context.codingPath
        @unknown default: return []
        }
    }

    /// A decoding error as the field it is about, without the values it found.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context, _ key: CodingKey? = nil) -> String {
            let keys = (context.codingPath + (key.map { [$0] } ?? [])).map { key in
                key.intValue.map { "[\($0)]" } ?? key.stringValue
            }
            let text = keys.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
            return text.isEmpty ? "the manifest" : ArchiveEntryName.printable(text)
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context, key)) is missing"
        case .valueNotFound(_, let context):
            return "\(path(context)) is null"
        case .typeMismatch(let type, let context):
            return "\(path(context)) is not \(describe(type))"
        case .dataCorrupted(let context):
            return "\(path(context)) has a value that cannot be read"
        @unknown default:
            return "it cannot be decoded"
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Double.Type: return "a number"
        case is Int.Type, is Int32.Type, is Int64.Type: return "an integer in range"
        case is Bool.Type: return "true or false"
        default: return "of the expected kind"
        }
    }
}
