import ArchiveKit
import FileNames
import Foundation

import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// Reads a bundle (docs/design-notes.md, "Bundle format", version 1) as hostile input, in one pass
/// and without extracting anything itself: `steward restore` hands the payload to files
/// in its staging directory, `steward inspect` only hashes it.
///
/// What it accepts, in this order and nothing else: `manifest.json`, a known format
/// version whose every field is present and sane; `manifest-sha256.txt`, exactly the
/// lines the manifest's files give; then each file the manifest lists, once, with the
/// size it lists. ArchiveKit refuses what is not a regular file with a valid name
/// (absolute paths, `..`, links, devices, FIFOs), duplicates and a truncated stream.
/// The SHA-256 of every payload file is computed while it streams through.
package struct BundleReader {
    static let maximumManifestSize = 1 << 20
    static let maximumChecksumListSize = 64 * 1024

    /// Receives one payload file's data, block by block.
    package protocol Sink: AnyObject {
        func write(_ block: UnsafeRawBufferPointer) throws
        /// After the last block; the data is complete and its size is as listed.
        func finish() throws
    }

    package struct Outcome {
        package let manifest: BundleManifest
        package let manifestBytes: [UInt8]
        package let checksumListBytes: [UInt8]
        /// Every entry in the order of the stream.
        package let entries: [BundleEntry]
        /// The payload files in the manifest's order, with the hash computed while reading.
        package let files: [VerifiedFile]
        /// What the age header said, for an encrypted bundle.
        package var encryption: BundleEncryption? = nil
    }

    /// The bundle opened, and decrypted when it is encrypted, before anything is read.
    package struct Opened {
        let reader: ArchiveReader
        let encryption: BundleEncryption?
    }

    let path: String
    let cancellation: Cancellation
    /// What opens an encrypted bundle.
    package var keys = BundleKeys()
    /// Payload bytes read so far and in all, after every block.
    package var progress: (Int64, Int64) -> Void = { _, _ in }

    /// Reads the whole bundle. `onManifest` runs once the manifest and the checksum list
    /// have been read and checked, before any payload; `open` gives the sink of each
    /// payload file. Structural problems throw `.badInput` (65); a hash that differs
    /// from the manifest's does not throw: it is in the outcome, for the caller to judge.
    package func read(opened: Opened? = nil, onManifest: (BundleManifest) throws -> Void = { _ in },
              open: (BundleManifest.File) throws -> Sink) throws -> Outcome {
        let opened = try opened ?? self.open()
        let reader = opened.reader
        var entries: [BundleEntry] = []
        do {
            /// The next entry, which must be `name`, read whole (at most `limit` bytes).
            func small(_ name: String, limit: Int, ifAbsent: String, ifOther: (String) -> String) throws -> [UInt8] {
                guard let entry = try reader.nextEntry() else { throw refusal(ifAbsent) }
                entries.append(BundleEntry(name: entry.name, size: entry.size))
                guard entry.name == name else { throw refusal(ifOther(entry.name)) }
                return try readSmall(reader, entry: entry, limit: limit)
            }
            let manifestBytes = try small(
                BundleManifest.manifestEntry, limit: Self.maximumManifestSize,
                ifAbsent: "it holds no entries; the first must be \(BundleManifest.manifestEntry)",
                ifOther: { "the first entry is '\($0)', not \(BundleManifest.manifestEntry): the manifest is missing" })
            let manifest = try ManifestValidation.decode(manifestBytes, refusal: refusal)
            let checksumList = try small(
                BundleManifest.checksumEntry, limit: Self.maximumChecksumListSize,
                ifAbsent: "\(BundleManifest.checksumEntry) is missing after the manifest",
                ifOther: { "the second entry is '\($0)', not \(BundleManifest.checksumEntry)" })
            guard checksumList == manifest.checksumList() else {
                throw refusal("\(BundleManifest.checksumEntry) does not list exactly the files and SHA-256 sums of \(BundleManifest.manifestEntry)")
            }
            try onManifest(manifest)

            var verified: [String: VerifiedFile] = [:]
            let totalBytes = manifest.files.reduce(Int64(0)) { $0 + $1.size }
            var bytesBefore: Int64 = 0
            while let entry = try reader.nextEntry() {
                entries.append(BundleEntry(name: entry.name, size: entry.size))
                guard let file = manifest.files.first(where: { $0.path == entry.name }) else {
                    throw refusal("the entry '\(entry.name)' is not listed in \(BundleManifest.manifestEntry)")
                }
                // ArchiveKit refuses a second entry of the same name; this is for clarity.
                guard verified[file.path] == nil else { throw refusal("the entry '\(entry.name)' appears twice") }
                if entry.size != file.size {
                    let comparison = entry.size > file.size ? "more than" : "fewer than"
                    throw refusal("the entry '\(entry.name)' holds \(Counted.phrase(entry.size, "byte")), \(comparison) the \(Counted.phrase(file.size, "byte")) \(BundleManifest.manifestEntry) lists")
                }
                let sink = try open(file)
                let summary = try reader.readData(maximumSize: file.size) { block in
                    if cancellation.isCancelled { throw Self.interrupted(cancellation) }
                    try sink.write(block)
                    progress(bytesBefore + Int64(block.count), totalBytes)
                    bytesBefore += Int64(block.count)
                }
                try sink.finish()
                verified[file.path] = VerifiedFile(path: file.path, size: summary.size, sha256: summary.sha256, expectedSHA256: file.sha256)
            }
            let files = try manifest.files.map { file -> VerifiedFile in
                guard let found = verified[file.path] else {
                    throw refusal("the entry '\(file.path)' listed in \(BundleManifest.manifestEntry) is missing")
                }
                return found
            }
            return Outcome(manifest: manifest, manifestBytes: manifestBytes, checksumListBytes: checksumList,
                           entries: entries, files: files, encryption: opened.encryption)
        } catch let error as ArchiveError {
            throw explain(error)
        } catch let error as AgeError {
            throw BundleSource.explain(error, path: path)
        }
    }

    /// Opens the bundle; for an encrypted one, finds the key and checks the header (77
    /// when no key opens it, 65 for a damaged header), so that a caller can do this
    /// before it creates anything.
    package func open() throws -> Opened {
        do {
            // Two components at most (`data/NAME`), a handful of entries: a version 1 bundle
            // holds three.
            let (reader, encryption) = try BundleSource.open(path: path, keys: keys, limits: .init(maximumEntries: 16, maximumComponents: 2))
            return Opened(reader: reader, encryption: encryption)
        } catch let error as AgeError {
            throw BundleSource.explain(error, path: path)
        } catch let error as ArchiveError {
            if case .input(let code, _) = error {
                throw StewardError(.notFound, "cannot read the bundle \(path): \(SystemCall.message(code))")
            }
            throw explain(error)
        }
    }

    private func readSmall(_ reader: ArchiveReader, entry: ArchiveReader.Entry, limit: Int) throws -> [UInt8] {
        guard entry.size <= Int64(limit) else {
            throw refusal("'\(entry.name)' is \(entry.size) bytes, more than the \(limit) a bundle's \(entry.name) may have")
        }
        return try reader.readContents(maximumSize: limit).bytes
    }

    // MARK: - Errors

    func refusal(_ reason: String) -> StewardError {
        StewardError(.badInput, "refusing the bundle \(path): \(reason)")
    }

    package static func interrupted(_ cancellation: Cancellation) -> StewardError {
        StewardError.interrupted(by: cancellation)
    }

    /// ArchiveKit's refusals in words for people who did not write the bundle.
    func explain(_ error: ArchiveError) -> StewardError {
        switch error {
        case .input(let code, let message):
            return StewardError(.inputOutput, "cannot read the bundle \(path): \(code == 0 ? message : SystemCall.message(code))")
        case .invalidName(let name):
            return refusal("the entry '\(ArchiveEntryName.printable(name))' has a name no bundle holds "
                           + "(absolute paths, '..' and characters outside A-Z a-z 0-9 . _ - are refused)")
        case .notRegularFile(let name):
            return refusal("the entry '\(ArchiveEntryName.printable(name))' is not a regular file "
                           + "(links, directories, devices and FIFOs are refused)")
        case .duplicateName(let name):
            return refusal("the entry '\(ArchiveEntryName.printable(name))' appears twice")
        case .sizeMismatch(let name, let declared, let actual):
            return refusal("the entry '\(ArchiveEntryName.printable(name))' holds more data than its \(Counted.phrase(declared, "byte")) (\(actual) read); reading stopped there")
        case .tooLarge(let name, let limit):
            return refusal("'\(ArchiveEntryName.printable(name))' is larger than \(limit) bytes")
        case .truncated(let message):
            return refusal("the stream is truncated (\(message))")
        default:
            return refusal(error.description)
        }
    }

    package init(path: String, cancellation: Cancellation) {
        self.path = path
        self.cancellation = cancellation
    }

    /// The bundle must be a regular file that can be read; returns its size.
    package static func checkBundle(_ path: String) throws -> Int64 {
        let info = try Paths.status(of: path, missing: { StewardError(.notFound, "\(path): no such bundle") },
                                         failed: { StewardError(.notFound, "cannot read the bundle \(path): \($0)") })
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw StewardError(.badInput, "refusing the bundle \(path): it is not a regular file")
        }
        guard access(FileName.cString(path), R_OK) == 0 else {
            throw StewardError(.notFound, "cannot read the bundle \(path): \(SystemCall.message(errno))")
        }
        return Int64(info.st_size)
    }
}

/// One entry of a bundle, as the stream holds it.
public struct BundleEntry: Codable, Sendable, Equatable {
    public let name: String
    public let size: Int64
}

/// A payload file: its SHA-256 as computed while reading, and as the manifest lists it.
public struct VerifiedFile: Codable, Sendable, Equatable {
    public let path: String
    public let size: Int64
    public let sha256: String
    public let expectedSHA256: String
    /// `sha256 == expectedSHA256`, kept in the JSON for readers of reports.
    public let matches: Bool

    public init(path: String, size: Int64, sha256: String, expectedSHA256: String) {
        self.path = path
        self.size = size
        self.sha256 = sha256
        self.expectedSHA256 = expectedSHA256
        matches = sha256 == expectedSHA256
    }
}
