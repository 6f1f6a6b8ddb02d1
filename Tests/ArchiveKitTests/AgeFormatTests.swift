import Foundation
import Testing
@testable import ArchiveKit

/// Steward's own age files: round trips at every chunk boundary, the header as the
/// specification writes it, and refusals of every way a file can be damaged.
@Suite struct AgeFormatTests {
    static let sizes = [0, 1, 65_535, 65_536, 65_537, 131_072, 131_073, 200_000]

    @Test(arguments: sizes)
    func roundTripAtChunkBoundaries(_ size: Int) throws {
        let plaintext = sampleBytes(count: size, seed: UInt64(size) + 3)
        let identity = try AgeMemory.identity()
        let file = try AgeMemory.encrypt(plaintext, to: [.x25519(identity.recipient)])
        // Header, 16-byte nonce, then ceil(size / 64 KiB) chunks (one, empty, for nothing),
        // each 16 bytes longer than its plaintext.
        let chunks = max(1, (size + 65_535) / 65_536)
        #expect(file.count - (try AgeMemory.payloadOffset(file)) == size + 16 * chunks)
        #expect(try AgeMemory.decrypt(file, with: [.x25519(identity)]) == plaintext)
    }

    @Test func blockSizesDoNotChangeThePlaintext() throws {
        let plaintext = sampleBytes(count: 300_000)
        let identity = try AgeMemory.identity()
        for blockSize in [1, 4096, 65_536, 65_537, 1 << 20] {
            let file = try AgeMemory.encrypt(plaintext, to: [.x25519(identity.recipient)], blockSize: blockSize)
            #expect(try AgeMemory.decrypt(file, with: [.x25519(identity)]) == plaintext)
        }
    }

