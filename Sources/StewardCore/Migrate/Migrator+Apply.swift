import Foundation
import SQLiteKit
import StewardBase

/// The run's write transaction, top to bottom: foreign keys off, `BEGIN IMMEDIATE`, the plan
/// read inside it, the baseline and the set's checks, the drift check and the backup
/// (`Migrator+Backup`), the ledger's backfill, each migration with its ledger row and
/// `user_version`, the FTS5 rebuilds, the foreign-key and `quick_check` checks, `COMMIT`.
extension Migrator {
    func migrate(
        connection: Connection, source: Source, build: SetBuild, created: Bool, stopwatch: Stopwatch,
        holding held: HeldDescriptors, plans: PlanContract? = nil
    ) throws -> Report {
        let mode: MigrateReport.Mode = options.dryRun ? .dryRun : .apply
        installHandlers(on: connection)
        defer {
            connection.setProgressHandler(instructions: 0, nil)
            connection.setBusyHandler(nil)
        }

        // An FTS5 table whose tokenizer this SQLite lacks can be neither written (its sync
        // triggers fail) nor accounted: nothing is migrated, and the tables are named.
        // Asked only of a database that declares FTS5 tables (most have none).
        if let declared = try? Self.fts5Tables(on: connection), !declared.isEmpty,
           let missing = try? MissingTokenizer.tables(on: connection), !missing.isEmpty {
            throw StewardError(.badInput, "\(MissingTokenizer.refusal(missing)); nothing was migrated")
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
            // A down run's parts never ran on an empty database: they are checked on a copy
            // of this database's schema, in the order they run, before anything changes.
            let downScripts = try plan.undo.compactMap { try $0.reversed().map(MigrationScript.init) }
            if !downScripts.isEmpty {
                try validate(downScripts, onSchemaOf: connection)
            }
            // A down run runs no up part, so the set's build does not decide it.
            if !options.down, let validation = build.failure {
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
            let pending = options.down ? downScripts : plan.pending.compactMap(source.script(for:))
            var notes = Self.notes(for: plan)
            if let baseline = try resolved(options.baseline, in: source) {
                notes.append("adopted at baseline \(source.shown(baseline)): the schema matches the set up to that version, \(plan.applied.count) migration\(plan.applied.count == 1 ? "" : "s") recorded as applied")
            }
            let violationsBefore = try sqlite { try ForeignKeySnapshot(of: connection) }
            let ftsBefore = try sqlite { try Self.fts5Tables(on: connection) }

            // The guard counts what it needs before the first pending migration runs.
            let guardian = pending.isEmpty ? nil : try sqlite {
                try MigrationGuard(connection: connection, allowances: options.allowances, deferredFTS: options.ftsDeferred)
            }
            guardian?.ftsMethod = .transaction(kind: options.ftsCheck)

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
            /// Runs one script, up or down part, under the guard's watch; returns its statements.
            func run(_ script: MigrationScript) throws -> Int {
                guardian?.begin(script)
                let count = try script.apply(
                    on: connection, cancellation: cancellation, observer: guardian, onNote: { notes.append($0) }
                ) { table in
                    rebuiltByMigrations.insert(table.lowercased())
                }
                guardian?.end()
                return count
            }
            var appliedSoFar = plan.applied
            var undone: [MigrateReport.AppliedMigration] = []
            for (migration, script) in zip(plan.undo, downScripts) {
                let version = migration.ledgerVersion
                progress(.undoing(file: script.migration.fileName, version: version))
                let watch = Stopwatch()
                let count = try run(script)
                let seconds = watch.roundedSeconds
                appliedSoFar.removeAll { $0.version == migration.version }
                try sqlite {
                    try source.ledger?.unrecord(migration, newest: appliedSoFar.max { $0.version < $1.version }, on: connection)
                    try connection.setUserVersion(LedgerPlan.userVersion(for: appliedSoFar, rule: plan.rule))
                }
                undone.append(.init(version: migration.version.integer, versionText: version,
                                    file: script.migration.fileName, statements: count, durationSeconds: seconds))
                progress(.undone(file: script.migration.fileName, version: version, statements: count, seconds: seconds))
            }
            for migration in plan.pending {
                guard let script = source.script(for: migration) else { continue }
                let version = migration.ledgerVersion
                progress(.applying(file: migration.fileName, version: version))
                let watch = Stopwatch()
                let count = try run(script)
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

            // Before the foreign-key comparison: a lost parent table is named as such.
            let accounting = try guardian.map { guardian in
                try sqlite { try guardian.finish(checkedFTS: Set(fts.map { $0.table.lowercased() })) }
            }

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

            // The hot queries of the plan contract, planned on the migrated schema.
            if let plans, !pending.isEmpty {
                let failed = plans.check(on: connection).filter { !$0.passed }
                if !failed.isEmpty {
                    throw StewardError(
                        .badInput,
                        "the migrations would slow down \(Counted.phrase(failed.count, "hot query", plural: "hot queries")) of \(plans.path): "
                            + failed.map(\.failure).joined(separator: "; ") + "; rolled back, nothing changed")
                }
            }

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
                                     recorded: backfilled.count + applied.count, backfilled: backfilled,
                                     removed: options.down ? undone.count : nil)
            }
            if plan.rule == .appliedCount {
                notes.append(Self.appliedCountNote(recordedVersion, ledger: source.ledger))
            }
            var migration = report(
                source: source, mode: mode, created: created, from: current, to: recordedVersion,
                appliedBefore: plan.applied, appliedAfter: Self.inSetOrder(appliedSoFar, of: source),
                applied: applied, pending: [], ledger: ledger, fts: fts, foreignKeys: foreignKeys,
                notes: notes, stopwatch: stopwatch)
            migration.accounting = accounting
            if options.down {
                migration.direction = .down
                migration.undone = undone
            }
            return Report(migration: migration, schema: schema, bundle: bundle,
                          backupRequested: options.backupDirectory != nil)
        } catch {
            connection.rollbackIfNeeded()
            if let error = error as? SQLiteError { throw explain(error, waitingForLock: false) }
            throw error
        }
    }

