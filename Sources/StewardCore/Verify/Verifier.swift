import Foundation
import SQLiteKit

#if canImport(Glibc)
import Glibc
#endif

/// `steward verify`: proves a database (integrity, foreign keys, FTS5 index sync and
/// trigger coverage, version, assertions) and a migration set's search contract.
///
/// The database file is never modified: the checks that need to write (FTS5's own
/// integrity-check is an INSERT, assertions may fill TEMP tables) run on a private
/// copy made with the backup API, in a transaction that is rolled back. The copy is made
/// only when one of them has work to do, and a copy that cannot be made fails only them.
/// Independent checks run on separate connections at the same time.
public struct Verifier: Sendable {
    public struct Options: Sendable {
        public var databasePath: String?
        public var quick = false
        public var expectedVersion: Int32?
        public var migrationsDirectory: String?
        public var assertionFiles: [String] = []
        public var contractPath: String?
        /// FTS5 tables (lower-cased) that the application indexes in the background: their
        /// missing sync triggers and unindexed rows are reported, not failures.
        public var ftsDeferred: Set<String> = []
        /// SQLite extensions loaded into every connection to the database, for schemas
        /// that use them; those connections then trust only innocuous functions in the
        /// schema (`harden(loadingExtensions:)`).
        public var extensions: [String] = []
        /// How long to wait for another connection's lock, in seconds.
        public var timeout: Double = 30

        public init(databasePath: String?) {
            self.databasePath = databasePath
        }
    }

    public enum Event: Sendable {
        case started(check: String)
        case finished(check: String, status: VerifyReport.Check.Status, seconds: Double)
    }

    static let checkOrder = [
        "sqlite", "integrity", "foreign-keys", "fts-sync", "fts-triggers", "version", "ledger", "schema", "assertions",
        "search-contract",
    ]

    let options: Options
    let cancellation: Cancellation
    let progress: @Sendable (Event) -> Void

    public init(options: Options, cancellation: Cancellation,
                progress: @escaping @Sendable (Event) -> Void) {
        self.options = options
        self.cancellation = cancellation
        self.progress = progress
    }

