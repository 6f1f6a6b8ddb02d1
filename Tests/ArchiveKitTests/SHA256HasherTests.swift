import Testing
@testable import ArchiveKit

@Suite struct SHA256HasherTests {
    /// FIPS 180-2 and NIST example vectors.
    static let vectors: [(input: String, digest: String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("The quick brown fox jumps over the lazy dog",
         "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592"),
    ]

    @Test(arguments: vectors)
    func knownVectors(_ vector: (input: String, digest: String)) throws {
        #expect(try SHA256Hasher.hex(of: Array(vector.input.utf8)) == vector.digest)
        let hasher = try SHA256Hasher()
        hasher.update(Array(vector.input.utf8))
        #expect(try hasher.finalize() == vector.digest)
    }

    @Test func oneMillionAs() throws {
        let hasher = try SHA256Hasher()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hasher.update(chunk) }
        #expect(try hasher.finalize() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Small updates are gathered before they reach libcrypto, long ones pass straight
    /// through: pieces of every size around the gathering buffer's capacity and the
    /// direct-update length, in any mix, give the digest of the bytes (the FIPS 180-2
    /// million-a vector).
    @Test(arguments: [
        [1, 9, 17],
        [SHA256Hasher.directUpdateBytes - 1, 3, SHA256Hasher.directUpdateBytes],
        [SHA256Hasher.pendingCapacity - 1, 2, 1, SHA256Hasher.pendingCapacity],
        [5, SHA256Hasher.directUpdateBytes + 1, 63, SHA256Hasher.pendingCapacity + 7, 64, 65],
        [SHA256Hasher.directUpdateBytes / 2 + 1],
    ])
    func gatheredAndDirectUpdatesGiveTheDigestOfTheBytes(_ pattern: [Int]) throws {
        let hasher = try SHA256Hasher()
        let total = 1_000_000
        let a = [UInt8](repeating: UInt8(ascii: "a"), count: 2 * SHA256Hasher.pendingCapacity)
        var done = 0
        var next = 0
        while done < total {
            let count = min(pattern[next % pattern.count], total - done)
            a.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            done += count
            next += 1
        }
        #expect(try hasher.finalize() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// What is still gathered reaches the digest at `finalize()`, and the buffer it was
    /// gathered in may be reused by the caller at once.
    @Test func aGatheredUpdateIsCopiedBeforeTheCallerReusesItsBuffer() throws {
        let hasher = try SHA256Hasher()
        var buffer = Array("abc".utf8)
        buffer.withUnsafeBytes { hasher.update($0) }
        buffer.withUnsafeMutableBytes { $0.copyBytes(from: Array("xyz".utf8)) }
        #expect(buffer == Array("xyz".utf8))
        #expect(try hasher.finalize() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func nothingHashedIsTheEmptyDigest() throws {
        let hasher = try SHA256Hasher()
        #expect(try hasher.finalize() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    /// Bytes that cross SHA-256's 64-byte block boundaries in every way.
    static let message: [UInt8] = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    @Test(arguments: [1, 3, 55, 56, 63, 64, 65, 127, 128, 999, 1000, 4096])
    func incrementalUpdatesEqualOneShot(_ chunkSize: Int) throws {
        let oneShot = try SHA256Hasher.hex(of: Self.message)
        let hasher = try SHA256Hasher()
        var start = 0
        while start < Self.message.count {
            let end = min(start + chunkSize, Self.message.count)
            hasher.update(Array(Self.message[start..<end]))
            start = end
        }
        #expect(try hasher.finalize() == oneShot)
    }

    @Test func splittingAtEveryPointGivesTheSameDigest() throws {
        let message = Array(Self.message.prefix(200))
        let expected = try SHA256Hasher.hex(of: message)
        for split in 0...message.count {
            let hasher = try SHA256Hasher()
            hasher.update(Array(message[..<split]))
            hasher.update(Array(message[split...]))
            #expect(try hasher.finalize() == expected, "split at \(split)")
        }
    }

    @Test func rawBufferUpdateEqualsArrayUpdate() throws {
        let hasher = try SHA256Hasher()
        Self.message.withUnsafeBytes { hasher.update($0) }
        hasher.update(UnsafeRawBufferPointer(start: nil, count: 0))
        #expect(try hasher.finalize() == SHA256Hasher.hex(of: Self.message))
    }

    @Test func emptyUpdatesChangeNothing() throws {
        let hasher = try SHA256Hasher()
        hasher.update([])
        hasher.update(Array("abc".utf8))
        hasher.update([])
        #expect(try hasher.finalize() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func differentInputsGiveDifferentDigests() throws {
        var changed = Self.message
        changed[500] ^= 1
        #expect(try SHA256Hasher.hex(of: changed) != SHA256Hasher.hex(of: Self.message))
    }

    @Test func digestIsSixtyFourLowerCaseHexDigits() throws {
        let digest = try SHA256Hasher.hex(of: Self.message)
        #expect(digest.count == 64)
        #expect(digest.allSatisfy { "0123456789abcdef".contains($0) })
    }

    @Test func finalizeTwiceThrows() throws {
        let hasher = try SHA256Hasher()
        hasher.update(Array("abc".utf8))
        _ = try hasher.finalize()
        hasher.update(Array("more".utf8))
        #expect(throws: SHA256Hasher.Failure.self) { try hasher.finalize() }
    }
}
