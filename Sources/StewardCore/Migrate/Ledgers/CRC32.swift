/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum of `java.util.zip.CRC32`
/// that Flyway records. A checksum, not a cryptographic primitive: libcrypto has none.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
        }
        return value
    }

    static func checksum<S: Sequence>(_ bytes: S) -> UInt32 where S.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// Flyway's checksum of a migration file, as flyway-core
    /// internal/resolver/ChecksumCalculator.java computes it: the file read line by line
    /// (`BufferedReader.readLine`, which drops `\n`, `\r\n` and `\r`), a byte-order mark
    /// dropped from the first line, each line's UTF-8 bytes fed to CRC32, and the result
    /// cast to a signed 32-bit `int`.
    static func flyway(_ bytes: [UInt8]) -> Int32 {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        return Int32(bitPattern: checksum(body.lazy.filter { $0 != 0x0A && $0 != 0x0D }))
    }
}
