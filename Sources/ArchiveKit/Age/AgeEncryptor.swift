import Foundation

/// Encrypts a byte stream into the age format (age-encryption.org/v1) for X25519
/// recipients or one passphrase, in constant memory: the header and payload nonce go
/// out at once, then one sealed 64 KiB chunk whenever a chunk is full and more follows.
///
/// ```swift
/// let encryptor = try AgeEncryptor(recipients: [.x25519(recipient)]) { bytes in try file.write(bytes) }
/// try encryptor.write(block)     // as often as needed
/// try encryptor.finish()         // seals the final chunk
/// ```
public final class AgeEncryptor {
    /// Receives the encrypted stream in order; what it throws is rethrown unchanged.
    public typealias Output = (UnsafeRawBufferPointer) throws -> Void

    private let output: Output
    private let cipher: ChaChaPoly
    private let pending: UnsafeMutableRawPointer
    private let sealed: UnsafeMutableRawBufferPointer
    private var pendingCount = 0
    private var counter: UInt64 = 0
    private var isFinished = false
    private var hasFailed = false

    /// Encrypted bytes handed to the output so far.
    public private(set) var bytesWritten: Int64 = 0

    /// Writes the header and the payload nonce.
    /// - Throws: `AgeError`: `.invalidRecipients` for none, a passphrase beside another
    ///   recipient or an empty passphrase; others when the random key cannot be made;
    ///   what `output` throws, unchanged.
    public init(recipients: [AgeRecipient], output: @escaping Output) throws {
        try AgeRecipient.check(recipients)
        let fileKey = try AgePrimitives.randomBytes(16)
        var stanzas: [AgeStanza] = []
        for recipient in recipients { stanzas.append(try recipient.wrap(fileKey: fileKey)) }
        let header = try AgeHeader.encode(stanzas: stanzas, fileKey: fileKey)
        let nonce = try AgePrimitives.randomBytes(AgeStream.nonceSize)
        self.cipher = try ChaChaPoly(key: AgeStream.payloadKey(fileKey: fileKey, nonce: nonce))
        self.output = output
        self.pending = .allocate(byteCount: AgeStream.chunkSize, alignment: 16)
        self.sealed = .allocate(byteCount: AgeStream.sealedChunkSize, alignment: 16)
        try emit(header + nonce)
    }

    deinit {
        pending.deallocate()
        sealed.deallocate()
    }

    /// Encrypts `buffer`, writing each chunk to the output as it fills.
    ///
    /// - Throws: `AgeError.invalidState` after `finish()` or a failure; what `output` throws.
    public func write(_ buffer: UnsafeRawBufferPointer) throws {
        try checkUsable()
        guard let base = buffer.baseAddress else { return }
        var offset = 0
        while offset < buffer.count {
            // A full chunk is sealed only once more data arrives: the final chunk, full
            // or not, must carry the last-chunk flag.
            if pendingCount == AgeStream.chunkSize { try sealPending(isLast: false) }
            let count = min(buffer.count - offset, AgeStream.chunkSize - pendingCount)
            (pending + pendingCount).copyMemory(from: base + offset, byteCount: count)
            pendingCount += count
            offset += count
        }
    }

    /// Encrypts `bytes`, as `write(_:)` with a buffer does.
    ///
    /// - Throws: What `write(_:)` with a buffer throws.
    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Seals the final chunk. The output has then received every byte.
    /// - Throws: `AgeError.invalidState` when already finished or failed; what `output` throws.
    public func finish() throws {
        guard !isFinished else { return }
        try checkUsable()
        try sealPending(isLast: true)
        isFinished = true
    }

    private func checkUsable() throws {
        guard !isFinished else { throw AgeError.invalidState("the age stream is already finished") }
        guard !hasFailed else { throw AgeError.invalidState("the age stream failed earlier") }
    }

    private func sealPending(isLast: Bool) throws {
        do {
            let nonce = AgeStream.nonce(counter: counter, isLast: isLast)
            try cipher.seal(nonce: nonce, plaintext: UnsafeRawBufferPointer(start: pending, count: pendingCount), into: sealed)
            try emit(UnsafeRawBufferPointer(rebasing: sealed[0..<(pendingCount + AgePrimitives.tagSize)]))
            counter += 1
            pendingCount = 0
        } catch {
            hasFailed = true
            throw error
        }
    }

    private func emit(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try emit($0) }
    }

    private func emit(_ buffer: UnsafeRawBufferPointer) throws {
        try output(buffer)
        bytesWritten += Int64(buffer.count)
    }
}
