import CSQLite
import FileNames
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A database file read where it is, with every page SQLite writes kept in this
/// process's memory: a connection to it (`Connection.overlaying`) may write, and
/// nothing it writes ever reaches the file. Replaces a private memory map of the file,
/// whose pages, lost when another program cut the file short, killed the process with
/// SIGBUS on the next read: here every read is a `pread(2)` of the descriptor, and one
/// that comes back short of the pages the file had when it was opened, or fails, is
/// `ResultCode.ioErrorRead.rawValue` on the statement and recorded in `readProblem`.
///
/// Only the main database goes through it. Its journal is in memory
/// (`journal_mode = MEMORY`, set when it is opened); the VFS refuses to open any other
/// file beside it (journal, WAL) and deletes nothing; temporary files (sorting, TEMP
/// tables) are SQLite's default VFS's.
public final class FileOverlay: @unchecked Sendable {
    /// Why a read of the file failed: the file came back shorter than `size`, or
    /// `pread(2)` failed with `errno`.
    public enum ReadProblem: Equatable, Sendable {
        case cutShort(at: Int64)
        case failed(errno: Int32)
    }

    /// The descriptor the pages are read from; not closed here (closing any descriptor of
    /// a file drops the process's POSIX locks on it, SQLite's included).
    public let descriptor: Int32
    /// The bytes of the file the image holds (the pages as the caller saw them).
    public let size: Int64
    /// The most bytes of written pages kept in memory; a write past it is `SQLITE_FULL`.
    public let maximumWrittenBytes: Int64

    // Used by the one thread that uses the connection, but for `readProblem`, which any
    // thread may read once the connection is done (hence the lock and @unchecked).
    private var pages: [Int64: [UInt8]] = [:]
    private var pageSize: Int64 = 0
    private var logicalSize: Int64
    /// The last bytes read from the file, `readAhead` at a time: FTS5's check and SQLite's
    /// b-tree walks read neighbouring pages, one pread(2) for many.
    static let readAhead = 64 << 10
    private let window = UnsafeMutableRawBufferPointer.allocate(byteCount: readAhead, alignment: 4096)
    private var windowStart: Int64 = -1
    private var windowLength = 0
    private let problem = Mutex<ReadProblem?>(nil)

    /// `size`: the file's bytes as the caller saw them (its pages, `page_size × page_count`).
    public init(descriptor: Int32, size: Int64, maximumWrittenBytes: Int64 = 64 << 20) {
        self.descriptor = descriptor
        self.size = size
        self.maximumWrittenBytes = maximumWrittenBytes
        self.logicalSize = size
    }

    deinit {
        window.deallocate()
    }

    /// The first failed read, nil while every read returned what the file held.
    public var readProblem: ReadProblem? {
        problem.withLock { $0 }
    }

    /// Bytes of pages written so far, kept in memory.
    public var writtenBytes: Int64 {
        Int64(pages.count) * pageSize
    }

    private func record(_ found: ReadProblem) {
        problem.withLock { if $0 == nil { $0 = found } }
    }

    // MARK: - The file's methods