    public func run() throws -> VerifyReport {
        let stopwatch = Stopwatch()
        // Every input is read and checked before any check runs: 65/66 come first.
        let expectation = try options.migrationsDirectory.map {
            try MigrationExpectation(directory: $0, databasePath: options.databasePath)
        }
        let set = expectation?.stewardSet
        let contract = try options.contractPath.map { try SearchContract.load(path: $0) }
        let assertions = try options.assertionFiles.map { try AssertionRunner(path: $0) }
        // An extension that cannot load is a bad input, not a failed check.
        try ExtensionLoading.requireLoadable(options.extensions)
        var header: DatabaseHeader?
        var size: Int64 = 0
        if let path = options.databasePath {
            let probe = try FileProbe(path: path)
            guard probe.size > 0 else { throw FileProbe.emptyFile(path) }
            size = probe.size
            do {
                header = try DatabaseHeader(bytes: probe.headerBytes)
            } catch let problem as DatabaseHeader.Problem {
                throw StewardError(.badInput, "not a SQLite database: \(path) (\(problem))")
            }
        }

        let results = CheckResults()
        let facts = DatabaseFactsBox()
        let group = DispatchGroup()
        let fts5Available = SQLiteLibrary.canCreateFTS5()

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
                try self.checkCopy(path: path, header: headerCopy, assertions: assertions, integrity: inPlace ? nil : quick, results: results)
            }
        } else {
            for name in Self.checkOrder where name != "search-contract" {
                results.add(.skipped(name, "no --db given"))
            }
        }
        if let contract, let set {
            dispatch(group, results) { try self.checkContract(contract, set: set, results: results) }
        } else if contract != nil, let expectation {
            results.add(.skipped(
                "search-contract",
                "the migrations are in \(expectation.dialect.rawValue)'s layout; the contract builds its databases from Steward's own"))
        } else if contract != nil {
            results.add(.skipped("search-contract", "no --migrations given to run the contract on"))
        } else {
            results.add(.skipped("search-contract", "no --contract given"))
        }
        group.wait()
        if let error = results.error { throw error }
        if cancellation.isCancelled {
            throw StewardError.interrupted(by: cancellation)
        }

        let checks = Self.checkOrder.compactMap { results.check(named: $0) }
        let failedChecks = checks.filter { $0.status == .fail }.map(\.name)
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
            totalSeconds: stopwatch.roundedSeconds)
    }

    private func dispatch(_ group: DispatchGroup, _ results: CheckResults, _ work: @escaping @Sendable () throws -> Void) {
        DispatchQueue.global().async(group: group) {
            do {
                try work()
            } catch let error as StewardError {
                results.fail(error)
            } catch {
                results.fail(StewardError(.internal, "a check stopped unexpectedly: \(error)"))
            }
        }
    }

    /// Runs one check, timing it and turning thrown errors into a recorded failure.
    private func timed(_ name: String, into results: CheckResults, _ body: () throws -> (Bool, String, [String])) {
        progress(.started(check: name))
        let watch = Stopwatch()
        let check: VerifyReport.Check
        do {
            let (passed, summary, details) = try body()
            check = .init(name: name, status: passed ? .pass : .fail, durationSeconds: watch.roundedSeconds,
                          summary: summary, details: Array(details.prefix(50)))
        } catch let error as SQLiteError {
            check = .init(name: name, status: .fail, durationSeconds: watch.roundedSeconds,
                          summary: "cannot run: \(error.message) (SQLite error \(error.extendedCode))", details: [])
        } catch {
            check = .init(name: name, status: .fail, durationSeconds: watch.roundedSeconds,
                          summary: "cannot run: \(error.localizedDescription)", details: [])
        }
        results.add(check)
        progress(.finished(check: name, status: check.status, seconds: check.durationSeconds))
    }

    // MARK: - Checks on the original file (read-only)

    private func checkOriginal(
        path: String, header: DatabaseHeader?, quick: Bool, expectedVersion: Int32?, integrityInPlace: Bool,
        expectation: MigrationExpectation?, results: CheckResults, facts: DatabaseFactsBox
    ) throws {
        let connection: Connection
        do {
            connection = try FileProbe.openReadOnly(path: path, header: header, busyTimeout: options.timeout)
            try connection.harden(loadingExtensions: options.extensions)
        } catch let error as SQLiteError {
            results.fail(Inspector.explain(error, path: path))
            return
        }
        let cancellation = self.cancellation
        connection.setProgressHandler(instructions: 100_000) { !cancellation.isCancelled }

        timed("sqlite", into: results) {
            let canCreate = SQLiteLibrary.canCreateFTS5(on: connection)
            let options = SQLiteLibrary.compileOptions.filter { $0.hasPrefix("ENABLE_FTS") }
            let summary = canCreate
                ? "SQLite \(SQLiteLibrary.version); an FTS5 table can be created on this connection"
                : "SQLite \(SQLiteLibrary.version); FTS5 unavailable: no FTS5 table can be created on this connection"
            // integrity_check skips virtual tables, so one whose module is not loaded (an
            // extension's, without --load-extension) would pass unnoticed: each is prepared.
            var unusable: [String] = []
            let virtualTables = try connection.rows(
                sql: "SELECT name FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name")
            for row in virtualTables {
                guard case .text(let name)? = row.first else { continue }
                do {
                    _ = try connection.prepare(sql: "SELECT * FROM \"\(name.replacingOccurrences(of: "\"", with: "\"\""))\" LIMIT 0")
                } catch let error as SQLiteError {
                    unusable.append("virtual table \(name): \(error.message)")
                }
            }
            if !unusable.isEmpty {
                return (false, "\(unusable.count) virtual table(s) cannot be used on this connection (an extension's module needs --load-extension)",
                        unusable)
            }
            return (canCreate, summary, options)
        }

        if integrityInPlace {
            timed("integrity", into: results) {
                // This read transaction holds a shared lock while the read-write connection
                // reads: should a hot journal appear meanwhile, that connection cannot take
                // the exclusive lock it needs to roll it back into the file.
                try connection.execute(sql: "BEGIN")
                defer { connection.rollbackIfNeeded() }
                _ = try connection.integer(sql: "SELECT count(*) FROM sqlite_schema")
                let checker: Connection
                do {
                    checker = try IntegrityCheck.open(path: path, followLinks: true, busyTimeout: options.timeout) { cancellation.isCancelled }
                } catch is IntegrityCheck.NotWritable {
                    return (false, "cannot run: SQLite opened the file read-only, which would leave CHECK constraints unchecked", [])
                }
                return Self.integrityOutcome(try checker.integrityCheck(quick: quick, maximumErrors: 20), quick: quick)
            }
        }

        timed("foreign-keys", into: results) {
            let violations = try connection.foreignKeyViolations()
            if violations.isEmpty { return (true, "foreign_key_check found no violations", []) }
            var counts: [String: Int] = [:]
            for violation in violations { counts["\(violation.table) → \(violation.parent)", default: 0] += 1 }
            let details = counts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value) row\($0.value == 1 ? "" : "s")" }
            return (false, "foreign_key_check found \(violations.count) violation\(violations.count == 1 ? "" : "s")", details)
        }

        var schema: Schema?
        timed("fts-triggers", into: results) {
            let read = try Schema(reading: connection)
            schema = read
            let external = read.fts5Tables.filter { $0.contentMode == .external }
            if external.isEmpty { return (true, "no external-content FTS5 tables", []) }
            var details: [String] = []
            var deferred: [String] = []
            for table in external {
                let missing = read.syncTriggers(for: table).missing
                if !missing.isEmpty {
                    let line = "\(table.name): no \(missing.joined(separator: ", ")) trigger on \(table.contentTable ?? "its content table") that writes to it"
                    if options.ftsDeferred.contains(table.name.lowercased()) {
                        deferred.append(line + " (deferred: indexed in the background)")
                    } else {
                        details.append(line)
                    }
                }
            }
            let names = external.map(\.name).joined(separator: ", ")
            if !details.isEmpty { return (false, "missing sync triggers", details + deferred) }
            return deferred.isEmpty
                ? (true, "insert, delete and update sync triggers present for \(names)", [])
                : (true, "sync triggers present or deferred (--fts-deferred) for \(names)", deferred)
        }
        if let schema {
            facts.ftsTables = schema.fts5Tables.map {
                .init(name: $0.name, columns: $0.columns, contentMode: $0.contentMode.rawValue, content: $0.contentTable,
                      contentRowID: $0.contentRowID, tokenize: $0.tokenizer, options: $0.options)
            }
        }

        let version = (try? connection.userVersion()) ?? header?.userVersion ?? 0
        facts.userVersion = version
        if let expectedVersion {
            timed("version", into: results) {
                version == expectedVersion
                    ? (true, "user_version is \(version)", [])
                    : (false, "user_version is \(version), expected \(expectedVersion)", [])
            }
        } else {
            results.add(.skipped("version", "no --expect-version or --migrations given"))
        }
        if let expectation, expectation.dialectSet != nil {
            timed("ledger", into: results) { try expectation.checkLedger(on: connection) ?? (true, "", []) }
        } else if expectation != nil {
            results.add(.skipped("ledger", "the set is in Steward's own layout: user_version is its record (see version)"))
        } else {
            results.add(.skipped("ledger", "no --migrations given"))
        }
        checkSchema(on: connection, version: version, expectation: expectation, results: results)
    }

    /// Drift: the schema against what the migration set makes at the database's version
    /// (`SchemaDriftCheck`, as `migrate` checks a fleet).
    private func checkSchema(
        on connection: Connection, version: Int32, expectation: MigrationExpectation?, results: CheckResults
    ) {
        guard let directory = options.migrationsDirectory else {
            results.add(.skipped("schema", "no --migrations given"))
            return
        }
        // user_version counts migrations in other layouts; the ledger check covers them.
        if let dialect = expectation?.dialectSet?.dialect {
            results.add(.skipped("schema", "the set is in \(dialect.rawValue)'s layout; drift is compared for Steward's own layout"))
            return
        }
        var comparison: SchemaDriftCheck.Comparison?
        timed("schema", into: results) {
            let found = try SchemaDriftCheck(migrationsDirectory: directory).compare(on: connection, version: version, cancellation: cancellation)
            comparison = found
            return found.status == "drift"
                ? (false, "the schema differs from what the migration set makes at version \(version)", found.differences)
                : (true, "the schema is what the migration set makes at version \(version)", [])
        }
        if let comparison, comparison.status == "skipped" {
            results.add(.skipped("schema", comparison.reason ?? "the schema could not be compared"))
        }
    }

    // MARK: - Checks on a private copy

    private func checkCopy(
        path: String, header: DatabaseHeader?, assertions: [AssertionRunner], integrity quick: Bool?, results: CheckResults
    ) throws {
        let base = FileManager.default.temporaryDirectory.path
        // Leftovers of killed runs hold customer data: cleared on every run, copy or not.
        TemporaryWorkspace.removeStale(in: base, prefix: Self.workspacePrefix)

        var copy: Connection?
        var copyFailure: (summary: String, details: [String])?
        var workspace: TemporaryWorkspace?
        defer { workspace?.remove() }
        do {
            let source = try FileProbe.openReadOnly(path: path, header: header, busyTimeout: options.timeout)
            for path in options.extensions { try source.loadExtension(path: path) }
            // Only fts-sync (when there is an FTS5 table) and assertions write, so only
            // they need a copy; a schema that cannot be read is left for the copy's
            // checks to report.
            let hasFTS5 = (try? Self.declaresFTS5Table(source)) ?? true
            guard hasFTS5 || !assertions.isEmpty || quick != nil else {
                timed("fts-sync", into: results) {
                    SQLiteLibrary.canCreateFTS5() ? (true, "no FTS5 tables", []) : (false, "cannot run: FTS5 unavailable", [])
                }
                results.add(.skipped("assertions", "no --assert given"))
                return
            }
            let made = try makeCopy(of: source, in: base)
            workspace = made.workspace
            copy = made.copy
            if let failure = made.failure { copyFailure = failure }
        } catch let error as SQLiteError where error.isBusy {
            results.fail(StewardError(.busy, "\(path) stayed locked by another connection for \(options.timeout) s (\(error.message))"))
            return
        } catch let error as SQLiteError {
            copyFailure = ("cannot run: cannot copy the database: \(error.message) (SQLite error \(error.extendedCode))", [])
        }
        let cancellation = self.cancellation
        copy?.setProgressHandler(instructions: 100_000) { !cancellation.isCancelled }

        if let quick {
            timed("integrity", into: results) {
                guard let copy else { return (false, copyFailure?.summary ?? "cannot run: no copy", copyFailure?.details ?? []) }
                return Self.integrityOutcome(try copy.integrityCheck(quick: quick, maximumErrors: 20), quick: quick)
            }
        }

        timed("fts-sync", into: results) {
            guard let copy else { return (false, copyFailure?.summary ?? "cannot run: no copy", copyFailure?.details ?? []) }
            guard SQLiteLibrary.canCreateFTS5(on: copy) else {
                return (false, "cannot run: FTS5 unavailable", [])
            }
            let tables = try Schema(reading: copy).fts5Tables
            if tables.isEmpty { return (true, "no FTS5 tables", []) }
            var details: [String] = []
            var deferred: [String] = []
            for table in tables {
                let name = Connection.quote(identifier: table.name)
                // Rank 1 compares the index with the content table (SQLite 3.40) and fails
                // with SQLITE_CORRUPT_VTAB on drift; the default form does not look at it.
                let sql = table.contentMode == .external
                    ? "INSERT INTO \(name)(\(name), rank) VALUES ('integrity-check', 1)"
                    : "INSERT INTO \(name)(\(name)) VALUES ('integrity-check')"
                do {
                    try copy.execute(sql: sql)
                } catch let error as SQLiteError where !error.isInterrupt {
                    let what = error.isCorrupt
                        ? (table.contentMode == .external
                            ? "the index does not match its content table \(table.contentTable ?? "")"
                            : "the index is damaged")
                        : "the check failed"
                    // Rows not yet indexed differ from a damaged index: the default form of
                    // the check, which does not read the content table, must still pass.
                    if error.isCorrupt, table.contentMode == .external, options.ftsDeferred.contains(table.name.lowercased()),
                       (try? copy.execute(sql: "INSERT INTO \(name)(\(name)) VALUES ('integrity-check')")) != nil {
                        deferred.append("\(table.name): not fully indexed yet (deferred: indexed in the background)")
                    } else {
                        details.append("\(table.name): \(what) (\(error.message), SQLite error \(error.extendedCode))")
                    }
                }
            }
            let names = tables.map(\.name).joined(separator: ", ")
            if details.isEmpty, !deferred.isEmpty {
                return (true, "FTS5 integrity-check passed or deferred (--fts-deferred) for \(names)", deferred)
            }
            return details.isEmpty
                ? (true, "FTS5 integrity-check passed for \(names)", [])
                : (false, "FTS5 index out of sync: \(details.map { $0.components(separatedBy: ":")[0] }.joined(separator: ", "))", details)
        }

        if assertions.isEmpty {
            results.add(.skipped("assertions", "no --assert given"))
            return
        }
        timed("assertions", into: results) {
            guard let copy else { return (false, copyFailure?.summary ?? "cannot run: no copy", copyFailure?.details ?? []) }
            var total = 0
            var failures: [AssertionRunner.Failure] = []
            for file in assertions {
                let (count, failed) = try file.run(on: copy)
                total += count
                failures += failed
            }
            if failures.isEmpty { return (true, "all \(total) statement\(total == 1 ? "" : "s") passed", []) }
            return (false, "\(failures.count) of \(total) statements failed: \(failures.map(\.name).joined(separator: ", "))",
                    failures.map { "\($0.name): \($0.reason)" })
        }
    }

    private static func integrityOutcome(_ problems: [String], quick: Bool) -> (Bool, String, [String]) {
        let pragma = quick ? "quick_check" : "integrity_check"
        if problems == ["ok"] { return (true, "\(pragma) returned ok", []) }
        return (false, "\(pragma) found \(problems.count) problem\(problems.count == 1 ? "" : "s")", problems)
    }

    static let workspacePrefix = "steward-verify-"

    /// Whether the schema declares an FTS5 table, from its text alone: nothing is
    /// instantiated on a connection that has not been hardened.
    static func declaresFTS5Table(_ connection: Connection) throws -> Bool {
        var found = false
        try connection.forEachRow(sql: "SELECT name, sql FROM main.sqlite_schema WHERE type = 'table'") { row in
            if !found, let name = row.text(at: 0), let sql = row.text(at: 1), FTS5Definition(name: name, sql: sql) != nil {
                found = true
            }
        }
        return found
    }

    /// The private copy, in a new workspace under `base`; or, when it cannot be made, why
    /// (for the checks that need it: the rest of the run goes on) and the space it needs.
    /// Busy and interrupted copies throw.
    private func makeCopy(of source: Connection, in base: String)
        throws -> (workspace: TemporaryWorkspace?, copy: Connection?, failure: (summary: String, details: [String])?)
    {
        let needed = (try? source.integer(sql: "PRAGMA page_count")).flatMap { count in
            (try? source.integer(sql: "PRAGMA page_size")).map { count * $0 }
        }
        let room = needed.map { "the copy needs \(Self.describe(bytes: $0)) in \(base)" } ?? "the copy needs as much room in \(base) as the database takes"
        let hint = "set TMPDIR to a writable directory with room for a copy of the database"
        var fileSystem = statvfs()
        if let needed, statvfs(base, &fileSystem) == 0 {
            let available = Int64(fileSystem.f_bavail) * Int64(fileSystem.f_frsize)
            if available < needed {
                return (nil, nil, ("cannot run: no room for the private copy in \(base): \(room), \(Self.describe(bytes: available)) free",
                                   [hint]))
            }
        }
        let workspace: TemporaryWorkspace
        do {
            workspace = try TemporaryWorkspace(in: base, prefix: Self.workspacePrefix)
        } catch let error as StewardError {
            return (nil, nil, ("cannot run: no private directory for the copy: \(error.message)", [room, hint]))
        }
        do {
            let target = try Connection(path: workspace.file("copy.sqlite"))
            // Assertions run on the copy: defensive mode and cell checks as for any file from
            // elsewhere, but its triggers must work as in the application (they write to FTS5
            // tables). It keeps its rollback journal (the assertions' transaction is rolled
            // back), but is private and thrown away: no syncs, and memory-mapped reads (FTS5's
            // check is CPU-bound; nobody else can change the file under the map).
            try target.harden(loadingExtensions: options.extensions, trustingSchema: true)
            try target.execute(sql: "PRAGMA synchronous = OFF; PRAGMA mmap_size = 2147418112")
            try source.backup(to: target)
            return (workspace, target, nil)
        } catch let error as SQLiteError where !error.isBusy {
            // Its space comes back at once, not when the run ends.
            workspace.remove()
            return (nil, nil, ("cannot run: cannot make the private copy in \(base): \(error.message) (SQLite error \(error.extendedCode))",
                               [room, hint]))
        } catch {
            workspace.remove()
            throw error
        }
    }

    /// `5242880 bytes (5.0 MiB)`.
    static func describe(bytes: Int64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = -1
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit < 0 ? "\(bytes) bytes" : "\(bytes) bytes (\(String(format: "%.1f", value)) \(units[unit]))"
    }

    // MARK: - Search contract

    private func checkContract(_ contract: SearchContract, set: MigrationSet, results: CheckResults) throws {
        progress(.started(check: "search-contract"))
        let watch = Stopwatch()
        guard SQLiteLibrary.canCreateFTS5() else {
            let check = VerifyReport.Check(
                name: "search-contract", status: .fail, durationSeconds: watch.roundedSeconds,
                summary: "cannot run: FTS5 unavailable", details: [])
            results.add(check)
            progress(.finished(check: "search-contract", status: .fail, seconds: check.durationSeconds))
            return
        }
        let cases: [VerifyReport.ContractCase]
        do {
            cases = try ContractRunner(contract: contract, set: set, cancellation: cancellation).run()
        } catch let error as StewardError {
            results.fail(error)
            return
        } catch let error as SQLiteError {
            results.fail(StewardError(.badInput, "the search contract cannot run: \(error.message)"))
            return
        }
        results.contractCases = cases
        let failed = cases.filter { !$0.passed }
        let disagreeing = cases.filter { !$0.agree }.map(\.name)
        var details = failed.map { item in
            "\(item.name): expected \(item.expected); fresh \(item.fresh); migrated \(item.migrated)"
        }
        if !disagreeing.isEmpty {
            details.insert("fresh and migrated databases disagree on: \(disagreeing.joined(separator: ", "))", at: 0)
        }
        let summary = failed.isEmpty
            ? "\(cases.count) cases passed on the fresh and the migrated database (contract \(contract.version))"
            : "\(failed.count) of \(cases.count) cases failed: \(failed.map(\.name).joined(separator: ", "))"
        let check = VerifyReport.Check(
            name: "search-contract", status: failed.isEmpty ? .pass : .fail, durationSeconds: watch.roundedSeconds,
            summary: summary, details: details)
        results.add(check)
        progress(.finished(check: "search-contract", status: check.status, seconds: check.durationSeconds))
    }
}

