import ArchiveKit
import Foundation
import FileNames

import BundleFormat
import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// `steward inspect BUNDLE`: the manifest of a bundle, and every payload hash verified by
/// streaming through the bundle once, without extracting anything. The bundle is read by
/// the same hostile-input reader as `steward restore`.
public struct BundleInspector {
    public init() {}

    /// Whether the file at `path` starts with zstd's magic bytes, as every plain bundle
    /// does, or is an age file, as an encrypted bundle is. A file that cannot be read is
    /// not called a bundle: the database inspection then reports why it cannot be read.
    public static func isBundle(path: String) -> Bool {
        if BundleSource.isEncrypted(path: path) || BundleSource.isArmored(path: path) { return true }
        var info = stat()
        guard stat(FileName.cString(path), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        let descriptor = open(FileName.cString(path), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        // Read-only: close() has nothing to report that matters here.
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: ArchiveReader.zstdMagic.count)
        let count = bytes.withUnsafeMutableBytes { SystemCall.readSome(descriptor, $0) }
        return count == bytes.count && ArchiveReader.startsWithZstdMagic(bytes)
    }

    /// Reads the whole bundle. Throws when it cannot be read or its manifest is missing or
    /// malformed (65); a problem found after the manifest, such as a hash that differs or
    /// an unlisted entry, is in the report's verification instead, so that the manifest
    /// can still be shown.
    public func inspect(path: String, keys: BundleKeys = BundleKeys(), cancellation: Cancellation = Cancellation()) throws -> BundleInspectReport {
        let watch = Stopwatch()
        let size = try BundleReader.checkBundle(path)
        var reader = BundleReader(path: path, cancellation: cancellation)
        reader.keys = keys
        var manifest: BundleManifest?
        do {
            let outcome = try reader.read(onManifest: { manifest = $0 }) { _ in Discard() }
            let mismatched = outcome.files.filter { !$0.matches }
            let problem = mismatched.isEmpty ? nil
                : "the bundle is damaged or was altered: " + mismatched.map { "\($0.path) has SHA-256 \($0.sha256), \(BundleManifest.manifestEntry) lists \($0.expectedSHA256)" }.joined(separator: "; ")
            var report = BundleInspectReport(
                stewardVersion: StewardVersion.current, path: path, sizeBytes: size, manifest: outcome.manifest,
                entries: outcome.entries,
                verification: .init(passed: mismatched.isEmpty, files: outcome.files, problem: problem, durationSeconds: watch.roundedSeconds))
            report.encryption = outcome.encryption
            return report
        } catch let error as StewardError where error.kind == .badInput {
            guard let manifest else { throw error }
            return BundleInspectReport(
                stewardVersion: StewardVersion.current, path: path, sizeBytes: size, manifest: manifest, entries: [],
                verification: .init(passed: false, files: [], problem: error.message, durationSeconds: watch.roundedSeconds))
        }
    }

    /// Whether the bundle at `path` is encrypted (an age file).
    public static func isEncrypted(path: String) -> Bool {
        BundleSource.isEncrypted(path: path)
    }

    /// What an encrypted bundle shows without a key: that it is age, and its recipients'
    /// types. The manifest is inside the encryption; nothing of it is read.
    public func inspectEncrypted(path: String) throws -> EncryptedBundleReport {
        let size = try BundleReader.checkBundle(path)
        let decryptor = try BundleSource.openHeader(path: path)
        return EncryptedBundleReport(
            stewardVersion: StewardVersion.current, path: path, sizeBytes: size,
            encryption: BundleEncryption(header: decryptor.header))
    }

    /// Hashing is done by the reader; the data goes nowhere.
    private final class Discard: BundleReader.Sink {
        func write(_ block: UnsafeRawBufferPointer) throws {}
        func finish() throws {}
    }
}

/// What `steward inspect` found in a bundle: the manifest as the bundle holds it, the
/// entries in stream order, and the verification of every payload hash.
public struct BundleInspectReport: Codable, Sendable {
    public struct Verification: Codable, Sendable {
        /// True when every entry was allowed and every SHA-256 matches the manifest.
        public let passed: Bool
        public let files: [VerifiedFile]
        /// Why verification failed, if it did.
        public let problem: String?
        public let durationSeconds: Double
    }

    public var command = "inspect"
    public let stewardVersion: String
    public var kind = InspectReport.Kind.bundle
    public let bundle: BundleReference
    public let manifest: BundleManifest
    public let entries: [BundleEntry]
    public let verification: Verification
    /// What the age header of an encrypted bundle said; absent for a plain bundle.
    public var encryption: BundleEncryption? = nil

    init(stewardVersion: String, path: String, sizeBytes: Int64, manifest: BundleManifest, entries: [BundleEntry],
         verification: Verification) {
        self.stewardVersion = stewardVersion
        self.bundle = BundleReference(path: path, sizeBytes: sizeBytes)
        self.manifest = manifest
        self.entries = entries
        self.verification = verification
    }
}

/// What `steward inspect` shows of an encrypted bundle when no key is given: the age
/// header's format and recipient types, never the manifest, which is encrypted.
public struct EncryptedBundleReport: Codable, Sendable {
    public var command = "inspect"
    public let stewardVersion: String
    public var kind = "encrypted-bundle"
    public let bundle: BundleReference
    public let encryption: BundleEncryption
    /// Nothing was decrypted, so nothing was verified.
    public var verified = false

    init(stewardVersion: String, path: String, sizeBytes: Int64, encryption: BundleEncryption) {
        self.stewardVersion = stewardVersion
        self.bundle = BundleReference(path: path, sizeBytes: sizeBytes)
        self.encryption = encryption
    }
}
