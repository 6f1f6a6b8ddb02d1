import Foundation
import Testing
@testable import ArchiveKit
import TestSupport

/// The C2SP CCTV age test vectors (Fixtures/age/README.md): every vector of the kinds
/// Steward implements is opened and must be accepted or refused exactly as it expects,
/// with the plaintext released before any failure matching the vector's payload hash.
@Suite struct AgeVectorTests {
    /// One vector file: its textual header and the age file after it.
    struct Vector: CustomStringConvertible {
        let name: String
        let expect: String
        let payloadSHA256: String?
        let identities: [String]
        let passphrases: [String]
        let isCompressed: Bool
        let isArmored: Bool
        let file: [UInt8]
        var description: String { name }
    }

    static let directory = Fixtures.repositoryRoot.appendingPathComponent("Tests/ArchiveKitTests/Fixtures/age/testdata")

    static var allNames: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    /// The kinds of vector checked: X25519, scrypt, header (stanza, version, empty), HMAC, STREAM.
    static let implementedPrefixes = ["x25519", "scrypt", "stanza", "hmac", "stream", "header", "version", "empty"]
    static let unimplementedPrefixes = ["armor", "hybrid"]

    static func isImplemented(_ name: String) -> Bool {
        implementedPrefixes.contains { name.hasPrefix($0) }
    }

    static func load(_ name: String) throws -> Vector {
        let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent(name)))
        var fields: [(String, String)] = []
        var offset = 0
        while true {
            let end = try #require(bytes[offset...].firstIndex(of: 0x0A))
            if end == offset {
                offset += 1
                break
            }
            let line = String(decoding: bytes[offset..<end], as: UTF8.self)
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            fields.append((parts[0], parts.count > 1 ? parts[1] : ""))
            offset = end + 1
        }
        func values(_ key: String) -> [String] { fields.filter { $0.0 == key }.map(\.1) }
        return Vector(
            name: name, expect: try #require(values("expect").first), payloadSHA256: values("payload").first,
            identities: values("identity"), passphrases: values("passphrase"),
            isCompressed: values("compressed").first == "zlib", isArmored: values("armored").first == "yes",
            file: Array(bytes[offset...]))
    }

    static var uncompressedNames: [String] {
        allNames.filter { isImplemented($0) && !((try? load($0).isCompressed) ?? true) }
    }

    static var compressedNames: [String] {
        allNames.filter { isImplemented($0) && ((try? load($0).isCompressed) ?? false) }
    }

    /// zlib without a zlib in the project: Python's, in the test only.
    static let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }

    static func inflate(_ bytes: [UInt8]) throws -> [UInt8] {
        let directory = try TemporaryDirectory()
        let input = directory.file("in.zlib"), output = directory.file("out")
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        let script = "import sys, zlib; open(sys.argv[2], 'wb').write(zlib.decompress(open(sys.argv[1], 'rb').read()))"
        let result = try systemTool([try #require(python), "-c", script, input, output])
        try #require(result.status == 0, "python3 zlib: \(result.output)")
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
    }

    /// What opening the file gave: the vectors' own words for the outcome, and the
    /// plaintext released before it.
    static func open(_ vector: Vector, file: [UInt8]) throws -> (outcome: String, payload: [UInt8], error: Error?) {
        var position = 0
        // Odd-sized reads, so that header lines and chunks straddle them.
        let source: AgeDecryptor.Input = { buffer in
            let count = min(buffer.count, 1237, file.count - position)
            file.withUnsafeBytes { bytes in
                buffer.baseAddress?.copyMemory(from: bytes.baseAddress! + position, byteCount: count)
            }
            position += count
            return count
        }
        var identities: [AgeIdentity] = try vector.identities.map { .x25519(try AgeX25519Identity($0)) }
        identities += vector.passphrases.map { .passphrase(Array($0.utf8)) }
        var payload: [UInt8] = []
        do {
            let decryptor = try AgeDecryptor(input: source)
            try decryptor.unlock(with: identities)
            while let chunk = try decryptor.nextChunk() { payload += chunk }
            return ("success", payload, nil)
        } catch let error as AgeError {
            switch error {
            case .noIdentityMatched: return ("no match", payload, error)
            case .headerMACMismatch: return ("HMAC failure", payload, error)
            case .notAge, .unsupportedVersion, .malformedHeader: return ("header failure", payload, error)
            case .damagedChunk, .truncated, .trailingData: return ("payload failure", payload, error)
            default: return ("unexpected", payload, error)
            }
        }
    }

    static func check(_ name: String) throws {
        let vector = try load(name)
        #expect(!vector.isArmored)
        let file = vector.isCompressed ? try inflate(vector.file) : vector.file
        let result = try open(vector, file: file)
        #expect(result.outcome == vector.expect, "\(name): \(result.error.map { "\($0)" } ?? "no error")")
        if vector.expect == "success" || vector.expect == "payload failure" {
            let hash = try SHA256Hasher.hex(of: result.payload)
            #expect(hash == vector.payloadSHA256, "\(name): the plaintext released differs")
        }
    }

    @Test(arguments: uncompressedNames)
    func vector(_ name: String) throws {
        try Self.check(name)
    }

    @Test(.enabled(if: python != nil, "python3 is needed to inflate the zlib-compressed vectors"), arguments: compressedNames)
    func compressedVector(_ name: String) throws {
        try Self.check(name)
    }

    /// Every vector is either run or of a kind Steward does not implement (armor, hybrid),
    /// and the counts stay what the fixture holds.
    @Test func everyVectorIsAccountedFor() throws {
        let names = Self.allNames
        let unimplemented = names.filter { name in Self.unimplementedPrefixes.contains { name.hasPrefix($0) } }
        let implemented = names.filter(Self.isImplemented)
        #expect(implemented.count + unimplemented.count == names.count)
        #expect(names.count == 143)
        #expect(implemented.count == 92)
        #expect(Self.uncompressedNames.count + Self.compressedNames.count == implemented.count)
    }
}
