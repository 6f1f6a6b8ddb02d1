import SQLiteKit
import StewardBase

/// Checks a migration set before it ships (`steward lint`): on a private in-memory scratch
/// database, built from the set up to a version or copied from a sample database, each
/// later migration runs in turn under the migration guard, which accounts for what it
/// would lose; each statement is read for the SQLite features it needs; the rules look at
/// what migrate would refuse or a client database would fail on. No file but the set and
/// the sample is read, and nothing is written.
public struct Linter: StewardOperation {
    public struct Options: Sendable {
        public var migrationsDirectory: String
        public var dialect: Dialect?
        /// A fixture database of an older release; read, never written.
        public var samplePath: String?
        /// The version the sample (or the scratch database built from the set) is at.
        public var from: RequestedVersion?
        /// Statements needing a newer release than this are errors.
        public var requiredSQLite: SQLiteVersion?
        public var placeholders: [String: String] = [:]
        /// A query-plan contract, checked after each migration.
        public var planContractPath: String?

        public init(migrationsDirectory: String) {
            self.migrationsDirectory = migrationsDirectory
        }
    }

    public enum Event: Sendable {
        case linting(file: String)
    }

    public typealias Report = LintReport

    public let setup: OperationSetup<Options, Event>

    public init(setup: OperationSetup<Options, Event>) {
        self.setup = setup
    }

    public func run() throws -> LintReport {
        let stopwatch = Stopwatch()
        let plans = try options.planContractPath.map(PlanContract.init(path:))
        let scratch = try Connection.inMemory()
        let cancellation = self.cancellation
        scratch.setProgressHandler(instructions: 10_000) { !cancellation.isCancelled }
        if let sample = options.samplePath { try copy(sample, into: scratch) }

        let detection: DialectSet.Detection
        if let dialect = options.dialect {
            detection = DialectSet.Detection(dialect: dialect, reason: .chosen)
        } else {
            detection = try DialectSet.detect(
                directory: options.migrationsDirectory,
                records: {
                    try sqlite { DialectSet.DatabaseRecords(ledgers: try Ledgers.present(on: scratch), userVersion: try scratch.userVersion()) }
                },
                whenAmbiguous: options.samplePath == nil ? .stewardsOwn : .refuse)
        }
        let set = try DialectSet(directory: options.migrationsDirectory, dialect: detection.dialect,
                                 placeholders: detection.dialect == .flyway ? FlywayPlaceholders(options.placeholders) : nil).withoutDeclaration
        let scripts = try MigrationScript.scripts(for: set)

        // Which migrations the scratch database already has, and which are linted.
        let base: [MigrationScript]
        var pending: [MigrationScript]
        if let requested = options.from {
            guard let from = requested.resolve(in: set.migrations), set.migrations.contains(where: { $0.version == from }) else {
                throw StewardError(.badInput, "no migration in \(set.directory) has version \(requested.text)")
            }
            base = scripts.filter { $0.migration.version <= from }
            pending = scripts.filter { $0.migration.version > from }
        } else if options.samplePath != nil {
            let plan = try sqlite { () throws -> LedgerPlan in
                let ledger = Ledgers.ledger(for: set.dialect)
                let reading = try ledger.flatMap { try $0.exists(on: scratch) ? try $0.read(on: scratch, migrations: set.migrations) : nil }
                var planOptions = LedgerPlan.Options()
                planOptions.allowChanged = true
                planOptions.allowOutOfOrder = true
                return try LedgerPlan(set: set, reading: reading, userVersion: try scratch.userVersion(), options: planOptions)
            }
            base = []
            pending = plan.pending.compactMap { migration in scripts.first { $0.migration.fileName == migration.fileName } }
        } else {
            base = []
            pending = scripts
        }
        // The sample has the base applied already; an empty scratch database gets it now.
        if options.samplePath == nil {
            for script in base {
                try scratch.execute(sql: "BEGIN")
                do {
                    try script.apply(on: scratch, cancellation: cancellation)
                    try scratch.execute(sql: "COMMIT")
                } catch {
                    scratch.rollbackIfNeeded()
                    throw error
                }
            }
        }

        let linked = SQLiteVersion(try sqlite { try scratch.scalar(sql: "SELECT sqlite_version()")?.textValue ?? "" }) ?? SQLiteVersion(3, 0)
        var functions: Set<String> = []
        try sqlite {
            try scratch.forEachRow(sql: "SELECT DISTINCT lower(name) FROM pragma_function_list") { row in
                if let name = row.text(at: 0) { functions.insert(name) }
            }
        }
        var state = State(required: options.requiredSQLite, linked: linked, functions: functions, plans: plans)
        var migrations: [LintReport.Migration] = []
        var notLinted: [String] = []
        while !pending.isEmpty {
            let script = pending.removeFirst()
            if cancellation.isCancelled { throw StewardError.interrupted(by: cancellation) }
            progress(.linting(file: script.migration.fileName))
            let result = try lint(script, on: scratch, state: &state)
            migrations.append(result)
            if result.failed != nil {
                notLinted = pending.map(\.migration.fileName)
                break
            }
        }
        let used = SQLiteFeature.all.filter { state.usedFeatures.contains($0.id) }
        return LintReport(
            directory: set.directory, dialect: set.dialect, sample: options.samplePath, from: options.from?.text,
            requiredSQLite: options.requiredSQLite, minimumSQLite: migrations.compactMap(\.minimumSQLite).max(),
            features: used.map { .init(id: $0.id, name: $0.name, version: $0.version, citation: $0.citation, releaseNotes: $0.releaseNotes) },
            baseMigrations: base.map(\.migration.fileName), migrations: migrations, findings: state.findings,
            notLinted: notLinted, totalSeconds: stopwatch.roundedSeconds,
            passed: !state.findings.contains { $0.level == .error })
    }