    func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64) -> Int32 {
        var done = 0
        while done < count {
            let position = offset + Int64(done)
            let target = buffer + done
            guard position < logicalSize else {
                // > xRead … must fill in the unread portions of the buffer with zeros.
                target.initializeMemory(as: UInt8.self, repeating: 0, count: count - done)
                return ResultCode.ioErrorShortRead.rawValue
            }
            var piece = Int(min(Int64(count - done), logicalSize - position))
            if pageSize > 0, !pages.isEmpty {
                let start = position - position % pageSize
                let within = Int(position - start)
                piece = min(piece, Int(pageSize) - within)
                if let page = pages[start] {
                    page.withUnsafeBytes { target.copyMemory(from: $0.baseAddress! + within, byteCount: piece) }
                    done += piece
                    continue
                }
            }
            if position >= size {
                // Grown by a write further on: never written here.
                target.initializeMemory(as: UInt8.self, repeating: 0, count: piece)
            } else {
                piece = Int(min(Int64(piece), size - position))
                if !(windowStart <= position && position < windowStart + Int64(windowLength)) {
                    let code = fillWindow(at: position)
                    guard code == SQLITE_OK else { return code }
                }
                // A read across the window's end takes the rest from the next one.
                piece = min(piece, Int(windowStart + Int64(windowLength) - position))
                target.copyMemory(from: window.baseAddress! + Int(position - windowStart), byteCount: piece)
            }
            done += piece
        }
        return SQLITE_OK
    }

    /// Reads the window of the file around `position` (`readAhead` bytes, aligned, cut at
    /// `size`); a file that ends inside it has been cut short since the overlay was made.
    private func fillWindow(at position: Int64) -> Int32 {
        let start = position - position % Int64(Self.readAhead)
        let length = Int(min(Int64(Self.readAhead), size - start))
        // Empty until it is filled whole: a failed read leaves no window to serve from.
        windowStart = -1
        windowLength = 0
        var filled = 0
        while filled < length {
            let got = pread(descriptor, window.baseAddress! + filled, length - filled, off_t(start) + off_t(filled))
            if got < 0 {
                if errno == EINTR { continue }
                record(.failed(errno: errno))
                return ResultCode.ioErrorRead.rawValue
            }
            if got == 0 { break }
            filled += got
        }
        guard filled >= length else {
            // The file ends before the pages it had when the overlay was made.
            record(.cutShort(at: start + Int64(filled)))
            return ResultCode.ioErrorRead.rawValue
        }
        windowStart = start
        windowLength = filled
        return SQLITE_OK
    }

    fileprivate func write(from buffer: UnsafeRawPointer, count: Int, at offset: Int64) -> Int32 {
        let amount = Int64(count)
        if pageSize == 0 {
            // SQLite writes a main database a whole page at a time.
            guard amount >= 512, amount <= 65536, amount & (amount - 1) == 0 else { return ResultCode.ioErrorWrite.rawValue }
            pageSize = amount
        }
        guard amount == pageSize, offset % pageSize == 0 else { return ResultCode.ioErrorWrite.rawValue }
        if pages[offset] == nil, writtenBytes + amount > maximumWrittenBytes { return SQLITE_FULL }
        pages[offset] = Array(UnsafeRawBufferPointer(start: buffer, count: count))
        logicalSize = max(logicalSize, offset + amount)
        return SQLITE_OK
    }

    fileprivate func truncate(to newSize: Int64) -> Int32 {
        logicalSize = newSize
        pages = pages.filter { $0.key < newSize }
        return SQLITE_OK
    }

    fileprivate var fileSize: Int64 { logicalSize }
}

extension Connection {
    /// A connection whose `main` database is `overlay`: the file's pages read in place,
    /// written only into memory (`FileOverlay`). Its journal is in memory.
    ///
    /// `oneThread`: no thread but the caller's uses the connection at a time (`.noMutex`).
    /// - Throws: `SQLiteError` when SQLite cannot open it or cannot read its first page.
    public static func overlaying(_ overlay: FileOverlay, oneThread: Bool = false) throws -> Connection {
        guard let vfs = OverlayVFS.registered else {
            throw SQLiteError(extendedCode: .error, message: "the overlay VFS cannot be registered")
        }
        let key = UInt(bitPattern: Unmanaged.passUnretained(overlay).toOpaque())
        var mode: OpenMode = [.readWrite, .uri]
        if oneThread { mode.insert(.noMutex) }
        let connection = try Connection(path: "file:steward-overlay?overlay=\(key)", mode: mode, vfs: String(cString: vfs.pointee.zName))
        connection.overlay = overlay
        // Before any write: no journal file is ever opened beside the database.
        guard try connection.setJournalMode("memory") == "memory" else {
            throw SQLiteError(extendedCode: .error, message: "the overlay's journal is not in memory")
        }
        return connection
    }
}

