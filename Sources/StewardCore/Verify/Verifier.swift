import Foundation
import SQLiteKit

import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// `steward verify`: proves a database (integrity, foreign keys, FTS5 index sync and
/// trigger coverage, version, assertions) and a migration set's search contract.
///
/// The database file is never modified: the checks that need to write (FTS5's own
/// integrity-check is an INSERT, assertions may fill TEMP tables) run on a private
/// copy (copy_file_range for a rollback-journal database, the backup API for a WAL one),
/// in a transaction that is rolled back. The copy is made only when one of them has work
/// to do, and a copy that cannot be made fails only them. FTS5's check alone, on a
/// rollback-journal database, needs no copy: it runs on the file read in place, with what
/// it writes kept in memory (`checkFTSSyncInPlace`).
/// Independent checks run on separate connections at the same time.
public struct Verifier: Sendable {
    public struct Options: Sendable {
        public var databasePath: String?
        public var quick = false
        public var expectedVersion: Int32?
        public var migrationsDirectory: String?
        /// The layout of the migration set; nil to detect it as `migrate` does.
        public var dialect: Dialect?
        public var assertionFiles: [String] = []
        public var contractPath: String?
        /// A query-plan contract, planned on the database (`plans`, only when given).
        public var planContractPath: String?
        /// FTS5 tables (lower-cased) that the application indexes in the background: their
        /// missing sync triggers and unindexed rows are reported, not failures.
        public var ftsDeferred: Set<String> = []
        /// SQLite extensions loaded into every connection to the database, for schemas
        /// that use them; those connections then trust only innocuous functions in the
        /// schema (`harden(loadingExtensions:)`).
        public var extensions: [String] = []
        /// Which check proves FTS5 tables (`--fts-check`), and on how many workers
        /// (`--fts-workers`; nil: the number of cores).
        public var ftsCheck: FTS5CheckKind = .parallel
        public var ftsWorkers: Int?
        /// How long to wait for another connection's lock, in seconds.
        public var timeout = LockWait.defaultSeconds

        public init(databasePath: String?) {
            self.databasePath = databasePath
        }
    }

    public enum Event: Sendable {
        case started(check: CheckName)
        case finished(check: CheckName, status: CheckResult.Status, seconds: Double)
    }

    /// The checks' names in report order.
    static let checkOrder = CheckName.verifyChecks.map(\.rawValue)

    public let setup: OperationSetup<Options, Event>
    /// `--timeout`: what the whole run may wait for other connections' locks.
    let lockWaits: LockWaits

    public init(setup: OperationSetup<Options, Event>) {
        self.setup = setup
        lockWaits = LockWaits(timeout: setup.options.timeout, cancellation: setup.cancellation, database: setup.options.databasePath)
    }