    // MARK: - Baseline

    /// `--baseline VERSION`: the database must hold exactly the schema the set builds up to
    /// VERSION; otherwise the run is refused naming each difference (objects, never rows).
    func checkBaseline(_ version: VersionKey, source: Source, build: SetBuild, on connection: Connection) throws {
        let shown = source.shown(version)
        guard source.set.migrations.contains(where: { $0.version == version }) else {
            throw StewardError(.badInput, "baseline version \(shown): no migration in \(source.set.directory) has that version")
        }
        let expected: SchemaFingerprint
        let through = source.set.migrations.filter { $0.version <= version }
        if let built = build.schema(after: through) {
            expected = built
        } else if build.fails(building: through), let failure = build.failure {
            throw StewardError(
                .badInput, "baseline version \(shown): the set does not build from an empty database up to that version (\(failure.message))")
        } else {
            do {
                guard let last = try expectedSchema(of: source, through: version).last else {
                    throw StewardError(.badInput, "baseline version \(shown): the set builds nothing up to that version")
                }
                expected = last.1
            } catch let error as StewardError where error.kind == .badInput {
                throw StewardError(
                    .badInput, "baseline version \(shown): the set does not build from an empty database up to that version (\(error.message))")
            }
        }
        let actual = try sqlite { try SchemaFingerprint(reading: connection) }
        let differences = actual.differences(from: expected)
        guard differences.isEmpty else {
            let listed = differences.prefix(8).joined(separator: "; ") + (differences.count > 8 ? "; and \(differences.count - 8) more" : "")
            throw StewardError(
                .badInput,
                "the schema of \(options.databasePath) does not match version \(shown) of the set (\(listed)); nothing was recorded")
        }
    }

    /// The schema the set builds up to and including `version`, on a private empty database.
    func expectedSchema(of source: Source, through version: VersionKey?) throws -> [(DialectMigration, SchemaFingerprint)] {
        let scratch = try withExtensions(Connection.inMemory())
        let cancellation = self.cancellation
        scratch.setProgressHandler(instructions: 10_000) { !cancellation.isCancelled }
        var result: [(DialectMigration, SchemaFingerprint)] = []
        for migration in source.set.migrations {
            if let version, migration.version > version { break }
            guard let script = source.script(for: migration) else { continue }
            try script.apply(on: scratch, cancellation: cancellation, schemaOnly: true)
            result.append((migration, try sqlite { try SchemaFingerprint(reading: scratch) }))
        }
        return result
    }

