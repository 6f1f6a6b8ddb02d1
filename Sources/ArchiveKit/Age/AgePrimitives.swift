import CCrypto
import Foundation

/// The primitives age is built on, every one of them libcrypto's: X25519 (EVP_PKEY),
/// HKDF-SHA-256 (EVP_PKEY_HKDF), HMAC-SHA-256, ChaCha20-Poly1305 (EVP_CIPHER), scrypt
/// (EVP_PBE_scrypt) and the random generator. Nothing here computes a primitive itself.
enum AgePrimitives {
    static let tagSize = 16
    static let keySize = 32

    /// libcrypto, loaded before the first call into it; the failure as age's `libcrypto`
    /// case, which names the library and why.
    static func loadLibcrypto() throws(AgeError) {
        do {
            try SharedLibraryError.loadCrypto()
        } catch {
            throw .libcrypto(error.message)
        }
    }

    // MARK: - Random

    static func randomBytes(_ count: Int) throws(AgeError) -> [UInt8] {
        try loadLibcrypto()
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else { throw .libcrypto("RAND_bytes") }
        return bytes
    }

    // MARK: - X25519

    /// The public key (u-coordinate) of a 32-byte private scalar; libcrypto clamps it.
    static func x25519PublicKey(privateKey: [UInt8]) throws(AgeError) -> [UInt8] {
        try loadLibcrypto()
        let key = try x25519Key(privateKey: privateKey)
        defer { EVP_PKEY_free(key) }
        var publicKey = [UInt8](repeating: 0, count: keySize)
        var length = keySize
        guard EVP_PKEY_get_raw_public_key(key, &publicKey, &length) == 1, length == keySize else {
            throw .libcrypto("EVP_PKEY_get_raw_public_key")
        }
        return publicKey
    }

    /// X25519(privateKey, peer). nil when the result is all zeros, which a low-order
    /// peer point gives: libcrypto's derive refuses it, and age must too (RFC 7748, 6.1).
    static func x25519(privateKey: [UInt8], peer: [UInt8]) throws(AgeError) -> [UInt8]? {
        try loadLibcrypto()
        guard peer.count == keySize else { return nil }
        let key = try x25519Key(privateKey: privateKey)
        defer { EVP_PKEY_free(key) }
        guard let peerKey = peer.withUnsafeBufferPointer({
            EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nil, $0.baseAddress, keySize)
        }) else { throw .libcrypto("EVP_PKEY_new_raw_public_key") }
        defer { EVP_PKEY_free(peerKey) }
        guard let context = EVP_PKEY_CTX_new(key, nil) else { throw .libcrypto("EVP_PKEY_CTX_new") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer(context, peerKey) == 1 else {
            throw .libcrypto("EVP_PKEY_derive_init")
        }
        var shared = [UInt8](repeating: 0, count: keySize)
        var length = keySize
        // libcrypto's X25519 derive fails exactly when the shared secret is all zeros
        // (ossl_x25519); the check below keeps that true whatever the version does.
        guard EVP_PKEY_derive(context, &shared, &length) == 1, length == keySize else { return nil }
        guard shared.contains(where: { $0 != 0 }) else { return nil }
        return shared
    }

    private static func x25519Key(privateKey: [UInt8]) throws(AgeError) -> OpaquePointer {
        try loadLibcrypto()
        guard privateKey.count == keySize,
              let key = privateKey.withUnsafeBufferPointer({
                  EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nil, $0.baseAddress, keySize)
              })
        else { throw .libcrypto("EVP_PKEY_new_raw_private_key") }
        return key
    }

    // MARK: - HKDF, HMAC

    /// HKDF-SHA-256 (RFC 5869). An empty salt is left unset: libcrypto then uses a
    /// hash-length string of zeros, which HMAC treats exactly as the empty key.
    static func hkdf(key: [UInt8], salt: [UInt8], info: String, length: Int) throws(AgeError) -> [UInt8] {
        try loadLibcrypto()
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nil) else { throw .libcrypto("EVP_PKEY_CTX_new_id(HKDF)") }
        defer { EVP_PKEY_CTX_free(context) }
        let info = Array(info.utf8)
        guard EVP_PKEY_derive_init(context) == 1,
              EVP_PKEY_CTX_set_hkdf_md(context, EVP_sha256()) == 1,
              EVP_PKEY_CTX_set1_hkdf_key(context, key, Int32(key.count)) == 1,
              salt.isEmpty || EVP_PKEY_CTX_set1_hkdf_salt(context, salt, Int32(salt.count)) == 1,
              EVP_PKEY_CTX_add1_hkdf_info(context, info, Int32(info.count)) == 1
        else { throw .libcrypto("setting up HKDF-SHA-256") }
        var output = [UInt8](repeating: 0, count: length)
        var outputLength = length
        guard EVP_PKEY_derive(context, &output, &outputLength) == 1, outputLength == length else {
            throw .libcrypto("HKDF-SHA-256")
        }
        return output
    }

    static func hmacSHA256(key: [UInt8], message: [UInt8]) throws(AgeError) -> [UInt8] {
        try loadLibcrypto()
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard HMAC(EVP_sha256(), key, Int32(key.count), message, message.count, &output, &length) != nil, length == 32 else {
            throw .libcrypto("HMAC-SHA-256")
        }
        return output
    }

    /// Compares in time independent of where the bytes differ (CRYPTO_memcmp).
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && CRYPTO_memcmp(a, b, a.count) == 0
    }

    // MARK: - scrypt

    /// scrypt with r = 8, p = 1 (age's parameters), N = 2^logN.
    static func scrypt(passphrase: [UInt8], salt: [UInt8], logN: Int, length: Int) throws(AgeError) -> [UInt8] {
        try loadLibcrypto()
        let n = UInt64(1) << UInt64(logN)
        // libcrypto's own estimate of what it allocates (V and B), plus room.
        let memory = 128 * 8 * (n + 2) + 128 * 8 + (1 << 20)
        var output = [UInt8](repeating: 0, count: length)
        let status = passphrase.withUnsafeBufferPointer { pass in
            pass.withMemoryRebound(to: CChar.self) { pass in
                EVP_PBE_scrypt(pass.baseAddress, pass.count, salt, salt.count, n, 8, 1, memory, &output, length)
            }
        }
        guard status == 1 else { throw .libcrypto("scrypt (work factor \(logN))") }
        return output
    }
}

