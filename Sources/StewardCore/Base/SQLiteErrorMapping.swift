import SQLiteKit
import StewardBase

/// The one place where an `SQLiteError` becomes a `StewardError`: what Steward was doing
/// with which file decides the words, and the result code with it the exit status.
///
/// A signal always wins: once `cancellation` is set (or SQLite was interrupted), whatever
/// the statement answered, the work was interrupted. Messages quote SQLite's own text only
/// where its shape cannot hold row data (`SQLiteMessage`, through `shownMessage` and
/// `messageAndCode`): the role decides the words, never what is quoted.
struct SQLiteErrorMapping: Sendable {
    enum Role: Sendable, Equatable {
        /// A database the user named, being opened or read (inspect, verify, migrate
        /// before its transaction). With a lock timeout, busy is "gave up after N s".
        case database
        /// backup's source, read-write when the file allows, under a lock allowance.
        case sourceDatabase
        /// The database migrate changes, inside the run's transaction.
        case migratedDatabase
        /// One statement of a migration file; `path` is its place (`0002_x.sql:14`).
        /// `preparing`: it failed on the migration's own text ("the statement failed" otherwise).
        case migrationStatement(preparing: Bool)
        /// A private file Steward writes (backup's copy): the message names its directory.
        case copy
        /// A private copy checked before it is published: a failure refuses to publish,
        /// `refusal` saying what could not be done ("the copy cannot be checked").
        case checkedCopy(refusal: String)
        /// The database out of a bundle, staged by restore: a failed statement fails the
        /// check that ran it (`.checkFailed`, whose message is the check's summary); a file
        /// that is no database at all ends the restore.
        case restoredDatabase
        /// The database `restore --replace` takes the place of, opened and locked before
        /// anything is replaced: busy past `timeout` seconds is another connection's use.
        /// `context` says which step ("cannot lock PATH to replace it").
        case replacedDatabase(timeout: Double)
    }

    let path: String
    let role: Role
    var cancellation: Cancellation?
    /// Added after "interrupted by SIGINT", saying what the interrupted work left behind.
    var interruptedDetail = ""
    /// Seconds the work waited for another connection's lock; busy then means it gave up.
    var lockTimeout: Double?
    /// Put before the message: which step of a run failed.
    var context: String?

    init(path: String, role: Role, cancellation: Cancellation? = nil, interruptedDetail: String = "",
         lockTimeout: Double? = nil, context: String? = nil) {
        self.path = path
        self.role = role
        self.cancellation = cancellation
        self.interruptedDetail = interruptedDetail
        self.lockTimeout = lockTimeout
        self.context = context
    }