    // MARK: - The set on the database's schema

    /// Checks `scripts` on a private copy of the schema of `connection` (no rows): for a set
    /// whose first files alter tables made elsewhere.
    func validate(_ scripts: [MigrationScript], onSchemaOf connection: Connection) throws {
        let scratch = try withExtensions(Connection.inMemory())
        try sqlite { try Self.copySchema(from: connection, to: scratch) }
        let cancellation = self.cancellation
        scratch.setProgressHandler(instructions: 10_000) { !cancellation.isCancelled }
        for script in scripts {
            try script.apply(on: scratch, cancellation: cancellation, schemaOnly: true)
        }
    }

    /// The schema of a database, without its rows, in another (empty) database: the pending
    /// files of a set that starts from a baseline schema are checked there before the real
    /// database is touched.
    static func copySchema(from source: Connection, to target: Connection) throws {
        var statements: [(name: String, type: String, sql: String)] = []
        // In creation order, so that what a view or trigger names already exists.
        try source.forEachRow(sql: "SELECT name, type, sql FROM main.sqlite_schema WHERE sql IS NOT NULL ORDER BY rowid") { row in
            statements.append((row.text(at: 0) ?? "", row.text(at: 1) ?? "", row.text(at: 2) ?? ""))
        }
        try target.execute(sql: "PRAGMA foreign_keys = OFF")
        for statement in statements where !statement.name.lowercased().hasPrefix("sqlite_") {
            // A virtual table has made its shadow tables already.
            if statement.type == "table",
               try target.integer(sql: "SELECT count(*) FROM main.sqlite_schema WHERE name = ?1", bindings: [.text(statement.name)]) > 0 {
                continue
            }
            try target.execute(sql: statement.sql)
        }
    }

    // MARK: - FTS5

    /// Rebuilds and checks every FTS5 table created or redefined by the run, and every
    /// table named by a directive in an applied migration.
    ///
    /// A table that a migration rebuilt itself is not rebuilt again (it is still checked:
    /// a rebuild followed by a redefinition shows up there as a mismatch).
    func rebuildFTS(
        on connection: Connection, before: [String: FTS5Table], applied: [MigrationScript],
        rebuiltByMigrations: Set<String>
    ) throws -> [MigrateReport.FTSRebuild] {
        let after = try sqlite { try Self.fts5Tables(on: connection) }
        // Dropped and created again with the same declaration: the schema text is
        // unchanged but the new index is empty.
        let recreated = applied.reduce(into: Set<String>()) { $0.formUnion($1.createdVirtualTables) }
        var reasons: [(key: String, reason: MigrateReport.FTSRebuild.Reason)] = []
        for (key, table) in after.sorted(by: { $0.key < $1.key }) {
            if let old = before[key] {
                if old.sql != table.sql || recreated.contains(key) { reasons.append((key, .redefined)) }
            } else {
                reasons.append((key, .created))
            }
        }
        for script in applied {
            for directive in script.directives {
                let key = directive.table.lowercased()
                guard after[key] != nil else {
                    throw StewardError(
                        .badInput,
                        "\(script.migration.fileName):\(directive.line): rebuild-fts names '\(directive.table)', which is not an FTS5 table")
                }
                if !reasons.contains(where: { $0.key == key }) { reasons.append((key, .directive)) }
            }
        }

        var results: [MigrateReport.FTSRebuild] = []
        for (key, reason) in reasons {
            guard let table = after[key] else { continue }
            let name = Connection.quote(identifier: table.definition.name)
            progress(.rebuildingFTS(table: table.definition.name))
            currentWork.set((.rebuilding, table.definition.name))
            defer { currentWork.set(nil) }

            let rebuildWatch = Stopwatch()
            let canRebuild = table.definition.contentMode != .contentless
            let rebuiltBy: MigrateReport.FTSRebuild.RebuiltBy
            if !canRebuild {
                rebuiltBy = .none
            } else if rebuiltByMigrations.contains(key) && reason != .directive {
                rebuiltBy = .migration
            } else {
                rebuiltBy = .steward
                try ftsStatement("INSERT INTO \(name)(\(name)) VALUES ('rebuild')", table: table.definition.name)
            }
            let rebuildSeconds = rebuildWatch.roundedSeconds
            currentWork.set((.checking, table.definition.name))
            let checkWatch = Stopwatch()
            // Rank 1 compares the index with the content table (SQLite 3.40); it fails
            // with SQLITE_CORRUPT_VTAB on drift.
            do {
                try FTS5IntegrityCheck.check(
                    table.definition, rank: table.definition.contentMode == .external ? 1 : nil, on: connection,
                    method: .transaction(kind: options.ftsCheck))
            } catch let error as SQLiteError where error.isCorrupt {
                throw StewardError(
                    .checkFailed,
                    "the FTS5 index of \(table.definition.name) does not match its content after the rebuild (\(error.shownMessage)); rolled back")
            } catch let error as SQLiteError {
                throw explain(error, waitingForLock: false, context: "checking \(table.definition.name)")
            }
            let checkSeconds = checkWatch.roundedSeconds
            progress(.rebuiltFTS(table: table.definition.name, rebuiltBy: rebuiltBy, seconds: rebuildSeconds,
                                 checkSeconds: checkSeconds))
            results.append(.init(table: table.definition.name, reason: reason, rebuilt: canRebuild,
                                 rebuiltBy: rebuiltBy, rebuildSeconds: rebuildSeconds, checked: true,
                                 checkSeconds: checkSeconds))
        }
        return results

        func ftsStatement(_ sql: String, table: String) throws {
            do {
                try connection.execute(sql: sql)
            } catch let error as SQLiteError {
                throw explain(error, waitingForLock: false, context: "rebuilding \(table)")
            }
        }
    }

