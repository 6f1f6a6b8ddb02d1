import Foundation

/// The STREAM construction of age's payload (age-encryption.org/v1, "Payload"): the
/// plaintext in chunks of 64 KiB, each sealed with ChaCha20-Poly1305 under the payload
/// key, with the nonce an 11-byte big-endian chunk counter and a last-chunk flag byte.
/// Only the final chunk may be shorter, and it is empty only when the whole payload is.
enum AgeStream {
    static let chunkSize = 64 * 1024
    static let sealedChunkSize = chunkSize + AgePrimitives.tagSize
    static let nonceSize = 16

    /// The 12-byte ChaCha20-Poly1305 nonce of chunk `counter`.
    static func nonce(counter: UInt64, isLast: Bool) -> [UInt8] {
        var nonce = [UInt8](repeating: 0, count: 12)
        for index in 0..<8 {
            nonce[10 - index] = UInt8(truncatingIfNeeded: counter >> UInt64(8 * index))
        }
        nonce[11] = isLast ? 1 : 0
        return nonce
    }

    /// HKDF-SHA-256(ikm: file key, salt: the payload nonce, info: "payload").
    static func payloadKey(fileKey: [UInt8], nonce: [UInt8]) throws(AgeError) -> [UInt8] {
        try AgePrimitives.hkdf(key: fileKey, salt: nonce, info: "payload", length: 32)
    }
}