    func error(for error: SQLiteError) -> StewardError {
        if error.isInterrupt || cancellation?.isCancelled == true {
            if case .migrationStatement = role {
                return .interrupted(by: cancellation, " while running \(path)")
            }
            return .interrupted(by: cancellation, interruptedDetail)
        }
        let prefix = context.map { "\($0): " } ?? ""
        if error.isBusy, let lockTimeout, role != .copy {
            return .gaveUp(on: path, after: lockTimeout, error.shownMessage, prefix: prefix)
        }
        switch role {
        case .database:
            return reading(error)
        case .sourceDatabase:
            switch error.code {
            case .cantOpen:
                return StewardError(.notFound, "cannot open \(path): \(error.shownMessage)")
            case .readOnly:
                // Reading a WAL database needs its -shm (and -wal); when neither exists and the
                // directory is read-only, SQLite cannot make them. Reading the main file alone
                // would not be pinned against a writer that starts meanwhile: refused.
                return StewardError(
                    .notFound,
                    "cannot read \(path): \(error.shownMessage); a database in WAL mode needs its -wal and -shm files, or a directory where SQLite can create them")
            default:
                return reading(error)
            }
        case .migratedDatabase:
            if error.isOutOfMemory {
                return StewardError(.inputOutput, "\(prefix)out of memory while migrating \(path); nothing changed")
            }
            if error.code == .readOnly {
                return StewardError(.cannotCreate, "\(prefix)cannot write to \(path): \(error.shownMessage)")
            }
            if error.isInputOutput {
                return StewardError(.inputOutput, "\(prefix)\(path): \(error.shownMessage)")
            }
            return StewardError(.badInput, "\(prefix)\(path): \(error.messageAndCode)")
        case .migrationStatement(let preparing):
            if let failure = resource(
                error, busy: "\(path): the database is locked (\(error.shownMessage))",
                outOfMemory: "\(path): out of memory; nothing changed", inputOutput: "\(path): \(error.shownMessage)") {
                return failure
            }
            if preparing {
                return StewardError(.badInput, "\(path): \(error.messageAndCode)")
            }
            return StewardError(.badInput, "\(path): the statement failed: \(error.messageAndCode)")
        case .copy:
            let directory = Paths.directory(of: path)
            switch error.code {
            case .full:
                return StewardError(.inputOutput, "no space left in \(directory) for the copy (\(error.shownMessage))")
            case .readOnly, .cantOpen:
                return StewardError(.cannotCreate, "cannot write the copy in \(directory): \(error.shownMessage)")
            default:
                return StewardError(
                    .inputOutput, "cannot write the copy in \(directory): \(error.messageAndCode)")
            }
        case .checkedCopy(let refusal):
            return StewardError(.checkFailed, "refusing to publish: \(refusal): \(error.shownMessage)")
        case .restoredDatabase:
            if error.isNotADatabase {
                return StewardError(.badInput, "the payload is not a SQLite database (\(error.shownMessage))")
            }
            return StewardError(.checkFailed, "\(error.messageAndCode)")
        case .replacedDatabase(let timeout):
            if error.isBusy {
                return StewardError(
                    .busy, "\(path) is in use by another connection: still locked after \(Int(timeout)) s; nothing was replaced")
            }
            return StewardError(error.isOutOfMemory || error.isInputOutput ? .inputOutput : .badInput, "\(prefix)\(error.messageAndCode)")
        }
    }

    /// A database opened or read before anything is changed.
    private func reading(_ error: SQLiteError) -> StewardError {
        if error.extendedCode == .readOnlyRollback {
            return StewardError(
                .badInput,
                "\(path) has a hot journal from an interrupted write (\(path)-journal): it must be rolled back "
                    + "through a read-write connection first, which Steward does not open here; "
                    + "for example: sqlite3 \(path) 'PRAGMA quick_check'")
        }
        if error.isNotADatabase {
            return .notADatabase(path, error.shownMessage)
        }
        if error.isCorrupt {
            return StewardError(.badInput, "the database is damaged: \(path) (\(error.shownMessage))")
        }
        if let failure = resource(
            error, busy: "the database is locked: \(path) (\(error.shownMessage))",
            outOfMemory: "out of memory while reading \(path); nothing changed", inputOutput: "cannot read \(path): \(error.shownMessage)") {
            return failure
        }
        return StewardError(.badInput, "cannot read the database \(path): \(error.shownMessage)")
    }

    /// A lock held by another connection (75), or a failure of the machine's resources,
    /// memory or I/O (74, not bad input), in the words given; nil for any other error.
    private func resource(_ error: SQLiteError, busy: String, outOfMemory: String, inputOutput: String) -> StewardError? {
        if error.isBusy { return StewardError(.busy, busy) }
        if error.isOutOfMemory { return StewardError(.inputOutput, outOfMemory) }
        if error.isInputOutput { return StewardError(.inputOutput, inputOutput) }
        return nil
    }

    /// Runs `body`, turning an SQLite error it throws into this mapping's `StewardError`.
    func run<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let failure as SQLiteError {
            throw error(for: failure)
        }
    }

    /// For a check that runs statements: the summary of the failed check, or, when the
    /// failure ends the whole run (a signal, a file that is no database), the error thrown.
    ///
    /// - Throws: `StewardError` of any kind but `.checkFailed`.
    func checkSummary(for error: SQLiteError) throws -> String {
        let mapped = self.error(for: error)
        guard mapped.kind == .checkFailed else { throw mapped }
        return mapped.message
    }
}
