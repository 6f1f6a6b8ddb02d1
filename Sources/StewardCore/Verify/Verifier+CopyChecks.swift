import Foundation
import SQLiteKit
import StewardBase

extension Verifier {
    func checkCopy(
        path: String, header: DatabaseHeader?, assertions: [AssertionRunner], integrity quick: Bool?, results: CheckResults,
        held: HeldDescriptors
    ) throws {
        let base = FileManager.default.temporaryDirectory.path

        var copy: Connection?
        var copyFailure: (summary: String, details: [String])?
        var workspace: TemporaryWorkspace?
        defer { workspace?.remove() }
        do {
            let source = try DatabaseFile.openReadOnly(path: path, header: header, waits: lockWaits)
            for path in options.extensions { try source.loadExtension(path: path) }
            // Only fts-sync (when there is a full-text table) and assertions write, so only
            // they need a copy; a schema that cannot be read is left for the copy's
            // checks to report.
            let hasFullText = (try? Self.declaresFullTextTable(source)) ?? true
            guard hasFullText || !assertions.isEmpty || quick != nil else {
                timed(.ftsSync, into: results) {
                    SQLiteLibrary.canCreateFTS5() ? Check(.ftsSync, passed: true, Self.noFullTextTables, []) : Check(.ftsSync, passed: false, "cannot run: FTS5 unavailable", [])
                }
                results.skip(.assertions, missing: .assertions)
                return
            }
            // fts-sync alone needs no copy of a rollback-journal database: its file read in
            // place, writes kept in memory, will do. Assertions and integrity_check keep the copy.
            if assertions.isEmpty, quick == nil,
               try checkFTSSyncInPlace(of: source, path: path, header: header, base: base, held: held, results: results) {
                results.skip(.assertions, missing: .assertions)
                return
            }
            let made = try makeCopy(of: source, path: path, header: header, in: base, held: held)
            workspace = made.workspace
            copy = made.copy
            if let failure = made.failure { copyFailure = failure }
        } catch let error as SQLiteError where error.isBusy {
            results.fail(SQLiteErrorMapping(path: path, role: .database, cancellation: cancellation,
                                            lockTimeout: options.timeout).error(for: error))
            return
        } catch let error as SQLiteError {
            copyFailure = ("cannot run: cannot copy the database: \(error.messageAndCode)", [])
        }
        let cancellation = self.cancellation
        copy?.setProgressHandler(instructions: 100_000) { !cancellation.isCancelled }

        if let quick {
            timed(.integrity, into: results) {
                guard let copy else { return Check(.integrity, passed: false, copyFailure?.summary ?? "cannot run: no copy", copyFailure?.details ?? []) }
                return try DatabaseChecks.integrity(on: copy, quick: quick, maximumErrors: 20)
            }
        }

        timed(.ftsSync, into: results) {
            guard let copy else { return Check(.ftsSync, passed: false, copyFailure?.summary ?? "cannot run: no copy", copyFailure?.details ?? []) }
            return try ftsSync(on: copy, file: workspace?.file("copy.sqlite"))
        }

        if assertions.isEmpty {
                results.skip(.assertions, missing: .assertions)
            return
        }
        timed(.assertions, into: results) {
            guard let copy else { return Check(.assertions, passed: false, copyFailure?.summary ?? "cannot run: no copy", copyFailure?.details ?? []) }
            var total = 0
            var failures: [AssertionRunner.Failure] = []
            for file in assertions {
                let (count, failed) = try file.run(on: copy)
                total += count
                failures += failed
            }
            if failures.isEmpty { return Check(.assertions, passed: true, "all \(total) statement\(total == 1 ? "" : "s") passed", []) }
            return Check(.assertions, passed: false, "\(failures.count) of \(Counted.phrase(total, "statement")) failed: \(failures.map(\.name).joined(separator: ", "))",
                    failures.map { "\($0.name): \($0.reason)" })
        }
    }

