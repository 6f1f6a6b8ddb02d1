import CSQLite

/// A result code of SQLite (https://www.sqlite.org/rescode.html), primary or extended,
/// with names that `switch` and `catch` can match.
///
/// A primary code as a pattern matches every extended code of its family, so
/// `case .constraint:` catches a NOT NULL violation (`.constraintNotNull`) as well;
/// an extended code as a pattern matches itself only. The shape follows GRDB's
/// `ResultCode` (groue/GRDB.swift, tag v6.29.3, GRDB/Core/DatabaseError.swift).
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The primary code: the low eight bits of an extended code.
    public var primaryResultCode: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

    /// The number, as SQLite's documentation and Steward's messages print it.
    public var description: String { String(rawValue) }

    /// SQLite's generic English text for the code (`sqlite3_errstr`).
    public var genericMessage: String { String(cString: sqlite3_errstr(rawValue)) }

    /// Matches a primary pattern against any code of its family, an extended pattern exactly.
    public static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
        if pattern.primaryResultCode == pattern {
            return pattern == code.primaryResultCode
        }
        return pattern == code
    }

    /// Lets `catch ResultCode.busy` match an `SQLiteError` of that code.
    public static func ~= (pattern: ResultCode, error: any Error) -> Bool {
        guard let error = error as? SQLiteError else { return false }
        return pattern ~= error.extendedCode
    }

    // MARK: - Primary result codes

    /// Successful result.
    public static let ok = ResultCode(rawValue: SQLITE_OK)
    /// Generic error.
    public static let error = ResultCode(rawValue: SQLITE_ERROR)
    /// Internal logic error in SQLite.
    public static let `internal` = ResultCode(rawValue: SQLITE_INTERNAL)
    /// Access permission denied.
    public static let perm = ResultCode(rawValue: SQLITE_PERM)
    /// Callback routine requested an abort.
    public static let abort = ResultCode(rawValue: SQLITE_ABORT)
    /// The database file is locked.
    public static let busy = ResultCode(rawValue: SQLITE_BUSY)
    /// A table in the database is locked.
    public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
    /// A malloc() failed.
    public static let noMemory = ResultCode(rawValue: SQLITE_NOMEM)
    /// Attempt to write a readonly database.
    public static let readOnly = ResultCode(rawValue: SQLITE_READONLY)
    /// Operation terminated by sqlite3_interrupt().
    public static let interrupt = ResultCode(rawValue: SQLITE_INTERRUPT)
    /// Some kind of disk I/O error occurred.
    public static let ioError = ResultCode(rawValue: SQLITE_IOERR)
    /// The database disk image is malformed.
    public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
    /// Unknown opcode in sqlite3_file_control().
    public static let notFound = ResultCode(rawValue: SQLITE_NOTFOUND)
    /// Insertion failed because database is full.
    public static let full = ResultCode(rawValue: SQLITE_FULL)
    /// Unable to open the database file.
    public static let cantOpen = ResultCode(rawValue: SQLITE_CANTOPEN)
    /// Database lock protocol error.
    public static let `protocol` = ResultCode(rawValue: SQLITE_PROTOCOL)
    /// Internal use only.
    public static let empty = ResultCode(rawValue: SQLITE_EMPTY)
    /// The database schema changed.
    public static let schema = ResultCode(rawValue: SQLITE_SCHEMA)
    /// String or BLOB exceeds size limit.
    public static let tooBig = ResultCode(rawValue: SQLITE_TOOBIG)
    /// Abort due to constraint violation.
    public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
    /// Data type mismatch.
    public static let mismatch = ResultCode(rawValue: SQLITE_MISMATCH)
    /// Library used incorrectly.
    public static let misuse = ResultCode(rawValue: SQLITE_MISUSE)
    /// Uses OS features not supported on host.
    public static let noLargeFileSupport = ResultCode(rawValue: SQLITE_NOLFS)
    /// Authorization denied.
    public static let auth = ResultCode(rawValue: SQLITE_AUTH)
    /// Not used.
    public static let format = ResultCode(rawValue: SQLITE_FORMAT)
    /// 2nd parameter to sqlite3_bind out of range.
    public static let range = ResultCode(rawValue: SQLITE_RANGE)
    /// File opened that is not a database file.
    public static let notADatabase = ResultCode(rawValue: SQLITE_NOTADB)
    /// Notifications from sqlite3_log().
    public static let notice = ResultCode(rawValue: SQLITE_NOTICE)
    /// Warnings from sqlite3_log().
    public static let warning = ResultCode(rawValue: SQLITE_WARNING)
    /// sqlite3_step() has another row ready.
    public static let row = ResultCode(rawValue: SQLITE_ROW)
    /// sqlite3_step() has finished executing.
    public static let done = ResultCode(rawValue: SQLITE_DONE)

    // MARK: - Extended result codes
    // Numbers rather than the C macros: Swift does not import a macro built with `|` and `<<`.

    public static let errorMissingCollatingSequence = ResultCode(rawValue: 257)  // SQLITE_ERROR_MISSING_COLLSEQ
    public static let errorRetry = ResultCode(rawValue: 513)  // SQLITE_ERROR_RETRY
    public static let errorSnapshot = ResultCode(rawValue: 769)  // SQLITE_ERROR_SNAPSHOT
    public static let lockedSharedCache = ResultCode(rawValue: 262)  // SQLITE_LOCKED_SHAREDCACHE
    public static let lockedVirtualTable = ResultCode(rawValue: 518)  // SQLITE_LOCKED_VTAB
    public static let busyRecovery = ResultCode(rawValue: 261)  // SQLITE_BUSY_RECOVERY
    public static let busySnapshot = ResultCode(rawValue: 517)  // SQLITE_BUSY_SNAPSHOT
    public static let busyTimeout = ResultCode(rawValue: 773)  // SQLITE_BUSY_TIMEOUT
    public static let ioErrorRead = ResultCode(rawValue: 266)  // SQLITE_IOERR_READ
    public static let ioErrorShortRead = ResultCode(rawValue: 522)  // SQLITE_IOERR_SHORT_READ
    public static let ioErrorWrite = ResultCode(rawValue: 778)  // SQLITE_IOERR_WRITE
    public static let ioErrorFsync = ResultCode(rawValue: 1034)  // SQLITE_IOERR_FSYNC
    public static let ioErrorDirectoryFsync = ResultCode(rawValue: 1290)  // SQLITE_IOERR_DIR_FSYNC
    public static let ioErrorTruncate = ResultCode(rawValue: 1546)  // SQLITE_IOERR_TRUNCATE
    public static let ioErrorFstat = ResultCode(rawValue: 1802)  // SQLITE_IOERR_FSTAT
    public static let ioErrorUnlock = ResultCode(rawValue: 2058)  // SQLITE_IOERR_UNLOCK
    public static let ioErrorReadLock = ResultCode(rawValue: 2314)  // SQLITE_IOERR_RDLOCK
    public static let ioErrorDelete = ResultCode(rawValue: 2570)  // SQLITE_IOERR_DELETE
    public static let ioErrorBlocked = ResultCode(rawValue: 2826)  // SQLITE_IOERR_BLOCKED
    public static let ioErrorNoMemory = ResultCode(rawValue: 3082)  // SQLITE_IOERR_NOMEM
    public static let ioErrorAccess = ResultCode(rawValue: 3338)  // SQLITE_IOERR_ACCESS
    public static let ioErrorCheckReservedLock = ResultCode(rawValue: 3594)  // SQLITE_IOERR_CHECKRESERVEDLOCK
    public static let ioErrorLock = ResultCode(rawValue: 3850)  // SQLITE_IOERR_LOCK
    public static let ioErrorClose = ResultCode(rawValue: 4106)  // SQLITE_IOERR_CLOSE
    public static let ioErrorDirectoryClose = ResultCode(rawValue: 4362)  // SQLITE_IOERR_DIR_CLOSE
    public static let ioErrorSharedMemoryOpen = ResultCode(rawValue: 4618)  // SQLITE_IOERR_SHMOPEN
    public static let ioErrorSharedMemorySize = ResultCode(rawValue: 4874)  // SQLITE_IOERR_SHMSIZE
    public static let ioErrorSharedMemoryLock = ResultCode(rawValue: 5130)  // SQLITE_IOERR_SHMLOCK
    public static let ioErrorSharedMemoryMap = ResultCode(rawValue: 5386)  // SQLITE_IOERR_SHMMAP
    public static let ioErrorSeek = ResultCode(rawValue: 5642)  // SQLITE_IOERR_SEEK
    public static let ioErrorDeleteNoEntry = ResultCode(rawValue: 5898)  // SQLITE_IOERR_DELETE_NOENT
    public static let ioErrorMmap = ResultCode(rawValue: 6154)  // SQLITE_IOERR_MMAP
    public static let ioErrorGetTempPath = ResultCode(rawValue: 6410)  // SQLITE_IOERR_GETTEMPPATH
    public static let ioErrorConvPath = ResultCode(rawValue: 6666)  // SQLITE_IOERR_CONVPATH
    public static let ioErrorVnode = ResultCode(rawValue: 6922)  // SQLITE_IOERR_VNODE
    public static let ioErrorAuth = ResultCode(rawValue: 7178)  // SQLITE_IOERR_AUTH
    public static let ioErrorBeginAtomic = ResultCode(rawValue: 7434)  // SQLITE_IOERR_BEGIN_ATOMIC
    public static let ioErrorCommitAtomic = ResultCode(rawValue: 7690)  // SQLITE_IOERR_COMMIT_ATOMIC
    public static let ioErrorRollbackAtomic = ResultCode(rawValue: 7946)  // SQLITE_IOERR_ROLLBACK_ATOMIC
    public static let ioErrorData = ResultCode(rawValue: 8202)  // SQLITE_IOERR_DATA
    public static let ioErrorCorruptFileSystem = ResultCode(rawValue: 8458)  // SQLITE_IOERR_CORRUPTFS
    public static let cantOpenNoTempDirectory = ResultCode(rawValue: 270)  // SQLITE_CANTOPEN_NOTEMPDIR
    public static let cantOpenIsDirectory = ResultCode(rawValue: 526)  // SQLITE_CANTOPEN_ISDIR
    public static let cantOpenFullPath = ResultCode(rawValue: 782)  // SQLITE_CANTOPEN_FULLPATH
    public static let cantOpenConvPath = ResultCode(rawValue: 1038)  // SQLITE_CANTOPEN_CONVPATH
    public static let cantOpenDirtyWAL = ResultCode(rawValue: 1294)  // SQLITE_CANTOPEN_DIRTYWAL
    public static let cantOpenSymlink = ResultCode(rawValue: 1550)  // SQLITE_CANTOPEN_SYMLINK
    public static let corruptVirtualTable = ResultCode(rawValue: 267)  // SQLITE_CORRUPT_VTAB
    public static let corruptSequence = ResultCode(rawValue: 523)  // SQLITE_CORRUPT_SEQUENCE
    public static let corruptIndex = ResultCode(rawValue: 779)  // SQLITE_CORRUPT_INDEX
    public static let readOnlyRecovery = ResultCode(rawValue: 264)  // SQLITE_READONLY_RECOVERY
    public static let readOnlyCantLock = ResultCode(rawValue: 520)  // SQLITE_READONLY_CANTLOCK
    public static let readOnlyRollback = ResultCode(rawValue: 776)  // SQLITE_READONLY_ROLLBACK
    public static let readOnlyDatabaseMoved = ResultCode(rawValue: 1032)  // SQLITE_READONLY_DBMOVED
    public static let readOnlyCantInit = ResultCode(rawValue: 1288)  // SQLITE_READONLY_CANTINIT
    public static let readOnlyDirectory = ResultCode(rawValue: 1544)  // SQLITE_READONLY_DIRECTORY
    public static let abortRollback = ResultCode(rawValue: 516)  // SQLITE_ABORT_ROLLBACK
    public static let constraintCheck = ResultCode(rawValue: 275)  // SQLITE_CONSTRAINT_CHECK
    public static let constraintCommitHook = ResultCode(rawValue: 531)  // SQLITE_CONSTRAINT_COMMITHOOK
    public static let constraintForeignKey = ResultCode(rawValue: 787)  // SQLITE_CONSTRAINT_FOREIGNKEY
    public static let constraintFunction = ResultCode(rawValue: 1043)  // SQLITE_CONSTRAINT_FUNCTION
    public static let constraintNotNull = ResultCode(rawValue: 1299)  // SQLITE_CONSTRAINT_NOTNULL
    public static let constraintPrimaryKey = ResultCode(rawValue: 1555)  // SQLITE_CONSTRAINT_PRIMARYKEY
    public static let constraintTrigger = ResultCode(rawValue: 1811)  // SQLITE_CONSTRAINT_TRIGGER
    public static let constraintUnique = ResultCode(rawValue: 2067)  // SQLITE_CONSTRAINT_UNIQUE
    public static let constraintVirtualTable = ResultCode(rawValue: 2323)  // SQLITE_CONSTRAINT_VTAB
    public static let noticeRecoverWAL = ResultCode(rawValue: 283)  // SQLITE_NOTICE_RECOVER_WAL
    public static let noticeRecoverRollback = ResultCode(rawValue: 539)  // SQLITE_NOTICE_RECOVER_ROLLBACK
    public static let warningAutoindex = ResultCode(rawValue: 284)  // SQLITE_WARNING_AUTOINDEX
    public static let authUser = ResultCode(rawValue: 279)  // SQLITE_AUTH_USER
    public static let okLoadPermanently = ResultCode(rawValue: 256)  // SQLITE_OK_LOAD_PERMANENTLY
}
