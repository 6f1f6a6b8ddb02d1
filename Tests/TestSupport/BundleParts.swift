import ArchiveKit
import Foundation
import SQLiteKit

/// The three parts of a bundle, taken apart so that tests can put them together again
/// wrongly: a manifest whose fields lie, a payload that was altered, entries in the wrong
/// order, extra or missing. `bundle(_:)` writes them with ArchiveKit's writer (libarchive);
/// `tar(_:)` builds the tar stream by hand (`TarBuilder`) for what no writer makes.
public struct BundleParts {
    /// `manifest.json` as a JSON object.
    public var manifest: [String: Any]
    /// The payload entry's name, such as `data/tickets.sqlite`.
    public var payloadName: String
    public var payload: [UInt8]

    /// Takes a bundle made by `steward backup` apart.
    public init(reading bundle: String) throws {
        let reader = try ArchiveReader(path: bundle)
        var manifest: [String: Any] = [:]
        var payloadName = ""
        var payload: [UInt8] = []
        while let entry = try reader.nextEntry() {
            switch entry.name {
            case "manifest.json":
                let bytes = try reader.readContents(maximumSize: 1 << 20).bytes
                manifest = (try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]) ?? [:]
            case "manifest-sha256.txt":
                _ = try reader.readContents(maximumSize: 1 << 20)
            default:
                payloadName = entry.name
                try reader.readData { payload.append(contentsOf: $0) }
            }
        }
        self.manifest = manifest
        self.payloadName = payloadName
        self.payload = payload
    }

    // MARK: - Editing

    /// The manifest's one file entry.
    public var file: [String: Any] {
        get { (manifest["files"] as? [[String: Any]])?.first ?? [:] }
        set { manifest["files"] = [newValue] }
    }

    /// Replaces the payload and makes the manifest describe it (size and SHA-256), as an
    /// attacker who knows the format would.
    public mutating func replacePayload(with bytes: [UInt8]) throws {
        payload = bytes
        var file = self.file
        file["size"] = bytes.count
        file["sha256"] = try SHA256Hasher.hex(of: bytes)
        self.file = file
    }

    /// Replaces the payload with another database's bytes, the manifest's source describing
    /// its header (page count, page size, user_version), as a Steward that bundled that file
    /// would have written it.
    public mutating func replaceDatabase(with bytes: [UInt8]) throws {
        try replacePayload(with: bytes)
        let header = try DatabaseHeader(bytes: Array(bytes.prefix(100)))
        setSource("pageCount", Int(header.pageCount))
        setSource("pageSize", header.pageSize)
        setSource("userVersion", Int(header.userVersion))
    }

    /// The record of a Steward whose backup ran the full-text check only when asked and was
    /// not asked: `checksRun` without `fts5_integrity`, no lists of full-text tables.
    public mutating func recordNoFullTextCheck() {
        var checks = manifest["checks"] as? [String: Any] ?? [:]
        checks["checksRun"] = (checks["checksRun"] as? [String])?.filter { $0 != "fts5_integrity" }
        checks["fts5Tables"] = nil
        checks["fts4Tables"] = nil
        manifest["checks"] = checks
    }

    /// Sets `manifest.source.<key>`.
    public mutating func setSource(_ key: String, _ value: Any) {
        var source = manifest["source"] as? [String: Any] ?? [:]
        source[key] = value
        manifest["source"] = source
    }

    public var manifestBytes: [UInt8] {
        let data = (try? JSONSerialization.data(withJSONObject: manifest, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return Array(data) + [UInt8(ascii: "\n")]
    }

    /// `manifest-sha256.txt` for the manifest's files, as `steward backup` writes it.
    public var checksumList: [UInt8] {
        let files = manifest["files"] as? [[String: Any]] ?? []
        return Array(files.map { "\($0["sha256"] as? String ?? "")  \($0["path"] as? String ?? "")\n" }.joined().utf8)
    }

    // MARK: - Writing

    /// One entry of a bundle to write.
    public struct Entry {
        public let name: String
        public let contents: [UInt8]

        public init(_ name: String, _ contents: [UInt8]) {
            self.name = name
            self.contents = contents
        }
    }

    /// The three entries in order, as `steward backup` writes them.
    public var entries: [Entry] {
        [Entry("manifest.json", manifestBytes), Entry("manifest-sha256.txt", checksumList), Entry(payloadName, payload)]
    }

    /// Writes `entries` (default: the three of a bundle) with ArchiveKit's writer.
    public func bundle(_ entries: [Entry]? = nil, to path: String) throws {
        let output = FileOutput()
        let writer = try ArchiveWriter(options: .init(compressionLevel: 3, modificationTime: 1_700_000_000)) { output.append($0) }
        for entry in entries ?? self.entries {
            try writer.addFile(name: entry.name, contents: entry.contents)
        }
        try writer.finish()
        try Data(output.bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Writes a hand-made tar stream, compressed with the system `zstd`: `build` adds what
    /// it wants (it may start with `standard` for the bundle's own three entries).
    public func tar(to path: String, _ build: (inout TarBuilder, BundleParts) -> Void) throws {
        var tar = TarBuilder()
        build(&tar, self)
        try Data(try TarBuilder.zstd(tar.bytes)).write(to: URL(fileURLWithPath: path))
    }

    /// Adds the bundle's entries to `tar`, optionally without the end-of-archive blocks.
    public func addEntries(to tar: inout TarBuilder, payload: Bool = true) {
        tar.file("manifest.json", manifestBytes)
        tar.file("manifest-sha256.txt", checksumList)
        if payload { tar.file(payloadName, self.payload) }
    }

    private final class FileOutput: @unchecked Sendable {
        var bytes: [UInt8] = []
        func append(_ buffer: UnsafeRawBufferPointer) { bytes.append(contentsOf: buffer) }
    }
}

/// Deterministic pseudo-random numbers (SplitMix64), so that a failing mutation can be
/// reproduced from its seed.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Bundle bytes with random bytes changed: the mutation test's input.
public enum BundleMutation {
    /// `count` copies of `bundle`, each with 1 to 4 bytes set to random values (never
    /// their old value), from `seed`.
    public static func mutants(of bundle: [UInt8], count: Int, seed: UInt64) -> [(description: String, bytes: [UInt8])] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { index in
            var bytes = bundle
            var changes: [String] = []
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let offset = Int.random(in: 0..<bytes.count, using: &generator)
                let old = bytes[offset]
                var new = UInt8.random(in: .min ... .max, using: &generator)
                if new == old { new = old ^ 0xFF }
                bytes[offset] = new
                changes.append("@\(offset) \(old)→\(new)")
            }
            return ("mutant \(index) (seed \(seed)): \(changes.joined(separator: ", "))", bytes)
        }
    }
}
