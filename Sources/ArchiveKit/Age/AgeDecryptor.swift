import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Decrypts an age file (age-encryption.org/v1) from a byte stream in constant memory.
///
/// Three steps, so that a caller can show what the header reveals without a key:
/// `init` reads and checks the header; `unlock(with:)` unwraps the file key with the
/// identities, checks the header's MAC and reads the payload nonce; then `nextChunk()`
/// hands out the plaintext chunk by chunk, each authenticated before it is released.
/// The stream is complete only when `nextChunk()` has returned nil: a payload cut short,
/// a chunk flipped, reordered or dropped, or bytes after the final chunk throw instead.
///
/// ```swift
/// let decryptor = try AgeDecryptor(input: AgeDecryptor.input(fileDescriptor: fd))
/// print(decryptor.header.recipientTypes)            // ["X25519"]
/// try decryptor.unlock(with: identities)
/// while let chunk = try decryptor.nextChunk() { try sink.write(chunk) }
/// ```
public final class AgeDecryptor {
    /// Fills the buffer with up to its size; returns 0 at the end of the input.
    public typealias Input = (UnsafeMutableRawBufferPointer) throws -> Int

    private enum State {
        case locked
        case open
        /// The final chunk was released; the input must end here.
        case afterFinalChunk
        case finished
        case failed
    }

    public let header: AgeHeader
    private let input: AgeInput
    private var state = State.locked
    private var cipher: ChaChaPoly?
    private var counter: UInt64 = 0
    private let sealedBase: UnsafeMutableRawPointer
    private let plainBase: UnsafeMutableRawPointer
    private var sealed: UnsafeMutableRawBufferPointer { .init(start: sealedBase, count: AgeStream.sealedChunkSize) }
    private var plain: UnsafeMutableRawBufferPointer { .init(start: plainBase, count: AgeStream.chunkSize) }
    /// What `read(into:)` has not yet copied out of `plain`.
    private var unread: Range<Int> = 0..<0

    /// Reads the header. Throws `AgeError.notAge` when the input is not an age file,
    /// `unsupportedVersion` or `malformedHeader` when it is one this reader refuses.
    /// - Throws: `AgeError` for a file that is not age (`.notAge`), another version or a
    ///   malformed header; what `input` throws, unchanged.
    public init(input source: @escaping Input) throws {
        let input = AgeInput(source: source)
        self.header = try AgeHeader.read(from: input)
        self.input = input
        self.sealedBase = .allocate(byteCount: AgeStream.sealedChunkSize, alignment: 16)
        self.plainBase = .allocate(byteCount: AgeStream.chunkSize, alignment: 16)
    }

    deinit {
        sealedBase.deallocate()
        plainBase.deallocate()
    }

    /// Finds the file key with `identities` (each tried on every stanza), checks the
    /// header's MAC and reads the payload nonce. Throws `noIdentityMatched` (nothing was
    /// decrypted; the file is intact as far as anyone can tell), `headerMACMismatch`, or
    /// `malformedHeader` when the nonce is missing.
    /// - Throws: `AgeError`: `.noIdentityMatched` when no identity opens a stanza,
    ///   `.headerMACMismatch` for a header changed after it was written, `.invalidState` when
    ///   already unlocked; what `input` throws, unchanged.
    public func unlock(with identities: [AgeIdentity]) throws {
        guard state == .locked else { throw AgeError.invalidState("the age file is already unlocked") }
        state = .failed
        var fileKey: [UInt8]?
        search: for identity in identities {
            for stanza in header.stanzas {
                if let key = try identity.unwrap(stanza) {
                    fileKey = key
                    break search
                }
            }
        }
        guard let fileKey else { throw AgeError.noIdentityMatched(stanzaTypes: header.recipientTypes) }
        guard try header.isAuthentic(fileKey: fileKey) else { throw AgeError.headerMACMismatch }
        var nonce = [UInt8](repeating: 0, count: AgeStream.nonceSize)
        let count = try nonce.withUnsafeMutableBytes { try input.read(into: $0) }
        guard count == AgeStream.nonceSize else {
            throw AgeError.malformedHeader("the payload nonce is missing or shorter than 16 bytes")
        }
        cipher = try ChaChaPoly(key: AgeStream.payloadKey(fileKey: fileKey, nonce: nonce))
        state = .open
    }

