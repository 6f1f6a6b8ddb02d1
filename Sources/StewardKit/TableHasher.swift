import Foundation

#if canImport(CryptoKit)
import CryptoKit
#else
import ArchiveKit
#endif

/// SHA-256 for the backup proof's table digests, from the platform, never written here:
/// CryptoKit on Apple's systems (an app's test target), libcrypto on Linux (through
/// ArchiveKit's `SHA256Hasher`, which loads it as the command line does).
struct TableHasher {
    #if canImport(CryptoKit)
    private var hash = CryptoKit.SHA256()

    init() throws {}

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        hash.update(bufferPointer: bytes)
    }

    /// 64 lower-case hex digits.
    mutating func finalize() throws -> String {
        hash.finalize().map { String(format: "%02x", $0) }.joined()
    }
    #else
    private let hasher: SHA256Hasher

    init() throws {
        hasher = try SHA256Hasher()
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bytes)
    }

    /// 64 lower-case hex digits.
    mutating func finalize() throws -> String {
        try hasher.finalize()
    }
    #endif

    mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }
}