    struct FTS5Table {
        let definition: FTS5Definition
        let sql: String
    }

    /// FTS5 tables of `main`, by lower-cased name.
    static func fts5Tables(on connection: Connection) throws -> [String: FTS5Table] {
        var result: [String: FTS5Table] = [:]
        // LIKE is case-insensitive for ASCII: a cheap filter before the declaration is read.
        try connection.forEachRow(sql: "SELECT name, sql FROM main.sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'") { row in
            let name = row.text(at: 0) ?? ""
            let sql = row.text(at: 1) ?? ""
            if let definition = FTS5Definition(name: name, sql: sql) {
                result[name.lowercased()] = FTS5Table(definition: definition, sql: sql)
            }
        }
        return result
    }

    // MARK: - Before the commit

    /// Rows a migration wrote past a CHECK or NOT NULL, or an index out of step with its
    /// table, are found here before they are committed. `case_sensitive_like` is a
    /// connection setting a migration may change: the rows are judged as every other
    /// connection will read them, with the default.
    func quickCheck(_ connection: Connection) throws {
        let check = try sqlite {
            try connection.execute(sql: "PRAGMA case_sensitive_like = OFF")
            return try DatabaseChecks.integrity(on: connection, quick: true, maximumErrors: 10)
        }
        guard !check.passed else { return }
        let problems = check.problems
        // quick_check names tables, indexes, pages and rowids, never values.
        let shown = problems.prefix(3).joined(separator: "; ") + (problems.count > 3 ? "; …" : "")
        throw StewardError(
            .checkFailed, "PRAGMA quick_check fails after the migrations (\(shown)); rolled back, nothing changed")
    }
}

/// The foreign-key violations of a database, each tied to the row that has it, so that a
/// run that removes one orphan and makes another is not read as "none added".
///
/// A violation is keyed by (table, foreign-key id, parent, row): the row is its rowid for a
/// rowid table, its primary-key values for a WITHOUT ROWID table. The values stay in
/// memory for the comparison and never reach a report or a message.
struct ForeignKeySnapshot {
    enum RowKey: Hashable {
        case rowid(Int64)
        case primaryKey([SQLiteValue])
        /// A WITHOUT ROWID row whose primary key could not be matched to the violation.
        case unknown
    }

    struct Violation: Hashable {
        let table: String
        let constraint: Int
        let parent: String
        let row: RowKey
    }