    @Test func readIntoSmallBuffersGivesTheWholePlaintext() throws {
        let plaintext = sampleBytes(count: 150_000)
        let identity = try AgeMemory.identity()
        let file = try AgeMemory.encrypt(plaintext, to: [.x25519(identity.recipient)])
        let decryptor = try AgeDecryptor(input: AgeMemory.source(file, readSize: 1))
        try decryptor.unlock(with: [.x25519(identity)])
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 777)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try decryptor.read(into: $0) }
            if count == 0 { break }
            result += buffer.prefix(count)
        }
        #expect(result == plaintext)
    }

    @Test func headerFollowsTheSpecification() throws {
        let first = try AgeMemory.identity(), second = try AgeMemory.identity(AgeMemory.otherSecret)
        let file = try AgeMemory.encrypt([1, 2, 3], to: [.x25519(first.recipient), .x25519(second.recipient)])
        let text = String(decoding: file.prefix(try AgeMemory.payloadOffset(file) - 16), as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "age-encryption.org/v1")
        #expect(lines[1].hasPrefix("-> X25519 ") && lines[1].count == 10 + 43)
        #expect(lines[2].count == 43)   // a 32-byte body in one short line
        #expect(lines[3].hasPrefix("-> X25519 "))
        #expect(lines[5].hasPrefix("--- ") && lines[5].count == 4 + 43)
        #expect(!text.contains("="))
        #expect(!text.contains("\r"))
        // Both recipients open it, and the header reveals only the types.
        for identity in [first, second] {
            #expect(try AgeMemory.decrypt(file, with: [.x25519(identity)]) == [1, 2, 3])
        }
        #expect(try AgeDecryptor(input: AgeMemory.source(file)).header.recipientTypes == ["X25519", "X25519"])
    }

    /// Bodies of 48 bytes fill a line: an empty final line must follow (the
    /// specification's rule that the last line is shorter than 64 columns).
    @Test func fullBodyLineIsFollowedByAnEmptyLine() {
        let stanza = AgeStanza(type: "test", arguments: ["a"], body: [UInt8](repeating: 7, count: 48))
        let text = String(decoding: stanza.encoded(), as: UTF8.self)
        #expect(text.hasSuffix("\n\n"))
        #expect(text.split(separator: "\n", omittingEmptySubsequences: false).map(\.count) == [9, 64, 0, 0])
    }

    @Test func passphraseRoundTripAndWrongPassphrase() throws {
        let plaintext = sampleBytes(count: 70_000)
        let file = try AgeMemory.encrypt(plaintext, to: [.passphrase(Array("correct horse".utf8), workFactor: 10)])
        #expect(try AgeMemory.decrypt(file, with: [.passphrase(Array("correct horse".utf8))]) == plaintext)
        #expect(throws: AgeError.noIdentityMatched(stanzaTypes: ["scrypt"])) {
            try AgeMemory.decrypt(file, with: [.passphrase(Array("wrong".utf8))])
        }
        #expect(throws: AgeError.noIdentityMatched(stanzaTypes: ["scrypt"])) {
            try AgeMemory.decrypt(file, with: [.x25519(try AgeMemory.identity())])
        }
    }

    @Test func passphraseMustBeTheOnlyRecipient() throws {
        let identity = try AgeMemory.identity()
        #expect(throws: AgeError.self) {
            try AgeEncryptor(recipients: [.passphrase(Array("p".utf8), workFactor: 10), .x25519(identity.recipient)]) { _ in }
        }
        #expect(throws: AgeError.self) { try AgeEncryptor(recipients: []) { _ in } }
        #expect(throws: AgeError.self) { try AgeEncryptor(recipients: [.passphrase([], workFactor: 10)]) { _ in } }
    }

    @Test func wrongKeyIsNoMatch() throws {
        let file = try AgeMemory.encrypt([1, 2, 3], to: [.x25519(try AgeMemory.identity().recipient)])
        #expect(throws: AgeError.noIdentityMatched(stanzaTypes: ["X25519"])) {
            try AgeMemory.decrypt(file, with: [.x25519(try AgeMemory.identity(AgeMemory.otherSecret))])
        }
        // Several identities: the one that fits is found wherever it is.
        #expect(try AgeMemory.decrypt(file, with: [.x25519(try AgeMemory.identity(AgeMemory.otherSecret)),
                                                   .x25519(try AgeMemory.identity())]) == [1, 2, 3])
    }

    // MARK: - Damage

    static func threeChunkFile() throws -> (file: [UInt8], payload: Int, plaintext: [UInt8]) {
        let plaintext = sampleBytes(count: 2 * 65_536 + 1000)
        let file = try AgeMemory.encrypt(plaintext, to: [.x25519(try AgeMemory.identity().recipient)])
        return (file, try AgeMemory.payloadOffset(file), plaintext)
    }

    static func expectRefused(_ file: [UInt8], _ check: (AgeError) -> Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
        do {
            _ = try AgeMemory.decrypt(file, with: [.x25519(try AgeMemory.identity())])
            Issue.record("a damaged file was accepted", sourceLocation: sourceLocation)
        } catch let error as AgeError {
            #expect(check(error), "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func flippedByteInAnyChunkIsRefused() throws {
        let (file, payload, _) = try Self.threeChunkFile()
        let chunk = 65_536 + 16
        for (index, offset) in [payload + 5, payload + chunk + 40_000, payload + 2 * chunk + 999, file.count - 1].enumerated() {
            var damaged = file
            damaged[offset] ^= 0x01
            try Self.expectRefused(damaged) { $0 == .damagedChunk(index: UInt64(min(index, 2))) }
        }
    }

    @Test func flippedHeaderByteIsRefused() throws {
        let (file, _, _) = try Self.threeChunkFile()
        // In the stanza's body: the file key cannot be unwrapped.
        var body = file
        body[Array("age-encryption.org/v1\n".utf8).count + 60] ^= 0x02
        try Self.expectRefused(body) { if case .noIdentityMatched = $0 { true } else if case .malformedHeader = $0 { true } else { false } }
        // A stanza added: the MAC no longer matches.
        let text = Array("age-encryption.org/v1\n".utf8)
        let grease = text + Array("-> grease\n\n".utf8) + file.dropFirst(text.count)
        try Self.expectRefused(grease) { $0 == .headerMACMismatch }
        // The payload nonce changed: every chunk fails.
        var nonce = file
        nonce[try AgeMemory.payloadOffset(file) - 1] ^= 0x80
        try Self.expectRefused(nonce) { $0 == .damagedChunk(index: 0) }
    }

    @Test func reorderedChunksAreRefused() throws {
        let (file, payload, _) = try Self.threeChunkFile()
        let chunk = 65_536 + 16
        let first = file[payload..<(payload + chunk)], second = file[(payload + chunk)..<(payload + 2 * chunk)]
        let swapped = Array(file[..<payload]) + second + first + file[(payload + 2 * chunk)...]
        try Self.expectRefused(swapped) { $0 == .damagedChunk(index: 0) }
        // A chunk dropped, or repeated.
        let dropped = Array(file[..<payload]) + first + file[(payload + 2 * chunk)...]
        try Self.expectRefused(dropped) { $0 == .damagedChunk(index: 1) }
        let repeated = Array(file[..<(payload + chunk)]) + first + file[(payload + chunk)...]
        try Self.expectRefused(repeated) { $0 == .damagedChunk(index: 1) }
    }

    @Test func truncationAnywhereIsRefused() throws {
        let (file, payload, _) = try Self.threeChunkFile()
        let chunk = 65_536 + 16
        for cut in [payload - 20, payload - 1, payload, payload + 100, payload + chunk, payload + 2 * chunk, file.count - 1] {
            try Self.expectRefused(Array(file.prefix(cut))) { error in
                switch error {
                case .truncated, .damagedChunk, .malformedHeader: return true
                default: return false
                }
            }
        }
        // Cut inside the header.
        try Self.expectRefused(Array(file.prefix(30))) { if case .malformedHeader = $0 { true } else { false } }
    }

    @Test func trailingDataIsRefused() throws {
        let (file, _, _) = try Self.threeChunkFile()
        try Self.expectRefused(file + [0]) { $0 == .damagedChunk(index: 2) || $0 == .trailingData }
        // After a full final chunk the chunk itself authenticates, the extra byte does not belong.
        let exact = try AgeMemory.encrypt(sampleBytes(count: 65_536), to: [.x25519(try AgeMemory.identity().recipient)])
        try Self.expectRefused(exact + [0]) { $0 == .trailingData }
        try Self.expectRefused(exact + [UInt8](repeating: 0, count: 65_552)) { $0 == .trailingData }
    }

    @Test func notAgeAndOtherVersionsAreTold() throws {
        #expect(throws: AgeError.notAge) { try AgeDecryptor(input: AgeMemory.source([0x28, 0xB5, 0x2F, 0xFD, 0, 0, 0])) }
        #expect(throws: AgeError.notAge) { try AgeDecryptor(input: AgeMemory.source([])) }
        #expect(throws: AgeError.notAge) { try AgeDecryptor(input: AgeMemory.source([UInt8](repeating: 0x41, count: 100_000))) }
        let other = Array("age-encryption.org/v2\n-> X\n\n--- AAAA\n".utf8)
        #expect(throws: AgeError.unsupportedVersion("age-encryption.org/v2")) { try AgeDecryptor(input: AgeMemory.source(other)) }
    }

    /// The decryptor holds two chunk buffers whatever the payload's size: memory is
    /// constant, and no plaintext is released before its chunk authenticates.
    @Test func plaintextIsReleasedChunkByChunk() throws {
        let (file, _, plaintext) = try Self.threeChunkFile()
        let decryptor = try AgeDecryptor(input: AgeMemory.source(file))
        try decryptor.unlock(with: [.x25519(try AgeMemory.identity())])
        var sizes: [Int] = []
        while let chunk = try decryptor.nextChunk() { sizes.append(chunk.count) }
        #expect(sizes == [65_536, 65_536, plaintext.count - 2 * 65_536])
    }
}
