import CArchive
import Foundation
import FileNames

#if canImport(Glibc)
import Glibc
#endif

/// Reads a tar+zstd archive that may have been made, or changed, by anybody: a bundle
/// received from elsewhere is hostile until proven otherwise.
///
/// Only a single zstd layer over a ustar or pax tar stream is accepted; only regular files
/// with valid names (`ArchiveEntryName`), each name once; entry sizes, the number of
/// entries and the total size are limited before any data is read; every byte read is
/// hashed with SHA-256 on the way through, so that nothing has to be read twice; the
/// archive must end with tar's end-of-archive blocks, so that a stream cut short between
/// two entries is not taken for a complete one; and after them only the zero padding of
/// tar's last 10240-byte record may follow, so that nothing can be appended unseen.
///
/// Large entries are decompressed on a thread of the reader's own while the caller's
/// thread hashes and consumes the previous block: two cores share the work.
///
/// ```swift
/// let reader = try ArchiveReader(path: bundle)
/// while let entry = try reader.nextEntry() {
///     let summary = try reader.readData { block in try output.write(block) }
///     // summary.sha256, summary.size
/// }
/// ```
public final class ArchiveReader {
    public struct Limits: Sendable {
        public var maximumEntries: Int
        /// The largest entry, as declared in its header and as read.
        public var maximumEntrySize: Int64
        /// All entries together.
        public var maximumTotalSize: Int64
        /// Components of a name (`data/app.sqlite` has two).
        public var maximumComponents: Int

        public init(maximumEntries: Int = 16, maximumEntrySize: Int64 = 1 << 40,
                    maximumTotalSize: Int64 = 1 << 40, maximumComponents: Int = 2) {
            self.maximumEntries = maximumEntries
            self.maximumEntrySize = maximumEntrySize
            self.maximumTotalSize = maximumTotalSize
            self.maximumComponents = maximumComponents
        }
    }

    public struct Entry: Sendable, Equatable {
        public let name: String
        public let size: Int64
        public let permissions: UInt32
        public let modificationTime: Int64
    }

    /// What was read of one entry.
    public struct DataSummary: Sendable, Equatable {
        public let size: Int64
        /// 64 lower-case hex digits.
        public let sha256: String

        public init(size: Int64, sha256: String) {
            self.size = size
            self.sha256 = sha256
        }
    }

    private let archive: OpaquePointer
    /// The zstd layer under `archive`, which reads its tar stream from it.
    private let stream: DecompressedStream
    private let limits: Limits
    private let ownedDescriptor: Int32?
    /// The age decryptor the archive is read through, when it is encrypted.
    private let decryptingSource: DecryptingSource?
    private var current: Entry?
    private var isCurrentRead = false
    private var entryCount = 0
    private var declaredTotal: Int64 = 0
    private var names = Set<String>()
    private var isChecked = false
    /// Set when a read failed half way: libarchive's position is then unknown.
    private var isBroken = false
    /// Set once the end of the archive was reached and checked.
    private var isAtEnd = false
    /// Where the data of the previous entry, padding included, ended in the tar stream.
    private var endOfPreviousEntry: Int64 = 0

    /// Opens the archive at `path` (the reader closes the file).
    /// - Throws: `ArchiveError`: `.input` when the file cannot be opened, `.notZstd` or
    ///   `.notTar` for another kind of file, `.libarchive` for what libarchive refuses.
    public convenience init(path: String, limits: Limits = Limits()) throws {
        let descriptor = open(FileName.cString(path), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw ArchiveError.input(errno: code, message: "\(path): \(String(cString: strerror(code)))")
        }
        try self.init(descriptor: descriptor, owned: true, limits: limits)
    }

