import CArchive
import Foundation

/// libarchive's zstd filter on its own: bytes in, one zstd frame out, through the "raw"
/// format (a single entry without any header of its own).
///
/// zstd always runs in its multithreaded mode, whose output does not depend on the
/// number of workers (1 or more): the same input gives the same frame on any machine.
final class ZstdCompressor {
    private let archive: OpaquePointer
    private let sink: OutputSink
    private var isFinished = false

    /// Compressed bytes handed to the output so far.
    var bytesWritten: Int64 { sink.bytesWritten }

    init(level: Int, threads: Int, output: @escaping ArchiveWriter.Output) throws {
        guard ArchiveWriter.levels.contains(level) else {
            throw ArchiveError.invalidState("the zstd level \(level) is not between 1 and 19")
        }
        guard threads >= 1 else {
            throw ArchiveError.invalidState("zstd needs at least one worker thread, not \(threads)")
        }
        try SharedLibraryError.loadArchive()
        guard let archive = archive_write_new() else {
            throw ArchiveError.libarchive(operation: "archive_write_new", message: "out of memory")
        }
        self.archive = archive
        self.sink = OutputSink(output: output)
        do {
            // ARCHIVE_WARN here would mean an external zstd program: refuse it, the
            // stream must come from the library Steward was built and tested with.
            try check(archive_write_add_filter_zstd(archive), "adding the zstd filter")
            try check(archive_write_set_format_raw(archive), "choosing the raw format")
            try check(archive_write_set_filter_option(archive, "zstd", "compression-level", "\(level)"), "setting the zstd level")
            // 0 would select zstd's single-threaded mode, whose bytes differ from the
            // multithreaded mode's; 1 or more workers all give the same bytes.
            try check(archive_write_set_filter_option(archive, "zstd", "threads", "\(threads)"), "setting the zstd threads")
            // Unbuffered: libarchive would otherwise pad the last block after the frame.
            try check(archive_write_set_bytes_per_block(archive, 0), "setting the block size")
            try check(sink.open(archive), "opening the compressor")
            guard let entry = archive_entry_new() else {
                throw ArchiveError.libarchive(operation: "archive_entry_new", message: "out of memory")
            }
            defer { archive_entry_free(entry) }
            // The raw format takes exactly one regular file and writes no header for it.
            archive_entry_set_filetype(entry, steward_archive_regular_file())
            archive_entry_set_pathname_utf8(entry, "stream")
            try check(archive_write_header(archive, entry), "starting the zstd frame")
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
        // Dropped after an error or a cancellation: nothing more may reach the output,
        // whose file descriptor may already be closed (and its number reused).
        sink.isAbandoned = true
        archive_write_fail(archive)
        // Freeing waits for zstd's workers to finish the jobs they hold, which takes
        // seconds at high levels; a cancelled run should not wait for them.
        let handle = AbandonedArchive(archive: archive, sink: sink)
        Thread.detachNewThread { handle.free() }
    }

    func write(_ buffer: UnsafeRawBufferPointer) throws {
        guard !isFinished else { throw ArchiveError.invalidState("the zstd frame is already finished") }
        guard buffer.count > 0, let base = buffer.baseAddress else { return }
        var offset = 0
        while offset < buffer.count {
            let written = archive_write_data(archive, base + offset, buffer.count - offset)
            guard written > 0 else { throw failure("compressing") }
            offset += written
        }
    }

    /// Ends the frame and flushes it to the output.
    func finish() throws {
        guard !isFinished else { return }
        try check(archive_write_close(archive), "finishing the zstd frame")
        isFinished = true
    }

    private func check(_ status: Int32, _ operation: String) throws {
        guard status != ARCHIVE_OK else { return }
        throw failure(operation)
    }

    private func failure(_ operation: String) -> Error {
        sink.failure(of: archive, operation)
    }
}

/// Bridges libarchive's write callback to a Swift closure and keeps what it threw.
final class OutputSink {
    let output: ArchiveWriter.Output
    var error: Error?
    /// Set when the owner is dropped unfinished: libarchive must not write any more.
    var isAbandoned = false
    var bytesWritten: Int64 = 0

    init(output: @escaping ArchiveWriter.Output) {
        self.output = output
    }

    /// `archive_write_open2` with this sink as the client.
    func open(_ archive: OpaquePointer) -> Int32 {
        let context = Unmanaged.passUnretained(self).toOpaque()
        return archive_write_open2(archive, context, nil, { _, context, buffer, length in
            guard let context, let buffer else { return -1 }
            let sink = Unmanaged<OutputSink>.fromOpaque(context).takeUnretainedValue()
            return sink.write(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : -1
        }, nil, nil)
    }

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

    /// The output's own error when it threw, libarchive's message otherwise.
    func failure(of archive: OpaquePointer, _ operation: String) -> Error {
        if let error { return error }
        let message = archive_error_string(archive).map { String(cString: $0) } ?? "unknown error"
        return ArchiveError.libarchive(operation: operation, message: message)
    }
}

/// What a background thread needs to free an abandoned archive: the handle, and the
/// sink that libarchive points to until it is freed.
///
/// `@unchecked Sendable`: a C handle is not Sendable; it is handed over whole, and the
/// thread that abandoned it never touches it (or the sink) again.
final class AbandonedArchive: @unchecked Sendable {
    let archive: OpaquePointer
    let sink: OutputSink

    init(archive: OpaquePointer, sink: OutputSink) {
        self.archive = archive
        self.sink = sink
    }

    func free() {
        archive_write_free(archive)
    }
}