    /// What the comparison needs to know of a table that has violations.
    struct TableIdentity {
        let rootPage: Int64
        /// An INTEGER PRIMARY KEY or WITHOUT ROWID: rows keep their key when the table is
        /// rebuilt. An implicit rowid is renumbered by a rebuild.
        let hasStableKeys: Bool
    }

    let violations: [Violation]
    /// By lower-cased name, for the tables in `violations`.
    let tables: [String: TableIdentity]
    /// WITHOUT ROWID tables whose violations could not be tied to rows; compared by count.
    let unmatchedTables: Set<String>

    var count: Int { violations.count }

    init(violations: [Violation], tables: [String: TableIdentity], unmatchedTables: Set<String> = []) {
        self.violations = violations
        self.tables = tables
        self.unmatchedTables = unmatchedTables
    }

    init(of connection: Connection) throws {
        var violations: [Violation] = []
        var withoutRowid: [String: [Int: Int]] = [:]
        try connection.forEachRow(sql: "PRAGMA main.foreign_key_check") { row in
            let table = row.text(at: 0) ?? ""
            let constraint = row.int(at: 3)
            if row.isNull(at: 1) {
                withoutRowid[table, default: [:]][constraint, default: 0] += 1
            } else {
                violations.append(Violation(table: table, constraint: constraint, parent: row.text(at: 2) ?? "",
                                            row: .rowid(row.int64(at: 1))))
            }
        }
        var unmatched: Set<String> = []
        for (table, counts) in withoutRowid {
            for (constraint, expected) in counts {
                let found = (try? Self.orphans(in: table, constraint: constraint, on: connection)) ?? nil
                if let found, found.keys.count == expected {
                    violations += found.keys.map {
                        Violation(table: table, constraint: constraint, parent: found.parent, row: .primaryKey($0))
                    }
                } else {
                    unmatched.insert(table.lowercased())
                    let parent = found?.parent ?? ""
                    violations += Array(repeating: Violation(table: table, constraint: constraint, parent: parent, row: .unknown),
                                        count: expected)
                }
            }
        }
        var tables: [String: TableIdentity] = [:]
        for name in Set(violations.map { $0.table }) {
            tables[name.lowercased()] = try Self.identity(of: name, on: connection)
        }
        self.violations = violations
        self.tables = tables
        self.unmatchedTables = unmatched
    }

    private static func identity(of table: String, on connection: Connection) throws -> TableIdentity {
        let quoted = Connection.quote(literal: table)
        let rootPage = try connection.integer(
            sql: "SELECT rootpage FROM main.sqlite_schema WHERE type = 'table' AND name = \(quoted) COLLATE NOCASE")
        let withoutRowid = try connection.integer(
            sql: "SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = \(quoted) COLLATE NOCASE") == 1
        let keyTypes = try connection.rows(sql: "SELECT upper(type) FROM pragma_table_info(\(quoted), 'main') WHERE pk > 0")
        // A single INTEGER column as primary key aliases the rowid (DESC does not, a rarity
        // read here as an alias).
        let aliasesRowid = keyTypes.count == 1 && keyTypes[0].first == .text("INTEGER")
        return TableIdentity(rootPage: rootPage, hasStableKeys: withoutRowid || aliasesRowid)
    }