    /// What fts-sync says of a database without any full-text table.
    static let noFullTextTables = "no full-text tables (FTS3, FTS4 or FTS5)"

    /// fts-sync's outcome on `copy`: each full-text table's own module's check (FTS5's,
    /// and FTS3's and FTS4's), then the rows of trigger-filled tables against their
    /// source. With `throwingFull`, SQLITE_FULL (a check that would grow a fixed-size
    /// image) is thrown, not reported.
    ///
    /// `file` is the database file `copy` reads, which nothing changes while it is checked:
    /// the parallel FTS5 check's workers open it (FTS5's statement alone without it).
    func ftsSync(on copy: Connection, file: String?, throwingFull: Bool = false) throws -> Check {
        let schema = try Schema(reading: copy)
        let tables = schema.fts5Tables
        if tables.isEmpty, schema.fts4Tables.isEmpty {
            return SQLiteLibrary.canCreateFTS5(on: copy) ? Check(.ftsSync, passed: true, Self.noFullTextTables, []) : Check(.ftsSync, passed: false, "cannot run: FTS5 unavailable", [])
        }
        if !tables.isEmpty, !SQLiteLibrary.canCreateFTS5(on: copy) {
            return Check(.ftsSync, passed: false, "cannot run: FTS5 unavailable", [])
        }
        var details: [String] = []
        var deferred: [String] = []
        var notes: [String] = []
        let method = file.map {
            FTS5CheckMethod.file($0, kind: options.ftsCheck, workers: options.ftsWorkers, extensions: options.extensions, cancellation: cancellation)
        } ?? FTS5CheckMethod.transaction(kind: options.ftsCheck)
        var ways: [FTS5IntegrityCheck.Path] = []
        /// Each failed table, with what is wrong with it, for the summary.
        var failed: [(table: String, what: String)] = []
        for table in tables {
            // Rank 1 compares the index with the content table (SQLite 3.40) and fails
            // with SQLITE_CORRUPT_VTAB on drift; the default form does not look at it.
            do {
                let way = try FTS5IntegrityCheck.check(table, rank: table.contentMode == .external ? 1 : nil, on: copy, method: method)
                ways.append(way)
                if case .statement(let reason?) = way { notes.append(FTS5IntegrityCheck.statementNote(table: table.name, reason: reason)) }
            } catch let error as SQLiteError where !error.isInterrupt && !(throwingFull && error.code == .full) {
                // Rows not indexed as they are now differ from a damaged index: the default
                // form of the check, which does not read the content table, still passes.
                if error.isCorrupt, table.contentMode == .external,
                   try Self.passes({ try FTS5IntegrityCheck.check(table.name, rank: nil, on: copy) }, throwingFull: throwingFull) {
                    if options.ftsDeferred.contains(table.name.lowercased()) {
                        deferred.append("\(table.name): not fully indexed yet (deferred: indexed in the background)")
                    } else {
                        details.append(FTS5IntegrityCheck.driftLine(table: table.name, content: table.contentTable ?? "", error: error))
                        failed.append((table.name, "drift from \(table.contentTable ?? "its content table")"))
                    }
                } else {
                    details.append(FTS5IntegrityCheck.failureLine(table: table, error: error))
                    failed.append((table.name, error.isCorrupt ? "damaged index" : "check could not run"))
                }
            }
        }
        let fts4 = try checkFTS4(schema.fts4Tables, on: copy)
        details += fts4.details
        deferred += fts4.deferred
        notes += fts4.notes
        failed += fts4.failed
        // Tables with their own content, filled by triggers from another table: their
        // rows against the source's, as counts (never the rows). Only a table whose
        // own index is sound gets here with a meaningful answer.
        var compared: [String] = []
        for fill in try FTS5TriggerFill.find(on: copy) {
            guard !failed.contains(where: { $0.table == fill.table }) else { continue }
            guard let difference = try fill.compare(on: copy) else {
                notes.append("\(fill.table): rows not compared with \(fill.source): \(fill.notCompared ?? "no column mapping")")
                continue
            }
            compared.append("\(fill.table) with \(fill.source)")
            guard !difference.isEmpty else { continue }
            let line = "\(fill.table): \(difference.sentences.joined(separator: ", ")) (against \(fill.source))"
            if options.ftsDeferred.contains(fill.table.lowercased()) {
                deferred.append(line + " (deferred: indexed in the background)")
            } else {
                details.append(line)
                failed.append((fill.table, "rows differ from \(fill.source)"))
            }
        }
        // What was looked at, by module.
        var checked: [String] = []
        if !tables.isEmpty {
            checked.append("FTS5 integrity-check \(deferred.isEmpty ? "passed" : "passed or deferred (as asked)") for \(tables.map(\.name).joined(separator: ", "))"
                           + FTS5IntegrityCheck.howChecked(ways))
        }
        if !schema.fts4Tables.isEmpty {
            checked.append("FTS3/FTS4 integrity-check passed for \(schema.fts4Tables.map(\.name).sorted().joined(separator: ", "))")
        }
        var summary = checked.joined(separator: "; ")
        if !compared.isEmpty { summary += "; rows compared: \(compared.joined(separator: ", "))" }
        guard details.isEmpty else {
            return Check(.ftsSync, passed: false, "full-text check failed: \(failed.map { "\($0.table) (\($0.what))" }.joined(separator: ", "))", details)
        }
        return Check(.ftsSync, passed: true, summary, deferred + notes)
    }