    /// What the run carries from one migration to the next.
    struct State {
        let required: SQLiteVersion?
        let linked: SQLiteVersion
        let functions: Set<String>
        let plans: PlanContract?
        var findings: [LintReport.Finding] = []
        /// The queries of the plan contract that passed after the last migration.
        var passingPlans: Set<String> = []
        var usedFeatures: Set<String> = []
    }

    /// Runs one migration on the scratch database under the guard, reading each statement
    /// before it runs.
    private func lint(_ script: MigrationScript, on scratch: Connection, state: inout State) throws -> LintReport.Migration {
        let file = script.migration.fileName
        let lines = SourceLines(script.migration.upSQL)
        var needs: [LintReport.Statement] = []
        var findings: [LintReport.Finding] = []
        func finding(_ rule: LintReport.Rule, _ level: LintReport.Level = .error, location: String?, _ message: String, feature: String? = nil) {
            let line = location.flatMap { $0.split(separator: ":").last.flatMap { Int($0) } }
            findings.append(.init(rule: rule, level: level, file: file, line: line, message: message, feature: feature))
        }
        let schemaBefore = try sqlite { try Schema(reading: scratch) }
        let coverageBefore = MigrationGuard.syncCoverage(of: schemaBefore)
        let tablesBefore = Set(try sqlite { try MigrationGuard.tables(on: scratch) }.keys)
        var rebuilt = Set<String>()

        try sqlite { try scratch.execute(sql: "BEGIN") }
        defer { scratch.rollbackIfNeeded() }
        let guardian = try sqlite { try MigrationGuard(connection: scratch, allowances: [], deferredFTS: []) }
        guardian.begin(script)
        var statements = 0
        var failure: String?
        let state0 = state
        do {
            statements = try script.apply(
                on: scratch, cancellation: cancellation, observer: guardian,
                onRebuild: { rebuilt.insert($0.lowercased()) },
                onStatement: { sql, offset, location in
                    let tokens = SQLScanner.tokens(of: sql)
                    var found: [SQLiteFeature] = []
                    for feature in SQLiteFeature.all {
                        // The linked SQLite names its functions; one older than the feature cannot.
                        let known = feature.version <= state0.linked ? state0.functions : nil
                        guard let at = feature.firstUse(in: tokens, knownFunctions: known) else { continue }
                        found.append(feature)
                        let line = lines.line(at: offset + at)
                        if let required = state0.required, feature.version > required {
                            finding(.sqliteVersion, location: "\(file):\(line)",
                                    "\(feature.name) needs SQLite \(feature.version) or later (\(feature.citation)); the set must run on \(required)",
                                    feature: feature.id)
                        }
                    }
                    if let newest = found.map(\.version).max() {
                        needs.append(.init(file: file, line: lines.line(at: offset + (tokens.first?.offset ?? 0)),
                                           minimumSQLite: newest, features: found.map(\.id)))
                    }
                    try rules(tokens, location: location, on: scratch, report: { rule, message in finding(rule, location: location, message) })
                },
                onRefusal: { location, reason in
                    finding(.nonTransactional, location: location, "\(reason); migrate refuses this file")
                },
                onFailure: { location, error in
                    failure = failure ?? error.message
                    finding(.statementFails, location: location, Self.withoutLocation(error.message, location))
                })
        } catch let error as StewardError where error.kind == .badInput || error.kind == .checkFailed {
            failure = error.message
            let location = String(error.message.prefix { $0 != " " }.dropLast())
            finding(.statementFails, location: location, Self.withoutLocation(error.message, location))
        }
        guardian.end()
        for need in needs { state.usedFeatures.formUnion(need.features) }

        var objects: MigrateReport.Accounting.Migration?
        var tables: [MigrateReport.Accounting.TableRows] = []
        if failure == nil {
            // The rebuilds the file asks for, as migrate makes them after its migrations.
            for directive in script.directives {
                let name = Connection.quote(identifier: directive.table)
                try sqlite { try scratch.execute(sql: "INSERT INTO \(name)(\(name)) VALUES ('rebuild')") }
                rebuilt.insert(directive.table.lowercased())
            }
            let (accounting, problems, unmatched) = try sqlite { try guardian.account(checkedFTS: rebuilt) }
            objects = accounting.migrations.first
            tables = accounting.tables
            for problem in problems {
                let rule: LintReport.Rule = switch problem.kind {
                case .objectLost: .objectLost
                case .triggerLost: .rebuildLosesTriggers
                case .rowLoss: .rowLoss
                case .optionLost: .optionLost
                case .counterReset: .counterReset
                case .brokenReference: .brokenReference
                case .brokenObject: .brokenObject
                case .searchTriggersLost: .ftsSyncTriggersLost
                case .searchDrift: .ftsContentWithoutRebuild
                }
                // Drift on the sample is the proof of the rule below; one finding is enough.
                if rule == .ftsContentWithoutRebuild { continue }
                finding(rule, location: problem.location, problem.message)
            }
            for message in unmatched {
                finding(.unusedAllowance, .warning, location: message.prefix { $0 != " " }.description, message)
            }
            // An external-content FTS5 table whose content table the migration rebuilt,
            // altered or renamed, or wrote while its sync triggers were incomplete, needs a
            // rebuild: on an empty scratch database nothing drifts yet, on a client's it does.
            let schemaAfter = try sqlite { try Schema(reading: scratch) }
            let changed = guardian.changedTables
            let dropped = guardian.droppedTables
            let drifted = Set(problems.filter { $0.kind == .searchDrift }.compactMap { problem in
                schemaAfter.fts5Tables.first { problem.message.contains("FTS5 index of \($0.name) ") }?.name.lowercased()
            })
            for table in schemaAfter.fts5Tables where table.contentMode == .external {
                let key = table.name.lowercased()
                guard let content = table.contentTable?.lowercased(), !rebuilt.contains(key) else { continue }
                let before = coverageBefore[key]
                let covered = before.map { $0.insert != nil && $0.delete != nil && $0.update != nil } ?? false
                let existedBefore = schemaBefore.fts5Tables.contains { $0.name.lowercased() == key }
                let contentExisted = tablesBefore.contains(content)
                let needsRebuild = drifted.contains(key)
                    || (existedBefore && changed.contains(content) && (!covered || dropped.contains(content)))
                    || (!existedBefore && contentExisted && !created(content, in: objects))
                guard needsRebuild else { continue }
                finding(.ftsContentWithoutRebuild, location: nil,
                        "the migration changes \(table.contentTable ?? content), the content table of the FTS5 table \(table.name), without rebuilding its index (add '-- steward: rebuild-fts \(table.name)')")
            }
        }
        var planOutcomes: [PlanContract.Outcome] = []
        if failure == nil, let contract = state.plans {
            // A query is checked once the schema it names is there; it regresses where it
            // passed before (or never passed) and does not now.
            planOutcomes = contract.check(on: scratch).filter { $0.error == nil || state.passingPlans.contains($0.name) }
            for outcome in planOutcomes {
                if outcome.passed {
                    state.passingPlans.insert(outcome.name)
                } else {
                    state.passingPlans.remove(outcome.name)
                    finding(.planRegression, location: nil, "\(outcome.failure) (\(contract.path))")
                }
            }
        }
        try sqlite { try scratch.execute(sql: failure == nil ? "COMMIT" : "ROLLBACK") }
        state.findings += findings
        return LintReport.Migration(
            file: file, version: script.migration.ledgerVersion, statements: statements,
            minimumSQLite: needs.map(\.minimumSQLite).max(), needs: needs, objects: objects, tables: tables,
            plans: state.plans == nil ? nil : planOutcomes, failed: failure)
    }

