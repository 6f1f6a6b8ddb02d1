import Foundation
import SQLiteKit
import BundleFormat
import StewardBase

/// The checks on the copy: `integrity_check` says exactly `ok` (on a
/// read-write, query-only connection, so that CHECK constraints are checked),
/// `foreign_key_check` finds nothing, `user_version` is the source's, the header says
/// rollback journal. What restore requires of every bundle is checked here by the same
/// functions, so that a bundle backup publishes is one restore accepts: every view,
/// trigger and virtual table prepares (`schema-objects`; a database a newer SQLite wrote
/// fails it), every table reads (`tables`, `TableReadsCheck`), the full-text check of
/// every FTS5, FTS4 and FTS3 table passes (`fts-sync`, inside `BEGIN … ROLLBACK`; it
/// writes nothing), and the file is exactly its pages (`payload-size`). The SHA-256 of the copy is computed by the thread that compresses
/// it (`PayloadCompression`), from the same read.
struct SnapshotVerification {
    struct Result {
        /// The manifest's record of the checks (bundle format 1).
        let checks: BundleManifest.Checks
        /// One result per check, in the shape verify and restore report theirs.
        let results: [CheckResult]
        /// With `asIs`: the failures accepted into the bundle (nil otherwise).
        let recorded: RecordedFailures?
    }

    let copyPath: String
    let source: BundleManifest.Source
    let cancellation: Cancellation
    /// Which failed checks are recorded instead of refusing the copy.
    var asIs: BackupMaker.AsIs = .off
    /// Loaded into the checking connection (`harden(loadingExtensions:)`).
    var extensions: [String] = []
    /// Which check proves FTS5 tables, and on how many workers (nil: the cores).
    var ftsCheck: FTS5CheckKind = .parallel
    var ftsWorkers: Int?
    /// The row counts of the tables the content digests read in full (waited for), which
    /// the `tables` check does not read again; empty when they could not be computed.
    var digested: () -> [String: Int64] = { [:] }

    /// Throws `.checkFailed` (exit 1) when any check fails: such a copy is never bundled.
    func run() throws -> Result {
        let watch = Stopwatch()
        let findings: Findings
        do {
            findings = try check()
        } catch let error as SQLiteError {
            throw SQLiteErrorMapping(path: copyPath, role: .checkedCopy(refusal: "the copy cannot be checked"),
                                     cancellation: cancellation, interruptedDetail: "; no bundle was written").error(for: error)
        }
        // The header as it will be bundled: nothing writes the copy any more.
        let copyFile = try DatabaseFile(path: copyPath)
        let headerBytes = copyFile.headerBytes

        var problems: [String] = []
        let recordsIntegrity = asIs == .integrityAndForeignKeys
        let recordsForeignKeys = asIs != .off
        if !findings.integrity.passed && !recordsIntegrity {
            problems.append("\(CheckName.integrity.rawValue): \(findings.integrity.problems.joined(separator: "; "))")
        }
        if !findings.fullText.passed && !recordsIntegrity {
            problems.append("full-text integrity-check: \(findings.fullText.problems.joined(separator: "; "))")
        }
        if !findings.foreignKeys.passed && !recordsForeignKeys {
            problems.append("\(CheckName.foreignKeys.rawValue): \(findings.foreignKeys.countsSummary)")
        }
        if !findings.userVersionCheck.passed {
            problems.append("user_version is \(findings.userVersion), the source's is \(source.userVersion)")
        }
        let header = try? DatabaseHeader(bytes: headerBytes)
        if findings.journalMode != "delete" || header?.writeVersion != 1 || header?.readVersion != 1 {
            problems.append("the copy is not in rollback-journal mode (journal_mode \(findings.journalMode), header bytes 18-19 \(headerBytes.dropFirst(18).prefix(2).map(String.init)))")
        }
        for check in [findings.schemaObjects, findings.tables] where !check.passed {
            problems.append("\(check.name.rawValue): \(check.detail): \(check.problems.joined(separator: "; "))")
        }
        let payloadSize = header.map { PayloadSizeCheck.check(size: copyFile.size, header: $0, source: source) }
        if let payloadSize, payloadSize.status != .pass {
            problems.append("\(CheckName.payloadSize.rawValue): \(payloadSize.summary)")
        }
        guard problems.isEmpty else {
            throw StewardError(.checkFailed, "refusing to publish: the copy fails its checks: \(problems.joined(separator: "; "))")
        }
        var recorded = findings.recorded
        if asIs == .foreignKeys, recorded?.isEmpty == true { recorded = nil }
        let journalSummary = "\(findings.journalMode), header bytes 18-19 are \(header?.writeVersion ?? 0) and \(header?.readVersion ?? 0)"
        return Result(
            checks: .init(
                integrityCheck: findings.integrity.passed ? "ok" : "failed (recorded)", foreignKeyViolations: findings.foreignKeys.total, userVersion: findings.userVersion,
                userVersionMatchesSource: true, journalMode: findings.journalMode,
                writeVersion: Int(header?.writeVersion ?? 0), readVersion: Int(header?.readVersion ?? 0),
                durationSeconds: watch.roundedSeconds,
                checksRun: ([.integrity, .foreignKeys, .version, .journalMode, .ftsSync] as [CheckName]).map(\.manifestName),
                fts5Tables: findings.fullText.fts5Tables,
                fts4Tables: findings.fullText.fts4Tables.isEmpty ? nil : findings.fullText.fts4Tables),
            results: findings.results(journalMode: journalSummary, payloadSize: payloadSize),
            recorded: recorded)
    }