    /// FTS3's and FTS4's own check of each table (`FTS4IntegrityCheck`): the problems,
    /// what `--fts-deferred` lets pass (an external-content table whose index is sound
    /// when read in full, but does not match its content table yet), how tables without
    /// text were checked, and the tables that failed.
    private func checkFTS4(_ tables: [FTS4Definition], on copy: Connection) throws
        -> (details: [String], deferred: [String], notes: [String], failed: [(table: String, what: String)])
    {
        var details: [String] = [], deferred: [String] = [], notes: [String] = [], failed: [(table: String, what: String)] = []
        for table in tables.sorted(by: { $0.name < $1.name }) {
            let result = try FTS4IntegrityCheck.check(table, on: copy)
            if let note = result.note { notes.append(note) }
            guard let problem = result.problem else { continue }
            if result.drift, options.ftsDeferred.contains(table.name.lowercased()),
               (try? FTS4IntegrityCheck.walkIndex(of: table, on: copy)) != nil {
                deferred.append("\(table.name): not fully indexed yet (deferred: indexed in the background)")
            } else {
                details.append(problem)
                failed.append((table.name, result.drift ? "drift from \(table.contentTable ?? "its content table")"
                    : problem.contains("the index is damaged") ? "damaged index" : "check could not run"))
            }
        }
        return (details, deferred, notes, failed)
    }

    /// Whether `check` passes; with `throwingFull`, SQLITE_FULL is thrown instead.
    private static func passes(_ check: () throws -> Void, throwingFull: Bool) throws -> Bool {
        do {
            try check()
            return true
        } catch let error as SQLiteError where throwingFull && error.code == .full {
            throw error
        } catch {
            return false
        }
    }

    /// Whether the schema declares a full-text table (FTS3, FTS4 or FTS5), from its text
    /// alone: nothing is instantiated on a connection that has not been hardened.
    static func declaresFullTextTable(_ connection: Connection) throws -> Bool {
        var found = false
        try connection.forEachRow(sql: "SELECT name, sql FROM main.sqlite_schema WHERE type = 'table'") { row in
            if !found, let name = row.text(at: 0), let sql = row.text(at: 1),
               FTS5Definition(name: name, sql: sql) != nil || FTS4Definition(name: name, sql: sql) != nil {
                found = true
            }
        }
        return found
    }
}
