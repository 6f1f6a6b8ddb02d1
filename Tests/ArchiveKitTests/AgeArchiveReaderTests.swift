import Foundation
import Testing
@testable import ArchiveKit

/// `ArchiveReader(decrypting:)`: an encrypted bundle read through the age decryptor, with
/// its failures passed on as `AgeError` and the payload's end verified.
@Suite struct AgeArchiveReaderTests {
    static func reader(for file: [UInt8]) throws -> ArchiveReader {
        let decryptor = try AgeDecryptor(input: AgeMemory.source(file, readSize: 65_536))
        try decryptor.unlock(with: [.x25519(try AgeMemory.identity())])
        return try ArchiveReader(decrypting: decryptor)
    }

    static func readAll(_ reader: ArchiveReader) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        while let entry = try reader.nextEntry() {
            var bytes: [UInt8] = []
            try reader.readData { bytes.append(contentsOf: $0) }
            files[entry.name] = bytes
        }
        return files
    }

    @Test func encryptedArchiveReadsLikeThePlainOne() throws {
        let payload = sampleBytes(count: 500_000)
        let archive = try makeArchive(payload: payload)
        let file = try AgeMemory.encrypt(archive, to: [.x25519(try AgeMemory.identity().recipient)])
        let files = try Self.readAll(try Self.reader(for: file))
        #expect(files["data/app.sqlite"] == payload)
        #expect(files.count == 3)
    }

    @Test func damagedChunkIsThrownAsAgeError() throws {
        let archive = try makeArchive(payload: sampleBytes(count: 500_000))
        var file = try AgeMemory.encrypt(archive, to: [.x25519(try AgeMemory.identity().recipient)])
        try #require(archive.count > 3 * 65_536)
        file[try AgeMemory.payloadOffset(file) + 2 * 65_552 + 7] ^= 0x04
        #expect(throws: AgeError.damagedChunk(index: 2)) { try Self.readAll(try Self.reader(for: file)) }
    }

    /// The archive's end lies many chunks before the payload's: whatever libarchive
    /// still reads after it, a missing final chunk must be refused (the reader checks
    /// the payload's verified end itself when the archive ends).
    @Test func missingFinalChunkAfterTheArchiveEndIsRefused() throws {
        let archive = try makeArchive(payload: sampleBytes(count: 100_000))
        // A zstd skippable frame (RFC 8878, 3.1.2) after the archive, long enough to fill
        // many chunks; decoders pass over it.
        let skip = 64 * 65_536 - archive.count % 65_536 - 8
        let size = UInt32(skip)
        let padded = archive + [0x50, 0x2A, 0x4D, 0x18] + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) }
            + [UInt8](repeating: 0, count: skip)
        let file = try AgeMemory.encrypt(padded, to: [.x25519(try AgeMemory.identity().recipient)])
        let intact = try Self.readAll(try Self.reader(for: file))
        #expect(intact["data/app.sqlite"]?.count == 100_000)
        let cut = Array(file.dropLast(65_552))
        #expect(throws: AgeError.self) { try Self.readAll(try Self.reader(for: cut)) }
    }

    /// What the reader does when the archive ends: the rest of the payload is read to its
    /// verified end, so that a missing final chunk or trailing bytes are refused even
    /// when libarchive stopped reading before them.
    @Test func readingToTheEndVerifiesTheFinalChunk() throws {
        let file = try AgeMemory.encrypt(sampleBytes(count: 3 * 65_536 + 10), to: [.x25519(try AgeMemory.identity().recipient)])
        for (bytes, isIntact) in [(file, true), (Array(file.dropLast(26)), false), (file + [1], false)] {
            let decryptor = try AgeDecryptor(input: AgeMemory.source(bytes))
            try decryptor.unlock(with: [.x25519(try AgeMemory.identity())])
            let source = DecryptingSource(decryptor: decryptor)
            var pointer: UnsafeRawPointer?
            #expect(source.read(into: &pointer) == 65_536)
            if isIntact {
                try source.readToEnd()
            } else {
                #expect(throws: AgeError.self) { try source.readToEnd() }
                #expect(source.error != nil)
            }
        }
    }
}