    private struct Findings {
        let integrity: Check
        let foreignKeys: Check
        let userVersionCheck: Check
        let journalMode: String
        let fullText: Check
        let schemaObjects: Check
        let tables: Check
        let recorded: RecordedFailures?
        /// Seconds per check, by name.
        let durations: [CheckName: Double]

        var userVersion: Int32 { userVersionCheck.userVersion ?? 0 }

        /// The findings as report results. Reached only when every check passed or its
        /// failure is recorded (`--as-is`): a recorded failure stays `fail`, since the
        /// bundled database does fail it.
        func results(journalMode: String, payloadSize: CheckResult?) -> [CheckResult] {
            func result(_ check: Check) -> CheckResult {
                CheckResult(check, durationSeconds: durations[check.name] ?? 0, recorded: true, versionsFrom: "the source")
            }
            var results: [CheckResult] = [
                result(integrity), result(foreignKeys), result(userVersionCheck),
                .init(name: .journalMode, status: .pass, summary: journalMode, durationSeconds: 0),
            ]
            if let payloadSize { results.append(payloadSize) }
            results.append(result(schemaObjects))
            results.append(result(tables))
            results.append(result(fullText))
            return results
        }
    }

    private func check() throws -> Findings {
        // Read-write, so that integrity_check sees CHECK constraints, but query-only; no
        // locks (`nolock=1`), so that the compressing thread's descriptor on the same file
        // cannot drop any. The copy is in rollback-journal mode: nothing is created beside it.
        let cancellation = self.cancellation
        let connection: Connection
        do {
            connection = try IntegrityCheck.open(path: copyPath, parameters: "&nolock=1", loadingExtensions: extensions) { cancellation.isCancelled }
        } catch is IntegrityCheck.NotWritable {
            throw StewardError(.checkFailed, "refusing to publish: the copy opened read-only, so its CHECK constraints cannot be checked")
        }
        var durations: [CheckName: Double] = [:]
        func timed<T>(_ name: CheckName, _ body: () throws -> T) rethrows -> T {
            let watch = Stopwatch()
            defer { durations[name] = watch.roundedSeconds }
            return try body()
        }
        // With `asIs`, one run long enough for the record; the report keeps its first ten.
        let integrityFound = try timed(.integrity) {
            try DatabaseChecks.integrity(on: connection, maximumErrors: asIs == .off ? 10 : RecordedFailures.integrityLimit)
        }
        let integrity = DatabaseChecks.integrity(integrityFound, limitedTo: 10)
        let foreignKeyPairs = try timed(.foreignKeys) { try DatabaseChecks.foreignKeyCounts(on: connection) }
        let foreignKeys = DatabaseChecks.foreignKeys(counted: foreignKeyPairs)
        // The full-text check restore runs too, whatever was asked (FTS5's rank 1, FTS3's and
        // FTS4's own): an INSERT, so a connection of its own that may write, inside
        // BEGIN … ROLLBACK, though it writes nothing.
        let fullText = try timed(.ftsSync) {
            let writer = try DatabaseFile.open(path: copyPath, .readWrite, parameters: "&nolock=1", oneThread: true)
            try writer.harden(loadingExtensions: extensions)
            writer.setProgressHandler(instructions: 100_000) { !cancellation.isCancelled }
            let method = FTS5CheckMethod.file(copyPath, kind: ftsCheck, workers: ftsWorkers, extensions: extensions, cancellation: cancellation)
            return try DatabaseChecks.fullTextIntegrity(on: writer, method: method)
        }
        var recorded: RecordedFailures?
        if asIs != .off {
            recorded = RecordedFailures(integrity: try integrityFound.recordedIntegrity(tablesIn: connection),
                                        foreignKeyViolations: foreignKeyPairs,
                                        fts5Tables: fullText.failedFTS5Tables)
        }
        let userVersion = try timed(.version) { try DatabaseChecks.userVersion(on: connection, expected: source.userVersion) }
        // On a connection with the extensions loaded, as restore's: a module they provide
        // must be there. Read-only and immutable: the copy is complete and takes no lock.
        let reader = try DatabaseFile.open(path: copyPath, .readOnly, parameters: "&immutable=1", oneThread: true)
        try reader.harden(loadingExtensions: extensions)
        reader.setProgressHandler(instructions: 100_000) { !cancellation.isCancelled }
        let schemaObjects = try timed(.schemaObjects) { try DatabaseChecks.schemaObjects(on: reader, extensionModulesAllowed: true) }
        // Last: the tables the digests read in full (on their own thread) are not read again.
        let counted = digested()
        let tables = try timed(.tables) {
            try TableReadsCheck.run(on: reader, counted: counted, extensionModulesAllowed: true) { $0.messageAndCode }.check
        }
        return Findings(
            integrity: integrity, foreignKeys: foreignKeys, userVersionCheck: userVersion,
            journalMode: try connection.journalMode(), fullText: fullText, schemaObjects: schemaObjects, tables: tables,
            recorded: recorded, durations: durations)
    }
}
