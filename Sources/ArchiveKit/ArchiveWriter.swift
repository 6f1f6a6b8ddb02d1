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

        public init(compressionLevel: Int = 3, threads: Int = 1, modificationTime: Int64 = 0, permissions: UInt32 = 0o644) {
            self.compressionLevel = compressionLevel
            self.threads = threads
            self.modificationTime = modificationTime
            self.permissions = permissions
        }
    }

    /// Receives the compressed stream in order. A thrown error stops the writer and is
    /// rethrown, unchanged, by the call that was writing.
    public typealias Output = (UnsafeRawBufferPointer) throws -> Void

    public static let levels = 1...19

    /// Bridges libarchive's write callback to `Output` and keeps what it threw.
    private final class Sink {
        let output: Output
        var error: Error?
        /// Set when the writer is dropped unfinished: libarchive must not write any more.
        var isAbandoned = false
        var bytesWritten: Int64 = 0

        init(output: @escaping Output) { self.output = output }

        func write(_ buffer: UnsafeRawBufferPointer) -> Bool {
            guard !isAbandoned, error == nil else { return false }
            do {
                try output(buffer)
                bytesWritten += Int64(buffer.count)
                return true
            } catch {
                self.error = error
                return false
            }
        }
    }

    private let archive: OpaquePointer
    private let sink: Sink
    private let options: Options
    private var current: (name: String, size: Int64, written: Int64)?
    private var names = Set<String>()
    private var isFinished = false

    /// Compressed bytes handed to the output so far.
    public var bytesWritten: Int64 { sink.bytesWritten }

    public init(options: Options, output: @escaping Output) throws {
        guard Self.levels.contains(options.compressionLevel) else {
            throw ArchiveError.invalidState("the zstd level \(options.compressionLevel) is not between 1 and 19")
        }
        guard options.threads >= 1 else {
            throw ArchiveError.invalidState("zstd needs at least one worker thread, not \(options.threads)")
        }
        guard let archive = archive_write_new() else {
            throw ArchiveError.libarchive(operation: "archive_write_new", message: "out of memory")
        }
        self.archive = archive
        self.sink = Sink(output: output)
        self.options = options

        do {
            // ARCHIVE_WARN here would mean an external zstd program: refuse it, the
            // stream must come from the library Steward was built and tested with.
            try check(archive_write_add_filter_zstd(archive), "adding the zstd filter")
            try check(archive_write_set_format_pax(archive), "choosing the pax format")
            try check(archive_write_set_filter_option(archive, "zstd", "compression-level", "\(options.compressionLevel)"),
                      "setting the zstd level")
            // zstd's multithreaded mode (1 worker or more) gives the same bytes whatever the
            // number of workers; its single-threaded mode (0) would give different ones.
            try check(archive_write_set_filter_option(archive, "zstd", "threads", "\(options.threads)"),
                      "setting the zstd threads")
            // Unbuffered: libarchive would otherwise pad the last block after the zstd frame.
            try check(archive_write_set_bytes_per_block(archive, 0), "setting the block size")
            let context = Unmanaged.passUnretained(sink).toOpaque()
            try check(archive_write_open2(archive, context, nil, { _, context, buffer, length in
                guard let context, let buffer else { return -1 }
                let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
                return sink.write(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : -1
            }, nil, nil), "opening the archive")
        } catch {
            sink.isAbandoned = true
            archive_write_free(archive)
            throw error
        }
    }

    deinit {
        guard !isFinished else {
            archive_write_free(archive)
            return
        }
        // A writer dropped after an error or a cancellation: nothing more may reach the
        // output, whose file descriptor may already be closed (and its number reused).
        sink.isAbandoned = true
        archive_write_fail(archive)
        // Freeing waits for zstd's workers to finish the jobs they hold, which takes
        // seconds at high levels; a cancelled run should not wait for them.
        let handle = ArchiveHandle(archive: archive, sink: sink)
        Thread.detachNewThread { handle.free() }
    }

    /// What the background thread needs to free an abandoned archive: the handle, and the
    /// sink that libarchive still points to until it is freed.
    private final class ArchiveHandle: @unchecked Sendable {
        let archive: OpaquePointer
        let sink: Sink
        init(archive: OpaquePointer, sink: Sink) {
            self.archive = archive
            self.sink = sink
        }
        func free() {
            archive_write_free(archive)
        }
    }

    // MARK: - Entries

    /// Starts a regular file of exactly `size` bytes.
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
        try check(archive_write_header(archive, entry), "writing the header of \(name)")
        names.insert(name)
        current = (name, size, 0)
    }

    /// Adds bytes to the open entry.
    public func write(_ buffer: UnsafeRawBufferPointer) throws {
        guard var entry = current else { throw ArchiveError.invalidState("no entry is open") }
        guard buffer.count > 0, let base = buffer.baseAddress else { return }
        guard entry.written + Int64(buffer.count) <= entry.size else {
            // libarchive would silently drop what goes past the declared size.
            throw ArchiveError.sizeMismatch(name: entry.name, declared: entry.size, actual: entry.written + Int64(buffer.count))
        }
        var offset = 0
        while offset < buffer.count {
            let written = archive_write_data(archive, base + offset, buffer.count - offset)
            guard written > 0 else { throw failure("writing \(entry.name)") }
            offset += written
        }
        entry.written += Int64(buffer.count)
        current = entry
    }

    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Ends the open entry; throws when it got fewer bytes than its declared size.
    public func endFile() throws {
        guard let entry = current else { throw ArchiveError.invalidState("no entry is open") }
        guard entry.written == entry.size else {
            // libarchive would silently pad the entry with zeros.
            throw ArchiveError.sizeMismatch(name: entry.name, declared: entry.size, actual: entry.written)
        }
        try check(archive_write_finish_entry(archive), "finishing \(entry.name)")
        current = nil
    }

    /// A whole small file in one call.
    public func addFile(name: String, contents: [UInt8]) throws {
        try beginFile(name: name, size: Int64(contents.count))
        try write(contents)
        try endFile()
    }

    /// Writes the end of the archive and flushes the compressor. The output has then
    /// received every byte; the writer cannot be used any more.
    public func finish() throws {
        guard !isFinished else { return }
        if let current { throw ArchiveError.invalidState("the entry '\(current.name)' is still open") }
        try check(archive_write_close(archive), "closing the archive")
        isFinished = true
    }

    // MARK: - Errors

    private func check(_ status: Int32, _ operation: String) throws {
        guard status != ARCHIVE_OK else { return }
        throw failure(operation)
    }

    /// The output's own error when it threw, libarchive's message otherwise.
    private func failure(_ operation: String) -> Error {
        if let error = sink.error { return error }
        let message = archive_error_string(archive).map { String(cString: $0) } ?? "unknown error"
        return ArchiveError.libarchive(operation: operation, message: message)
    }
}
