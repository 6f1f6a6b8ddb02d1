import Foundation
import CCrypto

/// Incremental SHA-256 over libcrypto's EVP interface (hardware SHA extensions where
/// the processor has them).
public final class SHA256Hasher {
    private let context: OpaquePointer
    private var isFinished = false
    private var hasFailed = false
    /// Small updates gathered before they reach libcrypto (allocated on the first one).
    /// The content digests hand over every value and its tag separately, tens of millions
    /// of pieces per GiB, most of a few bytes; each `EVP_DigestUpdate` call costs its dispatch
    /// and a single-block compression: gathered, the digests take 5-15% less CPU (design notes,
    /// "Performance (issue 14)").
    private var pending: UnsafeMutableRawPointer?
    private var pendingCount = 0

    /// Bytes gathered before one `EVP_DigestUpdate`.
    static let pendingCapacity = 1 << 16
    /// Updates at least this long go to libcrypto as they are, after what is pending.
    static let directUpdateBytes = 1 << 14

    public enum Failure: Error, Sendable {
        case libcrypto(String)
    }

    /// A hasher ready for `update`.
    ///
    /// - Throws: `SHA256Hasher.Failure` when libcrypto cannot start a digest;
    ///   `SharedLibraryError` when it cannot be loaded.
    public init() throws {
        try SharedLibraryError.loadCrypto()
        guard let context = EVP_MD_CTX_new() else { throw Failure.libcrypto("EVP_MD_CTX_new failed") }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            EVP_MD_CTX_free(context)
            throw Failure.libcrypto("EVP_DigestInit_ex failed")
        }
        self.context = context
    }

    deinit {
        pending?.deallocate()
        EVP_MD_CTX_free(context)
    }

    /// Adds bytes. A failure of libcrypto here is kept and thrown by `finalize()`, so that
    /// callers feeding many blocks check once.
    public func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0, !isFinished else { return }
        if buffer.count >= Self.directUpdateBytes {
            flushPending()
            if EVP_DigestUpdate(context, base, buffer.count) != 1 { hasFailed = true }
            return
        }
        let gathered = pending ?? UnsafeMutableRawPointer.allocate(byteCount: Self.pendingCapacity, alignment: 64)
        pending = gathered
        if pendingCount + buffer.count > Self.pendingCapacity { flushPending() }
        (gathered + pendingCount).copyMemory(from: base, byteCount: buffer.count)
        pendingCount += buffer.count
    }

    private func flushPending() {
        guard pendingCount > 0, let base = pending else { return }
        if EVP_DigestUpdate(context, base, pendingCount) != 1 { hasFailed = true }
        pendingCount = 0
    }

    public func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest as 64 lower-case hex digits. The hasher cannot be used afterwards.
    /// - Throws: `SHA256Hasher.Failure` when libcrypto failed, here or in an earlier `update`
    ///   (as it does for an update after `finalize()`).
    public func finalize() throws -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        if !isFinished { flushPending() }
        guard !hasFailed else { throw Failure.libcrypto("EVP_DigestUpdate failed") }
        guard !isFinished, EVP_DigestFinal_ex(context, &digest, &length) == 1 else {
            throw Failure.libcrypto("EVP_DigestFinal_ex failed")
        }
        isFinished = true
        return digest.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
    }

    /// The SHA-256 of `bytes` as hex.
    /// - Throws: `SHA256Hasher.Failure` when libcrypto fails.
    public static func hex(of bytes: [UInt8]) throws -> String {
        let hasher = try SHA256Hasher()
        hasher.update(bytes)
        return try hasher.finalize()
    }
}
