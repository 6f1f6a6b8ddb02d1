import CCrypto

/// SHA-384 over libcrypto's EVP interface, for the ledgers of migration runners that record
/// it (sqlx stores the 48 raw bytes of the digest of each migration file's text).
public enum SHA384 {
    public enum Failure: Error, Sendable {
        case libcrypto(String)
    }

    /// The 48-byte digest of `bytes`.
    /// - Throws: `SHA384.Failure` when libcrypto fails; `SharedLibraryError` when it cannot
    ///   be loaded.
    public static func digest(of bytes: [UInt8]) throws -> [UInt8] {
        try SharedLibraryError.loadCrypto()
        guard let context = EVP_MD_CTX_new() else { throw Failure.libcrypto("EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestInit_ex(context, EVP_sha384(), nil) == 1 else {
            throw Failure.libcrypto("EVP_DigestInit_ex failed")
        }
        let updated = bytes.withUnsafeBytes { buffer -> Int32 in
            // An empty input still needs a valid pointer for EVP_DigestUpdate.
            guard let base = buffer.baseAddress else { return 1 }
            return EVP_DigestUpdate(context, base, buffer.count)
        }
        guard updated == 1 else { throw Failure.libcrypto("EVP_DigestUpdate failed") }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1 else {
            throw Failure.libcrypto("EVP_DigestFinal_ex failed")
        }
        return Array(digest.prefix(Int(length)))
    }
}