    /// Reads from an open file descriptor, which stays the caller's to close.
    /// - Throws: `ArchiveError`: `.notZstd` or `.notTar` for another kind of stream,
    ///   `.libarchive` for what libarchive refuses.
    public convenience init(fileDescriptor: Int32, limits: Limits = Limits()) throws {
        try self.init(descriptor: fileDescriptor, owned: false, limits: limits)
    }

    /// Reads the plaintext of an unlocked age file (`AgeDecryptor.unlock(with:)` done):
    /// each chunk is authenticated before libarchive sees it, and the end of the archive
    /// is accepted only once the decryptor has verified the final chunk and that nothing
    /// follows it. A decryption failure is thrown as the `AgeError` itself.
    /// - Throws: `ArchiveError` as `init(fileDescriptor:limits:)`; `AgeError` from the
    ///   decryptor (a damaged or truncated age stream).
    public convenience init(decrypting decryptor: AgeDecryptor, limits: Limits = Limits()) throws {
        try self.init(descriptor: -1, owned: false, source: DecryptingSource(decryptor: decryptor), limits: limits)
    }

    private convenience init(descriptor: Int32, owned: Bool, limits: Limits) throws {
        try self.init(descriptor: descriptor, owned: owned, source: nil, limits: limits)
    }

    private init(descriptor: Int32, owned: Bool, source: DecryptingSource?, limits: Limits) throws {
        do {
            try SharedLibraryError.loadArchive()
        } catch {
            if owned { close(descriptor) }
            throw error
        }
        guard let raw = archive_read_new() else {
            if owned { close(descriptor) }
            throw ArchiveError.libarchive(operation: "archive_read_new", message: "out of memory")
        }
        guard let archive = archive_read_new() else {
            archive_read_free(raw)
            if owned { close(descriptor) }
            throw ArchiveError.libarchive(operation: "archive_read_new", message: "out of memory")
        }
        self.archive = archive
        self.stream = DecompressedStream(archive: raw)
        self.limits = limits
        self.ownedDescriptor = owned ? descriptor : nil
        self.decryptingSource = source
        // Everything else (other compressions, zip, cpio, …) stays switched off, so that
        // libarchive never parses a format the bundle cannot be. The zstd layer is read
        // as one raw stream, which the tar reader reads in turn (DecompressedStream).
        try check(archive_read_support_filter_zstd(raw), "enabling zstd", on: raw)
        try check(archive_read_support_format_raw(raw), "enabling the raw stream", on: raw)
        // The zstd layer reads the file, or the age decryptor's authenticated plaintext.
        if let source {
            let status = archive_read_open(raw, Unmanaged.passUnretained(source).toOpaque(), nil, { _, context, buffer in
                guard let context, let buffer else { return -1 }
                return Unmanaged<DecryptingSource>.fromOpaque(context).takeUnretainedValue().read(into: buffer)
            }, nil)
            if status != ARCHIVE_OK, let error = source.error { throw error }
            try check(status, "opening the archive", on: raw)
        } else {
            try check(archive_read_open_fd(raw, descriptor, 1 << 20), "opening the archive", on: raw)
        }
        var header: OpaquePointer?
        guard archive_read_next_header(raw, &header) == ARCHIVE_OK else {
            if let error = source?.error { throw error }
            throw Self.readFailure(of: raw)
        }
        try check(archive_read_support_format_tar(archive), "enabling tar")
        let opened = stream.open(archive)
        if let error = source?.error { throw error }
        if let failure = stream.failure { throw failure }
        try check(opened, "opening the archive")
    }

    deinit {
        archive_read_free(archive)
        archive_read_free(stream.archive)
        if let ownedDescriptor {
            // Read-only descriptor: close() has nothing to flush, so its result says nothing.
            close(ownedDescriptor)
        }
    }

