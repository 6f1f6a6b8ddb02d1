import CArchive
import Foundation

/// Writes a pax tar stream compressed with zstd (libarchive), one regular file after
/// another, to an output closure.
///
/// Every entry gets the same fixed metadata (mode, owner 0:0 without names, the given
/// modification time), and zstd always runs in its multithreaded mode, whose output does
/// not depend on the number of worker threads: the same entries give the same bytes on
/// any machine.
///
/// One writer makes one zstd frame. A writer made with `endsArchive: false` leaves out
/// tar's end-of-archive blocks, so that another writer's frame can follow it: zstd frames
/// put one after another decompress to their contents one after another, and the two
/// frames hold one tar stream. This is how a bundle's payload can be compressed before its
/// manifest, which must come first, is known.
///
/// ```swift
/// let writer = try ArchiveWriter(options: .init(compressionLevel: 3)) { bytes in try file.write(bytes) }
/// try writer.addFile(name: "manifest.json", contents: manifest)
/// try writer.beginFile(name: "data/app.sqlite", size: size)
/// try writer.write(block)          // as many times as needed, `size` bytes in all
/// try writer.endFile()
/// try writer.finish()
/// ```
public final class ArchiveWriter {
    public struct Options: Sendable {
        /// zstd level, 1 (fast) to 19 (small).
        public var compressionLevel: Int
        /// zstd worker threads, at least 1. They compress while the caller feeds data.
        public var threads: Int
        /// The modification time of every entry, in seconds since 1970.
        public var modificationTime: Int64
        /// The permission bits of every entry.
        public var permissions: UInt32
        /// Whether the stream ends the tar archive; false when another writer's frame
        /// with more entries will follow.
        public var endsArchive: Bool

        public init(compressionLevel: Int = 3, threads: Int = 1, modificationTime: Int64 = 0,
                    permissions: UInt32 = 0o644, endsArchive: Bool = true) {
            self.compressionLevel = compressionLevel
            self.threads = threads
            self.modificationTime = modificationTime
            self.permissions = permissions
            self.endsArchive = endsArchive
        }
    }

    /// Receives the compressed stream in order. A thrown error stops the writer and is
    /// rethrown, unchanged, by the call that was writing.
    public typealias Output = (UnsafeRawBufferPointer) throws -> Void

    public static let levels = 1...19

    /// libarchive's pax writer, uncompressed: its output goes to the compressor.
    private let tar: OpaquePointer
    private let tarSink: OutputSink
    private let compressor: ZstdCompressor
    private let options: Options
    private var current: (name: String, size: Int64, written: Int64)?
    private var names = Set<String>()
    private var isTarClosed = false
    private var isFinished = false

    /// Compressed bytes handed to the output so far.
    public var bytesWritten: Int64 { compressor.bytesWritten }

    /// Starts a tar+zstd archive whose bytes go to `output` as they are made.
    ///
    /// - Throws: `ArchiveError` for a compression level or thread count zstd refuses, or
    ///   when libarchive cannot start the archive; what `output` throws, unchanged.
    public init(options: Options, output: @escaping Output) throws {
        let compressor = try ZstdCompressor(level: options.compressionLevel, threads: options.threads, output: output)
        guard let tar = archive_write_new() else {
            throw ArchiveError.libarchive(operation: "archive_write_new", message: "out of memory")
        }
        self.tar = tar
        self.compressor = compressor
        self.tarSink = OutputSink { try compressor.write($0) }
        self.options = options
        do {
            try check(archive_write_set_format_pax(tar), "choosing the pax format")
            // Unbuffered: every byte goes on to the compressor at once, and nothing is
            // padded or held back when the end-of-archive blocks are left out.
            try check(archive_write_set_bytes_per_block(tar, 0), "setting the block size")
            try check(tarSink.open(tar), "opening the archive")
        } catch {
            tarSink.isAbandoned = true
            archive_write_free(tar)
            throw error
        }
    }

    deinit {
        if !isTarClosed {
            // Without the end-of-archive blocks: archive_write_fail keeps free() from
            // writing them (the tar side holds no compressor state, so this is quick).
            tarSink.isAbandoned = true
            archive_write_fail(tar)
        }
        archive_write_free(tar)
    }

    // MARK: - Entries