    /// The next chunk of plaintext, authenticated, valid until the next call; nil once
    /// the final chunk has been released and the input has ended right after it.
    /// - Throws: `AgeError`: `.damagedChunk`, `.truncated`, `.trailingData`, or `.invalidState`
    ///   before `unlock(with:)` or after a failure; what `input` throws, unchanged.
    public func nextChunk() throws -> UnsafeRawBufferPointer? {
        switch state {
        case .locked: throw AgeError.invalidState("the age file is not unlocked")
        case .failed: throw AgeError.invalidState("the age stream failed earlier")
        case .finished: return nil
        case .afterFinalChunk:
            state = .failed
            var probe = [UInt8](repeating: 0, count: 1)
            guard try probe.withUnsafeMutableBytes({ try input.read(into: $0) }) == 0 else { throw AgeError.trailingData }
            state = .finished
            return nil
        case .open:
            break
        }
        state = .failed
        guard let cipher else { throw AgeError.invalidState("the age file is not unlocked") }
        let count = try input.read(into: sealed)
        guard count > 0 else {
            throw AgeError.truncated(counter == 0 ? "no chunk follows the nonce" : "it ends after chunk \(counter - 1), which is not marked final")
        }
        let ciphertext = UnsafeRawBufferPointer(start: sealedBase, count: count)
        var isLast = count < AgeStream.sealedChunkSize
        if isLast, counter > 0, count == AgePrimitives.tagSize {
            // Only a wholly empty payload has an empty final chunk.
            throw AgeError.damagedChunk(index: counter)
        }
        var isAuthentic: Bool
        if isLast {
            isAuthentic = try cipher.open(nonce: AgeStream.nonce(counter: counter, isLast: true), ciphertext: ciphertext, into: plain)
        } else {
            isAuthentic = try cipher.open(nonce: AgeStream.nonce(counter: counter, isLast: false), ciphertext: ciphertext, into: plain)
            if !isAuthentic {
                // A full final chunk: the input must end right after it, which the next
                // call checks.
                isLast = true
                isAuthentic = try cipher.open(nonce: AgeStream.nonce(counter: counter, isLast: true), ciphertext: ciphertext, into: plain)
            }
        }
        guard isAuthentic else { throw AgeError.damagedChunk(index: counter) }
        counter += 1
        state = isLast ? .afterFinalChunk : .open
        return UnsafeRawBufferPointer(start: plainBase, count: count - AgePrimitives.tagSize)
    }

    /// Copies plaintext into `target`; 0 only at the verified end of the payload.
    /// - Throws: What `nextChunk()` throws.
    public func read(into target: UnsafeMutableRawBufferPointer) throws -> Int {
        guard target.count > 0, let base = target.baseAddress else { return 0 }
        while unread.isEmpty {
            guard let chunk = try nextChunk() else { return 0 }
            unread = 0..<chunk.count
        }
        let count = min(unread.count, target.count)
        base.copyMemory(from: plainBase + unread.lowerBound, byteCount: count)
        unread = (unread.lowerBound + count)..<unread.upperBound
        return count
    }

    /// Opens the file at `path` and reads its header; the file is closed when the
    /// decryptor is released. Throws `ArchiveError.input` when it cannot be opened.
    /// - Throws: `ArchiveError.input` when the file cannot be opened; what
    ///   `init(input:)` throws.
    public convenience init(path: String) throws {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw ArchiveError.input(errno: code, message: "\(path): \(String(cString: strerror(code)))")
        }
        let file = OpenFile(descriptor: descriptor)
        let read = Self.input(fileDescriptor: descriptor)
        try self.init(input: { buffer in try withExtendedLifetime(file) { try read(buffer) } })
    }

    /// Closes a read-only descriptor when the last closure holding it goes.
    private final class OpenFile {
        let descriptor: Int32

        init(descriptor: Int32) {
            self.descriptor = descriptor
        }

        deinit {
            // Read-only: close() has nothing to flush, so its result says nothing.
            close(descriptor)
        }
    }

    /// An input that reads a file descriptor, retrying on EINTR; a read error throws
    /// `ArchiveError.input`.
    public static func input(fileDescriptor: Int32) -> Input {
        { buffer in
            while true {
                let count = Glibc.read(fileDescriptor, buffer.baseAddress, buffer.count)
                if count >= 0 { return count }
                let code = errno
                if code == EINTR { continue }
                throw ArchiveError.input(errno: code, message: String(cString: strerror(code)))
            }
        }
    }
}