/// The VFS behind `Connection.overlaying`: the main database through its `FileOverlay`,
/// temporary files through SQLite's default VFS, nothing else.
enum OverlayVFS {
    static let name = "steward-overlay"

    nonisolated(unsafe) static let registered: UnsafeMutablePointer<sqlite3_vfs>? = register()

    nonisolated(unsafe) private static let methods: UnsafeMutablePointer<sqlite3_io_methods> = {
        let methods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        methods.initialize(to: sqlite3_io_methods())
        methods.pointee.iVersion = 1
        methods.pointee.xClose = { file in
            file.map { OverlayVFS.overlayFile($0).pointee.overlay = nil }
            return SQLITE_OK
        }
        methods.pointee.xRead = { file, buffer, amount, offset in
            guard let overlay = OverlayVFS.overlay(of: file), let buffer else { return ResultCode.ioErrorRead.rawValue }
            return overlay.read(into: buffer, count: Int(amount), at: offset)
        }
        methods.pointee.xWrite = { file, buffer, amount, offset in
            guard let overlay = OverlayVFS.overlay(of: file), let buffer else { return ResultCode.ioErrorWrite.rawValue }
            return overlay.write(from: buffer, count: Int(amount), at: offset)
        }
        methods.pointee.xTruncate = { file, size in
            guard let overlay = OverlayVFS.overlay(of: file) else { return ResultCode.ioErrorTruncate.rawValue }
            return overlay.truncate(to: size)
        }
        methods.pointee.xSync = { _, _ in SQLITE_OK }
        methods.pointee.xFileSize = { file, size in
            guard let overlay = OverlayVFS.overlay(of: file), let size else { return ResultCode.ioErrorFstat.rawValue }
            size.pointee = overlay.fileSize
            return SQLITE_OK
        }
        // Only this connection uses the image; the caller holds the file's real locks.
        methods.pointee.xLock = { _, _ in SQLITE_OK }
        methods.pointee.xUnlock = { _, _ in SQLITE_OK }
        methods.pointee.xCheckReservedLock = { _, reserved in
            reserved?.pointee = 0
            return SQLITE_OK
        }
        methods.pointee.xFileControl = { _, _, _ in SQLITE_NOTFOUND }
        methods.pointee.xSectorSize = { _ in 4096 }
        methods.pointee.xDeviceCharacteristics = { _ in 0 }
        return methods
    }()

    private static func overlayFile(_ file: UnsafeMutablePointer<sqlite3_file>) -> UnsafeMutablePointer<steward_overlay_file> {
        UnsafeMutableRawPointer(file).assumingMemoryBound(to: steward_overlay_file.self)
    }

    private static func overlay(of file: UnsafeMutablePointer<sqlite3_file>?) -> FileOverlay? {
        guard let file, let pointer = OverlayVFS.overlayFile(file).pointee.overlay else { return nil }
        return Unmanaged<FileOverlay>.fromOpaque(pointer).takeUnretainedValue()
    }

    private static func base(_ vfs: UnsafeMutablePointer<sqlite3_vfs>?) -> UnsafeMutablePointer<sqlite3_vfs>? {
        vfs?.pointee.pAppData?.assumingMemoryBound(to: sqlite3_vfs.self)
    }

