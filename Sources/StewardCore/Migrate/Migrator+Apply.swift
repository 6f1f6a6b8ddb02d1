import Foundation
import SQLiteKit

extension Migrator {
    func migrate(
        connection: Connection, source: Source, build: SetBuild, created: Bool, stopwatch: Stopwatch,
        holding held: HeldDescriptors
    ) throws -> Report {
        let mode: MigrateReport.Mode = options.dryRun ? .dryRun : .apply
        installHandlers(on: connection)
        defer {
            connection.setProgressHandler(instructions: 0, nil)
            connection.setBusyHandler(nil)
        }

        // Foreign keys cannot be switched inside a transaction: off before, restored after.
        let enforced = try sqlite { try connection.integer(sql: "PRAGMA foreign_keys") == 1 }
        if enforced { try sqlite { try connection.execute(sql: "PRAGMA foreign_keys = OFF") } }
        defer { if enforced { _ = try? connection.execute(sql: "PRAGMA foreign_keys = ON") } }

        do {
            try connection.execute(sql: "BEGIN IMMEDIATE")
        } catch let error as SQLiteError {
            throw explain(error, waitingForLock: true)
        }
        // A run that created the file removes it when it fails while still empty; a run
        // that waited for that one's lock would then migrate a file nobody can find.
        if (try? connection.hasMoved()) == true {
            connection.rollbackIfNeeded()
            throw StewardError(.busy, "\(options.databasePath) was removed or replaced while this run waited for it; run again")
        }

        do {
            // Read inside the transaction: a second migrator waits for the first and
            // then finds nothing to do.
            let current = try sqlite { try connection.userVersion() }
            let (plan, ledgerExisted, rowsBefore) = try self.plan(for: source, on: connection)
            if let baseline = try resolved(options.baseline, in: source) {
                try checkBaseline(baseline, source: source, build: build, on: connection)
            }
            if let validation = build.failure {
                // The set does not build from an empty database: only a database that
                // already holds the schema its pending files start from can take them.
                guard !plan.applied.isEmpty else { throw validation }
                try validate(plan.pending.compactMap(source.script(for:)), onSchemaOf: connection)
            }
            let writes = Self.writes(plan: plan, source: source, ledgerExisted: ledgerExisted, userVersion: current)
            // Decided by the same read as the write, on the same connection, with no other
            // writer in between: a database the run leaves unchanged gets neither the drift
            // check nor the backup, one it changes never goes without them. A database the
            // run created has nothing to compare or back up; a dry run changes nothing.
            var schema: SchemaDriftCheck.Comparison?
            var bundle: RollbackBundle?
            if writes, !created, !options.dryRun {
                schema = try refuseDrift(on: connection, source: source, build: build, applied: plan.applied, userVersion: current)
                if let directory = options.backupDirectory {
                    // Named by the runner's version of the newest applied migration.
                    bundle = try backUp(into: directory, holding: held, version: plan.applied.last?.ledgerVersion ?? "0")
                }
            }
            let pending = plan.pending.compactMap(source.script(for:))
            var notes = Self.notes(for: plan)
            if let baseline = try resolved(options.baseline, in: source) {
                notes.append("adopted at baseline \(source.shown(baseline)): the schema matches the set up to that version, \(plan.applied.count) migration\(plan.applied.count == 1 ? "" : "s") recorded as applied")
            }
            let violationsBefore = try sqlite { try ForeignKeySnapshot(of: connection) }
            let ftsBefore = try sqlite { try Self.fts5Tables(on: connection) }

            var applied: [MigrateReport.AppliedMigration] = []
            var rebuiltByMigrations = Set<String>()
            var backfilled: [String] = []
            if let ledger = source.ledger {
                try sqlite { try ledger.create(on: connection) }
                // Applied by Steward before the ledger existed: recorded first, in order.
                for migration in plan.unrecorded {
                    try sqlite { try ledger.record(migration, executionSeconds: 0, on: connection) }
                    backfilled.append(migration.fileName)
                }
            }
            var appliedSoFar = plan.applied
            for migration in plan.pending {
                guard let script = source.script(for: migration) else { continue }
                let version = migration.ledgerVersion
                progress(.applying(file: migration.fileName, version: version))
                let watch = Stopwatch()
                let count = try script.apply(
                    on: connection, cancellation: cancellation, onNote: { notes.append($0) }
                ) { table in
                    rebuiltByMigrations.insert(table.lowercased())
                }
                let seconds = watch.roundedSeconds
                try sqlite { try source.ledger?.record(migration, executionSeconds: watch.seconds, on: connection) }
                appliedSoFar.append(migration)
                try sqlite {
                    try connection.setUserVersion(LedgerPlan.userVersion(for: appliedSoFar, rule: plan.rule))
                }
                applied.append(.init(version: migration.version.integer, versionText: migration.ledgerVersion,
                                     file: migration.fileName, statements: count, durationSeconds: seconds))
                progress(.applied(file: migration.fileName, version: version, statements: count, seconds: seconds))
            }
            if let ledger = source.ledger {
                try sqlite { try ledger.finish(newest: appliedSoFar.max { $0.version < $1.version }, on: connection) }
            }
            // A run that writes leaves user_version in line with what is applied (a database
            // that had applied migrations but no user_version gets it now); one that writes
            // nothing else leaves a mirror of the runner's ledger as it is.
            let recordedVersion = writes ? LedgerPlan.userVersion(for: appliedSoFar, rule: plan.rule) : current
            if writes, try sqlite({ try connection.userVersion() }) != recordedVersion {
                try sqlite { try connection.setUserVersion(recordedVersion) }
            }
            if let mirror = Self.mirrorNote(plan, ledger: source.ledger, rewrittenTo: writes ? recordedVersion : nil) {
                notes.append(mirror)
            }
            // The FTS lookup below uses LIKE; a migration may have made it case-sensitive.
            try sqlite { try connection.execute(sql: "PRAGMA case_sensitive_like = OFF") }

            let fts = try rebuildFTS(
                on: connection, before: ftsBefore, applied: pending, rebuiltByMigrations: rebuiltByMigrations)

            let violationsAfter = try sqlite { try ForeignKeySnapshot(of: connection) }
            let foreignKeys = ForeignKeySnapshot.compare(before: violationsBefore, after: violationsAfter, enforced: enforced)
            if foreignKeys.newViolationCount > 0 {
                let summary = foreignKeys.newViolations.map { "\($0.table) → \($0.parent): \($0.count)" }
                    .joined(separator: ", ")
                let counted = foreignKeys.comparedByCount.isEmpty ? ""
                    : "; compared by count for " + foreignKeys.comparedByCount.map { "\($0.table) (\($0.reason))" }
                        .joined(separator: ", ")
                throw StewardError(
                    .checkFailed,
                    "the migrations would add \(foreignKeys.newViolationCount) foreign key violation"
                        + "\(foreignKeys.newViolationCount == 1 ? "" : "s") (\(summary)\(counted)); rolled back, nothing changed")
            }
            try quickCheck(connection)

            if cancellation.isCancelled {
                throw StewardError.interrupted(by: cancellation, "; nothing changed")
            }
            do {
                try connection.execute(sql: "COMMIT")
            } catch let error as SQLiteError {
                throw explain(error, waitingForLock: true)
            }
            let ledger = source.ledger.map {
                MigrateReport.Ledger(table: $0.table, existed: ledgerExisted, rowsBefore: rowsBefore,
                                     recorded: backfilled.count + applied.count, backfilled: backfilled)
            }
            if plan.rule == .appliedCount {
                notes.append(Self.appliedCountNote(recordedVersion, ledger: source.ledger))
            }
            let migration = report(
                source: source, mode: mode, created: created, from: current, to: recordedVersion,
                appliedBefore: plan.applied, appliedAfter: Self.inSetOrder(appliedSoFar, of: source),
                applied: applied, pending: [], ledger: ledger, fts: fts, foreignKeys: foreignKeys,
                notes: notes, stopwatch: stopwatch)
            return Report(migration: migration, schema: schema, bundle: bundle,
                          backupRequested: options.backupDirectory != nil)
        } catch {
            connection.rollbackIfNeeded()
            if let error = error as? SQLiteError { throw explain(error, waitingForLock: false) }
            throw error
        }
    }
}