    /// The four bytes every zstd frame starts with (RFC 8878, 3.1.1), little-endian 0xFD2FB528.
    public static let zstdMagic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]

    /// Whether bytes read from the start of a file begin a zstd stream: how a bundle is
    /// told from a database without trusting its name.
    public static func startsWithZstdMagic(_ prefix: some Collection<UInt8>) -> Bool {
        prefix.count >= zstdMagic.count && prefix.prefix(zstdMagic.count).elementsEqual(zstdMagic)
    }

    // MARK: - Entries

    /// The next entry, checked, or nil at the end of the archive. Data of the previous
    /// entry that was not read is skipped.
    /// - Throws: `ArchiveError`: `.tooManyEntries`, `.tooLarge`, `.invalidName`,
    ///   `.duplicateName`, `.notRegularFile`, `.corrupt` or `.truncated` for what the
    ///   archive holds, `.libarchive` for a damaged stream; `AgeError` from a decryptor.
    ///   After a throw the reader cannot be used.
    public func nextEntry() throws -> Entry? {
        guard !isBroken else { throw ArchiveError.invalidState("the archive cannot be read after a failed read") }
        if isAtEnd { return nil }
        if current != nil, !isCurrentRead {
            guard archive_read_data_skip(archive) == ARCHIVE_OK else { throw readFailure() }
        }
        current = nil
        isCurrentRead = false

        // Tar pads every entry's data to 512-byte blocks; libarchive consumes the padding
        // lazily, so the end of the entry is rounded up here.
        endOfPreviousEntry = (archive_filter_bytes(archive, 0) + 511) / 512 * 512
        var header: OpaquePointer?
        let status = archive_read_next_header(archive, &header)
        if status == ARCHIVE_EOF {
            try checkEndOfArchive()
            isAtEnd = true
            try decryptingSource?.readToEnd()
            return nil
        }
        // A warning (a malformed pax attribute, an odd checksum) is a reason to refuse too.
        guard status == ARCHIVE_OK, let header else { throw readFailure() }
        try checkStream()

        entryCount += 1
        guard entryCount <= limits.maximumEntries else { throw ArchiveError.tooManyEntries(limit: limits.maximumEntries) }

        guard let rawName = archive_entry_pathname_utf8(header) ?? archive_entry_pathname(header) else {
            throw ArchiveError.invalidName("")
        }
        let name = String(cString: rawName)
        guard archive_entry_filetype(header) == steward_archive_regular_file(),
              archive_entry_hardlink(header) == nil, archive_entry_symlink(header) == nil,
              archive_entry_sparse_count(header) == 0
        else { throw ArchiveError.notRegularFile(name) }
        guard ArchiveEntryName.isValid(name, maximumComponents: limits.maximumComponents) else {
            throw ArchiveError.invalidName(name)
        }
        guard names.insert(name).inserted else { throw ArchiveError.duplicateName(name) }
        guard archive_entry_size_is_set(header) != 0 else {
            throw ArchiveError.corrupt("the entry '\(name)' has no size")
        }
        let size = archive_entry_size(header)
        guard size >= 0 else { throw ArchiveError.corrupt("the entry '\(name)' has a negative size") }
        guard size <= limits.maximumEntrySize else { throw ArchiveError.tooLarge(name: name, limit: limits.maximumEntrySize) }
        declaredTotal += size
        guard declaredTotal <= limits.maximumTotalSize else {
            throw ArchiveError.tooLarge(name: "the archive", limit: limits.maximumTotalSize)
        }

        let entry = Entry(
            name: name, size: size, permissions: UInt32(archive_entry_perm(header)),
            modificationTime: Int64(archive_entry_mtime(header)))
        current = entry
        return entry
    }

    /// Streams the data of the current entry to `body` in blocks of up to `blockSize`
    /// bytes, hashing it; throws when the stream ends before the declared size.
    ///
    /// `maximumSize` caps the entry whatever its header says: an entry declared larger is
    /// refused before any of its data is decompressed, and reading stops as soon as more
    /// than that many bytes arrive. A bomb costs at most `maximumSize` bytes.
    /// - Throws: `ArchiveError`: `.invalidState` with no entry to read, `.tooLarge` over
    ///   `maximumSize`, `.truncated` for an entry shorter than its header said,
    ///   `.libarchive` for a damaged stream; `AgeError` from a decryptor; what `body`
    ///   throws, unchanged.
    @discardableResult
    public func readData(
        blockSize: Int = 1 << 20, maximumSize: Int64? = nil, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> DataSummary {
        guard !isBroken else { throw ArchiveError.invalidState("the archive cannot be read after a failed read") }
        guard let entry = current, !isCurrentRead else { throw ArchiveError.invalidState("no entry to read") }
        if let maximumSize, entry.size > maximumSize {
            throw ArchiveError.tooLarge(name: entry.name, limit: maximumSize)
        }
        isCurrentRead = true
        let limit = min(entry.size, maximumSize ?? entry.size)
        let hasher = try SHA256Hasher()
        let blockSize = max(blockSize, 4096)
        var total: Int64 = 0
        let consume = { (block: UnsafeRawBufferPointer) throws in
            total += Int64(block.count)
            guard total <= limit else {
                throw ArchiveError.sizeMismatch(name: entry.name, declared: limit, actual: total)
            }
            hasher.update(block)
            try body(block)
        }
        do {
            if entry.size > Int64(2 * blockSize) {
                try readOverlapped(blockSize: blockSize, consume)
            } else {
                try readInline(blockSize: blockSize, consume)
            }
        } catch {
            isBroken = true
            throw error
        }
        guard total == entry.size else {
            isBroken = true
            throw ArchiveError.truncated("'\(entry.name)' ends after \(total) of \(entry.size) bytes")
        }
        return DataSummary(size: total, sha256: try hasher.finalize())
    }

    /// Decompresses and consumes block after block on the caller's thread.
    private func readInline(blockSize: Int, _ consume: (UnsafeRawBufferPointer) throws -> Void) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = archive_read_data(archive, buffer.baseAddress, buffer.count)
            if count == 0 { return }
            guard count > 0 else { throw readFailure() }
            try consume(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    /// Decompresses on a thread of its own into a few buffers, while the caller's thread
    /// consumes the blocks already decompressed. libarchive is used by one thread at a
    /// time: the worker alone until it has finished, which this function waits for.
    private func readOverlapped(blockSize: Int, _ consume: (UnsafeRawBufferPointer) throws -> Void) throws {
        let pipe = BlockPipe(archive: archive, blockSize: blockSize, depth: 4)
        pipe.start()
        // Whatever happens, the worker lets go of libarchive and the buffers before this returns.
        defer {
            pipe.stop()
            pipe.deallocate()
        }
        do {
            while let block = try pipe.next() {
                defer { pipe.recycle(block) }
                try consume(UnsafeRawBufferPointer(rebasing: pipe.buffers[block.index][0..<block.count]))
            }
        } catch is BlockPipe.Failure {
            throw readFailure()
        }
    }

    /// The whole current entry in memory; refused before reading when it is larger than
    /// `maximumSize` (for manifests and checksum lists, never payloads).
    /// - Throws: `ArchiveError.tooLarge` for an entry over `maximumSize`; what
    ///   `readData` throws.
    public func readContents(maximumSize: Int) throws -> (bytes: [UInt8], summary: DataSummary) {
        guard let entry = current, !isCurrentRead else { throw ArchiveError.invalidState("no entry to read") }
        guard entry.size <= Int64(maximumSize) else { throw ArchiveError.tooLarge(name: entry.name, limit: Int64(maximumSize)) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(entry.size))
        let summary = try readData(blockSize: 64 * 1024) { bytes.append(contentsOf: $0) }
        return (bytes, summary)
    }

    // MARK: - Checks

    /// Once, after the first header: exactly one zstd layer, and a ustar or pax stream.
    private func checkStream() throws {
        guard !isChecked else { return }
        isChecked = true
        // The filter chain ends with libarchive's own "none" reader of the raw bytes.
        let filters = archive_filter_count(stream.archive)
        guard filters == 2, archive_filter_code(stream.archive, 0) == ARCHIVE_FILTER_ZSTD else { throw ArchiveError.notZstd }
        let format = archive_format(archive)
        guard format == ARCHIVE_FORMAT_TAR_USTAR || format == ARCHIVE_FORMAT_TAR_PAX_INTERCHANGE
            || format == ARCHIVE_FORMAT_TAR_PAX_RESTRICTED
        else {
            let name = archive_format_name(archive).map { String(cString: $0) } ?? "format \(format)"
            throw ArchiveError.notTar(name)
        }
    }

    /// At the end of the archive: tar's two zero blocks were there. libarchive accepts a
    /// stream that simply stops between entries (some writers do that); a bundle never
    /// does, so such a stream was cut short. After them, only the zero padding of tar's
    /// last record may follow: anything else was added to the archive.
    private func checkEndOfArchive() throws {
        let end = archive_filter_bytes(archive, 0)
        guard end - endOfPreviousEntry >= 1024 else {
            throw ArchiveError.truncated("the end-of-archive blocks are missing")
        }
        do {
            try stream.checkTrailer(after: end)
        } catch {
            isBroken = true
            throw error
        }
    }

    private func check(_ status: Int32, _ operation: String, on handle: OpaquePointer? = nil) throws {
        guard status != ARCHIVE_OK else { return }
        let message = archive_error_string(handle ?? archive).map { String(cString: $0) } ?? "unknown error"
        throw ArchiveError.libarchive(operation: operation, message: message)
    }

    /// libarchive's error on a read, as an input error, truncation or damage. libarchive
    /// has no code that tells a short stream from a damaged one, only its message. A
    /// failure of the zstd layer reaches the tar reader only as a failed read, so the
    /// decryptor's error comes first, then the zstd layer's own.
    private func readFailure() -> Error {
        if let error = decryptingSource?.error { return error }
        return stream.failure ?? Self.readFailure(of: archive)
    }

    static func readFailure(of archive: OpaquePointer) -> ArchiveError {
        let message = archive_error_string(archive).map { String(cString: $0) } ?? "unknown error"
        let code = archive_errno(archive)
        if [EIO, EBADF, EISDIR, ENXIO, ENOMEM].contains(code) {
            return ArchiveError.input(errno: code, message: message)
        }
        let lowered = message.lowercased()
        if lowered.contains("truncated") || lowered.contains("premature") || lowered.contains("unexpected end") {
            return ArchiveError.truncated(message)
        }
        return ArchiveError.corrupt(message)
    }
}

/// Hands libarchive the authenticated chunks of an age payload, and keeps the decryptor's
/// error, which libarchive only knows as a failed read.
final class DecryptingSource {
    let decryptor: AgeDecryptor
    var error: Error?

    init(decryptor: AgeDecryptor) {
        self.decryptor = decryptor
    }

    /// The next chunk for libarchive: its size, 0 at the verified end, -1 on failure.
    func read(into buffer: UnsafeMutablePointer<UnsafeRawPointer?>) -> Int {
        do {
            // Only an entirely empty payload has an empty chunk; the call after it checks
            // the end, and gives nil.
            while let chunk = try decryptor.nextChunk() {
                guard chunk.count > 0 else { continue }
                buffer.pointee = chunk.baseAddress
                return chunk.count
            }
            return 0
        } catch {
            self.error = error
            return -1
        }
    }

    /// Reads what libarchive left after the end of the archive, to the verified end of
    /// the payload: a file cut after the archive's last block still lacks its final
    /// chunk, and that must not pass.
    func readToEnd() throws {
        do {
            while try decryptor.nextChunk() != nil {}
        } catch {
            self.error = error
            throw error
        }
    }
}