    /// Starts a regular file of exactly `size` bytes.
    /// - Throws: `ArchiveError`: `.invalidName`, `.duplicateName`, `.sizeMismatch` for a
    ///   negative size, `.invalidState` while an entry is open or after `finish()`,
    ///   `.libarchive` for a header libarchive refuses.
    public func beginFile(name: String, size: Int64) throws {
        guard !isFinished else { throw ArchiveError.invalidState("the archive is already finished") }
        if let current { throw ArchiveError.invalidState("the entry '\(current.name)' is still open") }
        guard ArchiveEntryName.isValid(name) else { throw ArchiveError.invalidName(name) }
        guard !names.contains(name) else { throw ArchiveError.duplicateName(name) }
        guard size >= 0 else { throw ArchiveError.sizeMismatch(name: name, declared: size, actual: 0) }
        guard let entry = archive_entry_new() else {
            throw ArchiveError.libarchive(operation: "archive_entry_new", message: "out of memory")
        }
        defer { archive_entry_free(entry) }
        archive_entry_set_pathname_utf8(entry, name)
        archive_entry_set_filetype(entry, steward_archive_regular_file())
        archive_entry_set_perm(entry, mode_t(options.permissions & 0o7777))
        archive_entry_set_size(entry, size)
        archive_entry_set_uid(entry, 0)
        archive_entry_set_gid(entry, 0)
        archive_entry_set_mtime(entry, time_t(options.modificationTime), 0)
        try check(archive_write_header(tar, entry), "writing the header of \(name)")
        names.insert(name)
        current = (name, size, 0)
    }

    /// Adds bytes to the open entry.
    /// - Throws: `ArchiveError.sizeMismatch` past the declared size, `.invalidState` without an
    ///   open entry, `.libarchive`; what `output` throws, unchanged.
    public func write(_ buffer: UnsafeRawBufferPointer) throws {
        guard var entry = current else { throw ArchiveError.invalidState("no entry is open") }
        guard buffer.count > 0, let base = buffer.baseAddress else { return }
        guard entry.written + Int64(buffer.count) <= entry.size else {
            // libarchive would silently drop what goes past the declared size.
            throw ArchiveError.sizeMismatch(name: entry.name, declared: entry.size, actual: entry.written + Int64(buffer.count))
        }
        var offset = 0
        while offset < buffer.count {
            let written = archive_write_data(tar, base + offset, buffer.count - offset)
            guard written > 0 else { throw tarSink.failure(of: tar, "writing \(entry.name)") }
            offset += written
        }
        entry.written += Int64(buffer.count)
        current = entry
    }

    /// Writes `bytes` to the open entry, as `write(_:)` with a buffer does.
    ///
    /// - Throws: What `write(_:)` with a buffer throws.
    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Ends the open entry; throws when it got fewer bytes than its declared size.
    /// - Throws: `ArchiveError.sizeMismatch` short of the declared size, `.invalidState`
    ///   without an open entry.
    public func endFile() throws {
        guard let entry = current else { throw ArchiveError.invalidState("no entry is open") }
        guard entry.written == entry.size else {
            // libarchive would silently pad the entry with zeros.
            throw ArchiveError.sizeMismatch(name: entry.name, declared: entry.size, actual: entry.written)
        }
        try check(archive_write_finish_entry(tar), "finishing \(entry.name)")
        current = nil
    }

    /// A whole small file in one call.
    /// - Throws: What `beginFile`, `write` and `endFile` throw.
    public func addFile(name: String, contents: [UInt8]) throws {
        try beginFile(name: name, size: Int64(contents.count))
        try write(contents)
        try endFile()
    }

    /// Writes the end of the archive (unless `endsArchive` is false) and flushes the
    /// compressor. The output has then received every byte; the writer cannot be used
    /// any more.
    /// - Throws: `ArchiveError.invalidState` with an entry still open, `.libarchive` when
    ///   the archive cannot be closed; what `output` throws, unchanged.
    public func finish() throws {
        guard !isFinished else { return }
        if let current { throw ArchiveError.invalidState("the entry '\(current.name)' is still open") }
        if options.endsArchive {
            try check(archive_write_close(tar), "closing the archive")
            isTarClosed = true
        }
        try compressor.finish()
        isFinished = true
    }

    private func check(_ status: Int32, _ operation: String) throws {
        guard status != ARCHIVE_OK else { return }
        throw tarSink.failure(of: tar, operation)
    }
}