    private static func register() -> UnsafeMutablePointer<sqlite3_vfs>? {
        guard sqlite3_initialize() == SQLITE_OK, let fallback = sqlite3_vfs_find(nil) else { return nil }
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: sqlite3_vfs())
        vfs.pointee.iVersion = 2
        vfs.pointee.szOsFile = max(Int32(MemoryLayout<steward_overlay_file>.size), fallback.pointee.szOsFile)
        vfs.pointee.mxPathname = fallback.pointee.mxPathname
        vfs.pointee.zName = UnsafePointer(strdup(name))
        vfs.pointee.pAppData = UnsafeMutableRawPointer(fallback)
        vfs.pointee.xOpen = { vfs, name, file, flags, outFlags in
            guard let file else { return SQLITE_CANTOPEN }
            file.pointee.pMethods = nil
            if flags & SQLITE_OPEN_MAIN_DB != 0 {
                guard let name, let key = sqlite3_uri_parameter(name, "overlay"), let bits = UInt(String(cString: key)),
                      let pointer = UnsafeMutableRawPointer(bitPattern: bits)
                else { return SQLITE_CANTOPEN }
                OverlayVFS.overlayFile(file).pointee.overlay = pointer
                file.pointee.pMethods = UnsafePointer(OverlayVFS.methods)
                outFlags?.pointee = flags
                return SQLITE_OK
            }
            // Temporary files only (no name, or SQLite's temporary kinds): never a file
            // beside the database.
            let temporary = SQLITE_OPEN_TEMP_DB | SQLITE_OPEN_TEMP_JOURNAL | SQLITE_OPEN_SUBJOURNAL | SQLITE_OPEN_TRANSIENT_DB
            guard name == nil || flags & temporary != 0, let fallback = OverlayVFS.base(vfs) else { return SQLITE_CANTOPEN }
            return fallback.pointee.xOpen?(fallback, name, file, flags, outFlags) ?? SQLITE_CANTOPEN
        }
        vfs.pointee.xDelete = { _, _, _ in ResultCode.ioErrorDelete.rawValue }
        vfs.pointee.xAccess = { _, _, _, result in
            // No journal, no WAL beside the image.
            result?.pointee = 0
            return SQLITE_OK
        }
        vfs.pointee.xFullPathname = { _, name, count, output in
            guard let name, let output else { return SQLITE_CANTOPEN }
            let length = strlen(name)
            guard length < Int(count) else { return SQLITE_CANTOPEN }
            memcpy(output, name, length + 1)
            return SQLITE_OK
        }
        vfs.pointee.xDlOpen = { vfs, name in OverlayVFS.base(vfs).flatMap { $0.pointee.xDlOpen?($0, name) } }
        vfs.pointee.xDlError = { vfs, count, message in _ = OverlayVFS.base(vfs).map { $0.pointee.xDlError?($0, count, message) } }
        vfs.pointee.xDlSym = { vfs, handle, symbol in OverlayVFS.base(vfs).flatMap { $0.pointee.xDlSym?($0, handle, symbol) } ?? nil }
        vfs.pointee.xDlClose = { vfs, handle in _ = OverlayVFS.base(vfs).map { $0.pointee.xDlClose?($0, handle) } }
        vfs.pointee.xRandomness = { vfs, count, output in OverlayVFS.base(vfs).flatMap { $0.pointee.xRandomness?($0, count, output) } ?? 0 }
        vfs.pointee.xSleep = { vfs, microseconds in OverlayVFS.base(vfs).flatMap { $0.pointee.xSleep?($0, microseconds) } ?? 0 }
        vfs.pointee.xCurrentTime = { vfs, time in OverlayVFS.base(vfs).flatMap { $0.pointee.xCurrentTime?($0, time) } ?? SQLITE_ERROR }
        vfs.pointee.xGetLastError = { vfs, count, message in OverlayVFS.base(vfs).flatMap { $0.pointee.xGetLastError?($0, count, message) } ?? 0 }
        vfs.pointee.xCurrentTimeInt64 = { vfs, time in
            guard let fallback = OverlayVFS.base(vfs) else { return SQLITE_ERROR }
            if let current = fallback.pointee.xCurrentTimeInt64 { return current(fallback, time) }
            var days: Double = 0
            let rc = fallback.pointee.xCurrentTime?(fallback, &days) ?? SQLITE_ERROR
            time?.pointee = sqlite3_int64(days * 86_400_000)
            return rc
        }
        guard sqlite3_vfs_register(vfs, 0) == SQLITE_OK else { return nil }
        return vfs
    }
}