    /// The primary keys of the rows of a WITHOUT ROWID table that break one of its foreign
    /// keys, found with the rule `foreign_key_check` applies: a child key with no NULL
    /// column and no parent row with equal values (the parent column's collation and
    /// affinity). The caller checks the number against SQLite's own count.
    private static func orphans(in table: String, constraint: Int, on connection: Connection) throws
        -> (parent: String, keys: [[SQLiteValue]])?
    {
        let quoted = Connection.quote(literal: table)
        let columns = try connection.rows(
            sql: "SELECT \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(\(quoted), 'main') WHERE id = ? ORDER BY seq",
            bindings: [.integer(Int64(constraint))])
        guard case .text(let parent)? = columns.first?[0] else { return nil }
        let from = columns.compactMap { if case .text(let name) = $0[1] { name } else { nil } }
        guard from.count == columns.count else { return nil }
        var to = columns.map { if case .text(let name) = $0[2] { name } else { "" } }
        if to.contains("") {
            let parentKey = try connection.rows(
                sql: "SELECT name FROM pragma_table_info(?, 'main') WHERE pk > 0 ORDER BY pk", bindings: [.text(parent)])
            to = parentKey.compactMap { if case .text(let name) = $0[0] { name } else { nil } }
            guard to.count == from.count else { return nil }
        }
        let primaryKey = try connection.rows(
            sql: "SELECT name FROM pragma_table_info(\(quoted), 'main') WHERE pk > 0 ORDER BY pk")
            .compactMap { if case .text(let name) = $0[0] { name } else { nil } }
        guard !primaryKey.isEmpty else { return nil }

        let child = Connection.quote(identifier: table)
        let notNull = from.map { "c.\(Connection.quote(identifier: $0)) IS NOT NULL" }.joined(separator: " AND ")
        let matches = zip(to, from).map { "p.\(Connection.quote(identifier: $0)) = c.\(Connection.quote(identifier: $1))" }
            .joined(separator: " AND ")
        let parentExists = try connection.integer(
            sql: "SELECT count(*) FROM main.sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE",
            bindings: [.text(parent)]) > 0
        let missing = parentExists
            ? " AND NOT EXISTS (SELECT 1 FROM main.\(Connection.quote(identifier: parent)) AS p WHERE \(matches))" : ""
        let keys = try connection.rows(
            sql: "SELECT \(primaryKey.map { "c.\(Connection.quote(identifier: $0))" }.joined(separator: ", ")) "
                + "FROM main.\(child) AS c WHERE \(notNull)\(missing)")
        return (parent, keys)
    }

    /// Compares the violations after a run with those before it.
    static func compare(before: ForeignKeySnapshot, after: ForeignKeySnapshot, enforced: Bool) -> MigrateReport.ForeignKeys {
        // Tables whose rows cannot be followed across the run are compared by count.
        var byCount: [String: String] = [:]
        for (key, identity) in after.tables {
            if let old = before.tables[key], old.rootPage != identity.rootPage, !identity.hasStableKeys {
                byCount[key] = "rebuilt without an INTEGER PRIMARY KEY: its rowids were renumbered"
            }
        }
        for key in before.unmatchedTables.union(after.unmatchedTables) {
            byCount[key] = "WITHOUT ROWID rows could not be matched to the violations"
        }

        var added: [GroupKey: Int] = [:]
        let old = Set(before.violations.filter { byCount[$0.table.lowercased()] == nil })
        for violation in after.violations where byCount[violation.table.lowercased()] == nil && !old.contains(violation) {
            added[GroupKey(violation), default: 0] += 1
        }
        let oldCounts = groups(before.violations.filter { byCount[$0.table.lowercased()] != nil })
        for (key, count) in groups(after.violations.filter { byCount[$0.table.lowercased()] != nil }) {
            let extra = count - (oldCounts[key] ?? 0)
            if extra > 0 { added[key, default: 0] += extra }
        }

        func sorted(_ counts: [GroupKey: Int]) -> [MigrateReport.ForeignKeyGroup] {
            counts.map { .init(table: $0.key.table, parent: $0.key.parent, count: $0.value) }
                .sorted { ($0.table, $0.parent) < ($1.table, $1.parent) }
        }
        let tableNames = Dictionary(after.violations.map { ($0.table.lowercased(), $0.table) }, uniquingKeysWith: { first, _ in first })
        return .init(
            enforcedBefore: enforced, violationsBefore: before.count, violationsAfter: after.count,
            newViolationCount: added.values.reduce(0, +),
            newViolations: sorted(added), existingViolations: sorted(groups(before.violations)),
            comparedByCount: byCount.sorted { $0.key < $1.key }.map {
                .init(table: tableNames[$0.key] ?? $0.key, reason: $0.value)
            })
    }

    private struct GroupKey: Hashable {
        let table: String
        let parent: String
        init(_ violation: Violation) {
            table = violation.table
            parent = violation.parent
        }
    }

    private static func groups(_ violations: [Violation]) -> [GroupKey: Int] {
        violations.reduce(into: [:]) { $0[GroupKey($1), default: 0] += 1 }
    }
}