/// ChaCha20-Poly1305 (RFC 8439) with a 32-byte key, one context reused for many
/// messages: the STREAM chunks of a payload, or a single wrapped file key.
final class ChaChaPoly {
    private let context: OpaquePointer
    private let key: [UInt8]

    init(key: [UInt8]) throws(AgeError) {
        try AgePrimitives.loadLibcrypto()
        guard key.count == AgePrimitives.keySize else { throw .libcrypto("a ChaCha20-Poly1305 key is 32 bytes") }
        guard let context = EVP_CIPHER_CTX_new() else { throw .libcrypto("EVP_CIPHER_CTX_new") }
        self.context = context
        self.key = key
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
    }

    /// Encrypts `plaintext` into `output`, which must hold its size plus the 16-byte tag.
    func seal(nonce: [UInt8], plaintext: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(AgeError) {
        guard output.count >= plaintext.count + AgePrimitives.tagSize, let outputBase = output.baseAddress else {
            throw .libcrypto("the sealing buffer is too small")
        }
        guard EVP_EncryptInit_ex(context, EVP_chacha20_poly1305(), nil, key, nonce) == 1 else {
            throw .libcrypto("EVP_EncryptInit_ex(ChaCha20-Poly1305)")
        }
        let out = outputBase.assumingMemoryBound(to: UInt8.self)
        var written: Int32 = 0
        if plaintext.count > 0 {
            guard EVP_EncryptUpdate(context, out, &written, plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                    Int32(plaintext.count)) == 1, Int(written) == plaintext.count
            else { throw .libcrypto("EVP_EncryptUpdate(ChaCha20-Poly1305)") }
        }
        var finalWritten: Int32 = 0
        guard EVP_EncryptFinal_ex(context, out + plaintext.count, &finalWritten) == 1, finalWritten == 0 else {
            throw .libcrypto("EVP_EncryptFinal_ex(ChaCha20-Poly1305)")
        }
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(AgePrimitives.tagSize),
                                  out + plaintext.count) == 1
        else { throw .libcrypto("getting the Poly1305 tag") }
    }

    /// Decrypts `ciphertext` (with its tag at the end) into `output`; false when it does
    /// not authenticate, in which case `output` holds nothing to use.
    func open(nonce: [UInt8], ciphertext: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(AgeError) -> Bool {
        guard ciphertext.count >= AgePrimitives.tagSize else { return false }
        let messageSize = ciphertext.count - AgePrimitives.tagSize
        guard output.count >= messageSize, let input = ciphertext.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw .libcrypto("the opening buffer is too small")
        }
        guard EVP_DecryptInit_ex(context, EVP_chacha20_poly1305(), nil, key, nonce) == 1 else {
            throw .libcrypto("EVP_DecryptInit_ex(ChaCha20-Poly1305)")
        }
        let tag = UnsafeMutableRawPointer(mutating: input + messageSize)
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(AgePrimitives.tagSize), tag) == 1 else {
            throw .libcrypto("setting the Poly1305 tag")
        }
        let out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        var written: Int32 = 0
        if messageSize > 0 {
            guard EVP_DecryptUpdate(context, out, &written, input, Int32(messageSize)) == 1, Int(written) == messageSize else {
                throw .libcrypto("EVP_DecryptUpdate(ChaCha20-Poly1305)")
            }
        }
        var scratch = [UInt8](repeating: 0, count: 16)
        var finalWritten: Int32 = 0
        // Final is where the tag is checked; its failure means the message was changed.
        return EVP_DecryptFinal_ex(context, &scratch, &finalWritten) == 1
    }

    /// A whole small message, sealed with its tag appended.
    func seal(nonce: [UInt8], _ plaintext: [UInt8]) throws(AgeError) -> [UInt8] {
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: max(plaintext.count, 1), alignment: 16)
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: plaintext.count + AgePrimitives.tagSize, alignment: 16)
        defer {
            input.deallocate()
            output.deallocate()
        }
        input.copyBytes(from: plaintext)
        try seal(nonce: nonce, plaintext: UnsafeRawBufferPointer(rebasing: input[0..<plaintext.count]), into: output)
        return Array(output)
    }

    /// A whole small message, or nil when it does not authenticate.
    func open(nonce: [UInt8], _ ciphertext: [UInt8]) throws(AgeError) -> [UInt8]? {
        guard ciphertext.count >= AgePrimitives.tagSize else { return nil }
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: ciphertext.count, alignment: 16)
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: ciphertext.count - AgePrimitives.tagSize + 1, alignment: 16)
        defer {
            input.deallocate()
            output.deallocate()
        }
        input.copyBytes(from: ciphertext)
        guard try open(nonce: nonce, ciphertext: UnsafeRawBufferPointer(input), into: output) else { return nil }
        return Array(output.prefix(ciphertext.count - AgePrimitives.tagSize))
    }
}
