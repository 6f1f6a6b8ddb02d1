import Foundation
@testable import ArchiveKit

/// Age files in memory for tests.
enum AgeMemory {
    static let secret = "AGE-SECRET-KEY-1N77R83RUYVWSM4HVJCEWGP3VCC47GY9J29NLFKDNY53DGC4Y7KUS88EY94"
    static let otherSecret = "AGE-SECRET-KEY-1EGTZVFFV20835NWYV6270LXYVK2VKNX2MMDKWYKLMGR48UAWX40Q2P2LM0"

    static func identity(_ secret: String = secret) throws -> AgeX25519Identity {
        try AgeX25519Identity(secret)
    }

    /// `plaintext` encrypted, fed to the encryptor in blocks of `blockSize`.
    static func encrypt(_ plaintext: [UInt8], to recipients: [AgeRecipient], blockSize: Int = 10_007) throws -> [UInt8] {
        var output: [UInt8] = []
        let encryptor = try AgeEncryptor(recipients: recipients) { output.append(contentsOf: $0) }
        try plaintext.feed(inBlocksOf: blockSize) { try encryptor.write($0) }
        try encryptor.finish()
        return output
    }

    /// A source that hands out `bytes` in reads of at most `readSize`.
    static func source(_ bytes: [UInt8], readSize: Int = 4093) -> AgeDecryptor.Input {
        var position = 0
        return { buffer in
            let count = min(buffer.count, readSize, bytes.count - position)
            bytes.withUnsafeBytes { source in
                buffer.baseAddress?.copyMemory(from: source.baseAddress! + position, byteCount: count)
            }
            position += count
            return count
        }
    }

    static func decrypt(_ file: [UInt8], with identities: [AgeIdentity]) throws -> [UInt8] {
        let decryptor = try AgeDecryptor(input: source(file))
        try decryptor.unlock(with: identities)
        var plaintext: [UInt8] = []
        while let chunk = try decryptor.nextChunk() { plaintext += chunk }
        return plaintext
    }

    /// Where the payload starts: after the header's last line and the 16-byte nonce.
    static func payloadOffset(_ file: [UInt8]) throws -> Int {
        let marker = Array("\n--- ".utf8)
        guard let start = (0...(file.count - marker.count)).first(where: { file[$0..<($0 + marker.count)].elementsEqual(marker) }),
              let end = file[(start + 1)...].firstIndex(of: 0x0A)
        else { throw AgeError.notAge }
        return end + 1 + AgeStream.nonceSize
    }
}