    /// A message without the `FILE:LINE: ` the finding carries already.
    static func withoutLocation(_ message: String, _ location: String) -> String {
        message.hasPrefix(location + ": ") ? String(message.dropFirst(location.count + 2)) : message
    }

    private func created(_ table: String, in objects: MigrateReport.Accounting.Migration?) -> Bool {
        objects?.created.contains { $0.type == .table && $0.name.caseInsensitiveEquals(table) } ?? false
    }

    /// The rules read from one statement before it runs, on the schema it runs against.
    private func rules(_ tokens: [SQLScanner.Token], location: String, on scratch: Connection,
                       report: (LintReport.Rule, String) -> Void) throws
    {
        guard let after = SQLiteFeature.afterAlterTable(tokens), after < tokens.count, let table = tokens[after - 1].name else { return }
        if tokens[after].isKeyword("DROP") {
            let index = tokens.indices.contains(after + 1) && tokens[after + 1].isKeyword("COLUMN") ? after + 2 : after + 1
            guard tokens.indices.contains(index), let column = tokens[index].name else { return }
            var indexes: [String] = []
            try sqlite {
                try scratch.forEachRow(
                    sql: "SELECT DISTINCT l.name FROM pragma_index_list(?1) AS l, pragma_index_info(l.name) AS i WHERE i.name = ?2 COLLATE NOCASE ORDER BY l.name",
                    bindings: [.text(table), .text(column)]) { row in indexes.append(row.text(at: 0) ?? "") }
            }
            if !indexes.isEmpty {
                report(.dropIndexedColumn, "DROP COLUMN \(column) of \(table), which the index\(indexes.count == 1 ? "" : "es") \(indexes.joined(separator: ", ")) use\(indexes.count == 1 ? "s" : ""): SQLite refuses it; drop the index first, or rebuild the table")
            }
        } else if tokens[after].isKeyword("ADD") {
            let start = tokens.indices.contains(after + 1) && tokens[after + 1].isKeyword("COLUMN") ? after + 2 : after + 1
            let definition = tokens[min(start, tokens.count)...]
            var notNull = false, hasDefault = false, generated = false
            for index in definition.indices {
                if definition[index].isKeyword("NOT"), index + 1 < tokens.count, tokens[index + 1].isKeyword("NULL") { notNull = true }
                if definition[index].isKeyword("DEFAULT") { hasDefault = true }
                if definition[index].isKeyword("AS") || definition[index].isKeyword("GENERATED") { generated = true }
            }
            if notNull, !hasDefault, !generated, let column = definition.first?.name {
                report(.notNullWithoutDefault, "ADD COLUMN \(column) NOT NULL without a DEFAULT on \(table): SQLite refuses it on a table that has rows (\"Cannot add a NOT NULL column with default value NULL\"); give it a default")
            }
        }
    }

    /// Copies the sample into the scratch database with SQLite's backup API, from a
    /// read-only connection: the sample is never written.
    private func copy(_ path: String, into scratch: Connection) throws {
        _ = try DatabaseFile.regularFile(path)
        do {
            let sample = try DatabaseFile.openReadOnly(path: path, header: nil)
            try sample.backup(to: scratch)
        } catch let error as SQLiteError {
            throw DatabaseFile.explain(error, path: path)
        }
    }

    private func sqlite<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw SQLiteErrorMapping(path: options.samplePath ?? "the scratch database", role: .migrationStatement(preparing: false),
                                     cancellation: cancellation).error(for: error)
        }
    }
}