/// Results gathered from the checks running on several threads.
final class CheckResults: @unchecked Sendable {
    private let lock = NSLock()
    private var checks: [String: VerifyReport.Check] = [:]
    private var cases: [VerifyReport.ContractCase] = []
    private var firstError: StewardError?

    func add(_ check: VerifyReport.Check) {
        lock.lock(); defer { lock.unlock() }
        checks[check.name] = check
    }

    func check(named name: String) -> VerifyReport.Check? {
        lock.lock(); defer { lock.unlock() }
        return checks[name]
    }

    /// An error that stops the whole run (bad input, interruption).
    func fail(_ error: StewardError) {
        lock.lock(); defer { lock.unlock() }
        if firstError == nil { firstError = error }
    }

    var error: StewardError? {
        lock.lock(); defer { lock.unlock() }
        return firstError
    }

    var contractCases: [VerifyReport.ContractCase] {
        get { lock.lock(); defer { lock.unlock() }; return cases }
        set { lock.lock(); cases = newValue; lock.unlock() }
    }
}

final class DatabaseFactsBox: @unchecked Sendable {
    private let lock = NSLock()
    private var version: Int32?
    private var tables: [VerifyReport.FTSTable] = []

    var userVersion: Int32? {
        get { lock.lock(); defer { lock.unlock() }; return version }
        set { lock.lock(); version = newValue; lock.unlock() }
    }

    var ftsTables: [VerifyReport.FTSTable] {
        get { lock.lock(); defer { lock.unlock() }; return tables }
        set { lock.lock(); tables = newValue; lock.unlock() }
    }
}