    /// A failed check is in the report; what is thrown ends the run before a report.
    ///
    /// - Throws: `StewardError`: `.notFound`, `.badInput` (an input that is not what it
    ///   should be), `.busy`, `.interrupted`, `.internal`.
    public func run() throws -> VerifyReport {
        let stopwatch = Stopwatch()
        // Every input is read and checked before any check runs: 65/66 come first.
        let expectation = try options.migrationsDirectory.map {
            try MigrationExpectation(directory: $0, dialect: options.dialect, databasePath: options.databasePath)
        }
        // A contract asked for always runs: without a set to build its databases from, the
        // run is refused before any check (never a skipped check and exit 0).
        if options.contractPath != nil, expectation == nil {
            throw StewardError(.usage, "a search contract needs a migration set to build its databases from")
        }
        let contract = try options.contractPath.map { try SearchContract.load(path: $0) }
        let assertions = try options.assertionFiles.map { try AssertionRunner(path: $0) }
        let plans = try options.planContractPath.map(PlanContract.init(path:))
        // An extension that cannot load is a bad input, not a failed check.
        try ExtensionLoading.requireLoadable(options.extensions)
        var header: DatabaseHeader?
        var size: Int64 = 0
        if let path = options.databasePath {
            let probe = try DatabaseFile(path: path)
            guard probe.size > 0 else { throw DatabaseFile.emptyFile(path) }
            size = probe.size
            header = try probe.header()
        }

        let results = CheckResults()
        let facts = DatabaseFactsBox()
        let group = DispatchGroup()
        let held = HeldDescriptors()
        let fts5Available = SQLiteLibrary.canCreateFTS5()

        // Leftovers of killed runs hold customer data: cleared on every run with a database,
        // copy or not, with those of Steward's other commands under TMPDIR, and named.
        let stale = options.databasePath == nil ? [] : TemporaryWorkspace.removeStaleInTemporaryDirectory()
        if let path = options.databasePath {
            let expected = options.expectedVersion ?? expectation?.newestUserVersion
            let quick = options.quick
            let headerCopy = header
            // Where the integrity check can see CHECK constraints without any chance of
            // changing the file: in place, or on the private copy (IntegrityCheck).
            let inPlace = IntegrityCheck.canCheckInPlace(path: path, header: header)
            dispatch(group, results) {
                try self.checkOriginal(path: path, header: headerCopy, quick: quick, expectedVersion: expected, integrityInPlace: inPlace,
                                       expectation: expectation, results: results, facts: facts)
            }
            dispatch(group, results) {
                try self.checkCopy(path: path, header: headerCopy, assertions: assertions, integrity: inPlace ? nil : quick, results: results,
                                   held: held)
            }
        } else {
            for name in CheckName.verifyChecks where name != .searchContract {
                results.skip(name, missing: .database)
            }
        }
        if let plans, let path = options.databasePath {
            let headerCopy = header
            dispatch(group, results) { try self.checkPlans(plans, path: path, header: headerCopy, results: results) }
        }
        if let contract, let set = expectation?.set {
            dispatch(group, results) { try self.checkContract(contract, set: set, results: results) }
        } else {
            results.skip(.searchContract, missing: .contract)
        }
        group.wait()
        held.closeAll()
        if let error = results.error { throw error }
        if cancellation.isCancelled {
            throw StewardError.interrupted(by: cancellation)
        }

        // `plans` only when asked for: a report without --plans is as it always was.
        let checks = (CheckName.verifyChecks + [.plans]).compactMap { results.check(named: $0) }
        let failedChecks = checks.filter { $0.status == .fail }.map(\.name.rawValue)
        let cases = results.contractCases
        let database = options.databasePath.map { path in
            VerifyReport.Database(
                fileName: Paths.fileName(of: path), path: path, sizeBytes: size,
                userVersion: facts.userVersion ?? header?.userVersion ?? 0, ftsTables: facts.ftsTables)
        }
        return VerifyReport(
            stewardVersion: StewardVersion.current, sqliteVersion: SQLiteLibrary.version,
            fts5Available: fts5Available, database: database, contractVersion: contract?.version,
            contractCases: cases, checks: checks, failedChecks: failedChecks,
            failedCases: cases.filter { !$0.passed }.map(\.name), passed: failedChecks.isEmpty,
            totalSeconds: stopwatch.roundedSeconds, staleTemporariesRemoved: stale)
    }

    func dispatch(_ group: DispatchGroup, _ results: CheckResults, _ work: @escaping @Sendable () throws -> Void) {
        DispatchQueue.global().async(group: group) {
            do {
                try work()
            } catch let error as StewardError {
                results.fail(error)
            } catch {
                results.fail(StewardError(.internal, "a check stopped unexpectedly: \(SQLiteMessage.text(of: error))"))
            }
        }
    }

    /// Runs one check, timing it and turning thrown errors into a recorded failure.
    /// `watch` is when the check's work began, when some of it ran before (schema).
    func timed(_ checkName: CheckName, into results: CheckResults, since watch: Stopwatch = Stopwatch(),
               _ body: () throws -> Check) {
        progress(.started(check: checkName))
        let check: CheckResult
        do {
            let found = try body()
            check = .init(name: checkName, status: found.passed ? .pass : .fail, summary: found.detail,
                          durationSeconds: watch.roundedSeconds, details: Array(found.reportedDetails.prefix(50)))
        } catch let error as SQLiteError {
            check = .init(name: checkName, status: .fail, summary: "cannot run: \(error.messageAndCode)",
                          durationSeconds: watch.roundedSeconds, details: [])
        } catch {
            check = .init(name: checkName, status: .fail, summary: "cannot run: \(SQLiteMessage.text(of: error))",
                          durationSeconds: watch.roundedSeconds, details: [])
        }
        results.add(check, as: checkName)
        progress(.finished(check: checkName, status: check.status, seconds: check.durationSeconds))
    }
}

extension Verifier: StewardOperation {}
