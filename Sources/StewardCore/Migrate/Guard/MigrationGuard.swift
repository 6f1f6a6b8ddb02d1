import SQLiteKit
import StewardBase

/// Accounts, inside the migration's transaction and before COMMIT, for everything a run
/// loses that its migrations do not name (design notes, "The migration guard").
///
/// What each statement creates, drops, alters and writes comes from SQLite's authorizer
/// (`Connection.setAuthorizer`) at prepare time, statement by statement, never from reading
/// the SQL. Before a statement that touches a table first runs, the table's rows are
/// counted; before a DROP TABLE runs, the indexes and triggers that go with the table are
/// noted. After the run (`finish`), the schema and the counts are compared with what was
/// there before:
/// - objects (indexes, triggers, views) that are gone without an explicit DROP of their own
///   or a CREATE of the same name are *lost*;
/// - a table that still exists (under its name, or the one a rename gave it) with fewer
///   rows, without a DELETE on it, lost rows;
/// - STRICT, WITHOUT ROWID and AUTOINCREMENT lost, `sqlite_sequence` gone down;
/// - foreign keys that now name a missing table or were moved off a table that still
///   exists (the rename-first `t_old` trap), views and triggers that no longer compile.
/// Each refusal can be allowed (`MigrationAllowance`), except broken references.
final class MigrationGuard: StatementObserver {
    /// An index, trigger or view of `main`.
    struct SchemaObject {
        let type: MigrateReport.Accounting.ObjectType
        let name: String
        let table: String
        let sql: String
    }

    struct TableShape {
        let name: String
        let isStrict: Bool
        let isWithoutRowID: Bool
        let hasAutoincrement: Bool
    }

    /// A table the run touched, counted when it was first touched.
    struct TouchedTable {
        let name: String
        /// nil for a table that was not there before the run.
        var rowsBefore: Int?
        var written = false
        var dropped = false
        var altered = false
        /// A DELETE on the table at a statement's top level.
        var deletedExplicitly = false
        var files: [String] = []
    }

    private let connection: Connection
    private let callerAllowances: [MigrationAllowance]
    private let deferredFTS: Set<String>

    // Before the run.
    private let objectsBefore: [String: SchemaObject]
    private let tablesBefore: [String: TableShape]
    private let sequenceBefore: [String: Int64]
    private let danglingBefore: Set<Reference>
    private let referencesBefore: [String: [Reference]]
    private let brokenBefore: Set<String>
    private let coverageBefore: [String: FTS5SyncTriggers]

    // During the run.
    private var recording = false
    private var pending: [AuthorizerEvent] = []
    private var file = ""
    private var fileAllowances: [String: [MigrationAllowance]] = [:]
    private var files: [String] = []
    private var touched: [String: TouchedTable] = [:]
    private var touchOrder: [String] = []
    private var explicitlyDropped: [String: (object: MigrateReport.Accounting.Object, file: String)] = [:]
    /// Objects that went with a dropped table (or view): where the table was dropped.
    private var droppedWithTable: [String: (object: SchemaObject, location: String, file: String)] = [:]
    private var created: [String: (object: MigrateReport.Accounting.Object, file: String)] = [:]
    private var createdOrder: [(object: MigrateReport.Accounting.Object, file: String)] = []
    private var droppedOrder: [(object: MigrateReport.Accounting.Object, file: String)] = []
    /// Renames of tables, lower-cased old name to new name.
    private var renames: [String: String] = [:]
    private var tableNamesBeforeAlter: [String: String]?
    /// Views and triggers that compiled before the run and do not after it.
    private var brokenByRun: Set<String> = []

    /// How the FTS5 tables whose content the run changed are checked: on this
    /// connection (no other sees the run's changes), by Steward's digest unless asked.
    var ftsMethod = FTS5CheckMethod.transaction(kind: .parallel)

    init(connection: Connection, allowances: [MigrationAllowance], deferredFTS: Set<String>) throws {
        self.connection = connection
        self.callerAllowances = allowances
        self.deferredFTS = Set(deferredFTS.map { $0.lowercased() })
        objectsBefore = try Self.objects(on: connection)
        tablesBefore = try Self.tables(on: connection)
        sequenceBefore = try Self.sequence(on: connection)
        let references = try Self.references(on: connection)
        referencesBefore = references
        danglingBefore = Self.dangling(references, tables: tablesBefore, on: connection)
        brokenBefore = Set(try Self.brokenObjects(on: connection).map(\.key))
        coverageBefore = Self.syncCoverage(of: try Schema(reading: connection))
        connection.setAuthorizer { [weak self] event in
            guard let self, self.recording else { return }
            self.pending.append(event)
        }
    }

    deinit {
        connection.setAuthorizer(nil)
    }

    // MARK: - During the run

    /// The migration `script` is about to run.
    func begin(_ script: MigrationScript) {
        file = script.migration.fileName
        files.append(file)
        fileAllowances[file] = script.allowances
        pending = []
        recording = true
    }

    func end() {
        recording = false
        pending = []
    }

    func willRun(location: String) throws {
        recording = false
        let events = pending
        pending = []
        let droppedTables = Set(events.compactMap { event -> String? in
            if case .dropTable(let table) = event.action { return table.lowercased() }
            if case .dropView(let view) = event.action { return view.lowercased() }
            return nil
        })
        for event in events {
            switch event.action {
            case .dropTable(let table), .dropVirtualTable(let table, _):
                try touch(table) { $0.dropped = true }
                try noteWhatGoesWith(table, location: location)
            case .dropView(let view):
                try noteWhatGoesWith(view, location: location)
                dropped(.init(type: .view, name: view, table: nil))
            case .dropIndex(let index, let table):
                dropped(.init(type: .index, name: index, table: table))
            case .dropTrigger(let trigger, let table):
                // A DROP TABLE reports the triggers that go with the table: not named.
                if !droppedTables.contains(table.lowercased()) {
                    dropped(.init(type: .trigger, name: trigger, table: table))
                }
            case .delete(let table):
                guard !droppedTables.contains(table.lowercased()) else { break }
                try touch(table) {
                    $0.written = true
                    if event.trigger == nil { $0.deletedExplicitly = true }
                }
            case .insert(let table), .update(let table, _):
                try touch(table) { $0.written = true }
            case .alterTable(let table):
                try touch(table) { $0.altered = true }
                if tableNamesBeforeAlter == nil { tableNamesBeforeAlter = try Self.tableNames(on: connection) }
            case .createIndex(let index, let table):
                create(.init(type: .index, name: index, table: table))
            case .createTrigger(let trigger, let table):
                create(.init(type: .trigger, name: trigger, table: table))
            case .createView(let view):
                create(.init(type: .view, name: view, table: nil))
            case .createTable(let table), .createVirtualTable(let table, _):
                create(.init(type: .table, name: table, table: nil))
            }
        }
    }

    func didRun() throws {
        if let before = tableNamesBeforeAlter {
            tableNamesBeforeAlter = nil
            let after = try Self.tableNames(on: connection)
            let gone = before.keys.filter { after[$0] == nil }
            let new = after.keys.filter { before[$0] == nil }
            if gone.count == 1, new.count == 1, let old = gone.first, let name = new.first, let renamed = after[name] {
                renames[old] = renamed
            }
        }
        pending = []
        recording = true
    }

    private func touch(_ table: String, _ change: (inout TouchedTable) -> Void) throws {
        let key = table.lowercased()
        guard !Self.isInternal(key) else { return }
        var entry = touched[key] ?? TouchedTable(name: table)
        if touched[key] == nil {
            touchOrder.append(key)
            // Counted before the first statement that touches it runs. An ordinary table
            // that was there before the run is still there, unchanged, until something
            // touches it: a drop or a rename is a touch. Tables the run made, virtual tables
            // and their shadows are not counted.
            if tablesBefore[key] != nil { entry.rowsBefore = try count(table) }
        }
        if entry.files.last != file { entry.files.append(file) }
        change(&entry)
        touched[key] = entry
    }

    private func noteWhatGoesWith(_ table: String, location: String) throws {
        try connection.forEachRow(
            sql: "SELECT type, name, tbl_name, sql FROM main.sqlite_schema WHERE type IN ('index', 'trigger') AND sql IS NOT NULL AND tbl_name = ?1 COLLATE NOCASE",
            bindings: [.text(table)]
        ) { row in
            let name = row.text(at: 1) ?? ""
            let object = SchemaObject(type: row.text(at: 0) == "index" ? .index : .trigger, name: name,
                                      table: row.text(at: 2) ?? table, sql: row.text(at: 3) ?? "")
            droppedWithTable[name.lowercased()] = (object, location, file)
        }
    }

    private func dropped(_ object: MigrateReport.Accounting.Object) {
        guard !Self.isInternal(object.name.lowercased()) else { return }
        explicitlyDropped[object.name.lowercased()] = (object, file)
        droppedOrder.append((object, file))
    }

    private func create(_ object: MigrateReport.Accounting.Object) {
        guard !Self.isInternal(object.name.lowercased()) else { return }
        created[object.name.lowercased()] = (object, file)
        createdOrder.append((object, file))
    }

    private func count(_ table: String) throws -> Int {
        Int(try connection.integer(sql: "SELECT count(*) FROM main.\(Connection.quote(identifier: table))"))
    }

    // MARK: - After the run

    /// A loss the run's migrations do not name: what `finish` refuses, and what lint reports.
    struct Problem {
        enum Kind: String {
            case objectLost, triggerLost, rowLoss, optionLost, counterReset, brokenReference, brokenObject
            case searchTriggersLost, searchDrift
        }
        let kind: Kind
        /// `FILE:LINE` of the statement that caused it, when known.
        let location: String?
        let message: String

        init(_ kind: Kind, location: String?, _ message: String) {
            self.kind = kind
            self.location = location
            self.message = message
        }
    }

    /// Compares the database after the run with before: the accounting, every loss the
    /// migrations did not name, and the allowances that match nothing the run did.
    /// `checkedFTS` are the FTS5 tables already rebuilt and checked.
    func account(checkedFTS: Set<String>) throws -> (MigrateReport.Accounting, problems: [Problem], unmatched: [String]) {
        recording = false
        connection.setAuthorizer(nil)
        var problems: [Problem] = []
        var used: [MigrationAllowance: Bool] = [:]
        let allowances = callerAllowances + files.flatMap { fileAllowances[$0] ?? [] }
        for allowance in allowances { used[allowance] = false }
        func allowance(_ kind: MigrationAllowance.Kind, _ name: String, files: [String]) -> MigrationAllowance? {
            let found = allowances.first { candidate in
                guard candidate.allows(kind, name) else { return false }
                guard let location = candidate.location else { return true }
                return files.contains { location.hasPrefix($0 + ":") }
            }
            if let found { used[found] = true }
            return found
        }

        let objectsAfter = try Self.objects(on: connection)
        let tablesAfter = try Self.tables(on: connection)
        var perFile: [String: MigrateReport.Accounting.Migration] = [:]
        for file in files { perFile[file] = .init(file: file) }

        // Objects.
        for (object, file) in createdOrder where object.type != .table { perFile[file]?.created.append(object) }
        for (object, file) in droppedOrder { perFile[file]?.droppedExplicitly.append(object) }
        for (key, before) in objectsBefore.sorted(by: { $0.key < $1.key }) {
            if let after = objectsAfter[key] {
                if after.sql != before.sql, let file = created[key]?.file ?? touched[before.table.lowercased()]?.files.first {
                    perFile[file]?.changed.append(.init(type: before.type, name: before.name, table: after.table))
                }
                continue
            }
            guard explicitlyDropped[key] == nil else { continue }
            let with = droppedWithTable[key]
            // Its table dropped for good: the DROP TABLE named it. Only a table that lives on
            // (rebuilt, or renamed) lost it.
            if resolved(before.table.lowercased(), in: tablesAfter) == nil {
                if let file = with?.file {
                    perFile[file]?.droppedWithTable.append(.init(type: before.type, name: before.name, table: before.table))
                }
                continue
            }
            let kind: MigrationAllowance.Kind = switch before.type {
            case .index: .dropIndex
            case .trigger: .dropTrigger
            default: .dropView
            }
            let file = with?.file ?? files.last ?? ""
            let location = with.map { ": DROP TABLE \($0.object.table) at \($0.location)" } ?? ""
            let allowed = allowance(kind, before.name, files: [file])
            perFile[file]?.lost.append(.init(
                object: .init(type: before.type, name: before.name, table: before.table),
                droppedWith: with?.object.table ?? before.table, location: with?.location, allowedBy: allowed.map(Self.shown)))
            if allowed == nil {
                problems.append(Problem(before.type == .trigger ? .triggerLost : .objectLost, location: with?.location, "\(before.type.rawValue) \(before.name) on \(before.table) lost with its table\(location); no statement dropped or created it by name (allow: '-- steward: allow \(kind.rawValue) \(before.name)')"))
            }
        }

        // Rows.
        var tables: [MigrateReport.Accounting.TableRows] = []
        for key in touchOrder {
            guard let entry = touched[key], let rowsBefore = entry.rowsBefore else { continue }
            let current = resolved(key, in: tablesAfter).flatMap { tablesAfter[$0]?.name }
            let renamedTo = current.flatMap { $0.caseInsensitiveEquals(entry.name) ? nil : $0 }
            let rowsAfter = try current.map { try count($0) }
            var row = MigrateReport.Accounting.TableRows(
                table: entry.name, rowsBefore: rowsBefore, rowsAfter: rowsAfter, renamedTo: renamedTo,
                dropped: current == nil, deleted: entry.deletedExplicitly, files: entry.files, allowedBy: nil)
            if let rowsAfter, rowsAfter < rowsBefore, !entry.deletedExplicitly {
                if let allowed = allowance(.rowLoss, entry.name, files: entry.files) {
                    row.allowedBy = Self.shown(allowed)
                } else {
                    let how = entry.dropped ? "dropped and made again without all its rows" : "no DELETE on it"
                    problems.append(Problem(.rowLoss, location: nil, "table \(entry.name)\(renamedTo.map { " (now \($0))" } ?? "") lost \(rowsBefore - rowsAfter) of its \(Counted.phrase(rowsBefore, "row")) (\(entry.files.joined(separator: ", ")): \(how); allow: '-- steward: allow row-loss \(entry.name)')"))
                }
            }
            tables.append(row)
        }

        // Table options and counters.
        let sequenceAfter = try Self.sequence(on: connection)
        for (key, before) in tablesBefore.sorted(by: { $0.key < $1.key }) {
            guard let afterKey = resolved(key, in: tablesAfter), let after = tablesAfter[afterKey] else { continue }
            let files = touched[key]?.files ?? []
            var lost: [String] = []
            if before.isStrict && !after.isStrict { lost.append("STRICT") }
            if before.isWithoutRowID && !after.isWithoutRowID { lost.append("WITHOUT ROWID") }
            if before.hasAutoincrement && !after.hasAutoincrement { lost.append("AUTOINCREMENT") }
            if !lost.isEmpty, allowance(.optionChange, before.name, files: files) == nil {
                problems.append(Problem(.optionLost, location: nil, "table \(before.name) was rebuilt without \(lost.joined(separator: ", ")) (allow: '-- steward: allow option-change \(before.name)')"))
            }
            if let sequence = sequenceBefore[key], after.hasAutoincrement {
                let now = sequenceAfter[afterKey] ?? 0
                if now < sequence, allowance(.sequenceReset, before.name, files: files) == nil {
                    problems.append(Problem(.counterReset, location: nil, "the AUTOINCREMENT counter of \(before.name) went down from \(sequence) to \(now): ids of deleted rows would be handed out again (allow: '-- steward: allow sequence-reset \(before.name)')"))
                }
            }
        }

        // References.
        // A reference to a table that never existed is a forward reference the set makes
        // on purpose (a later migration creates it), not a loss: only tables that were there
        // before the run, or that the run renamed or dropped, count.
        let references = try Self.references(on: connection)
        for reference in Self.dangling(references, tables: tablesAfter, on: connection).subtracting(danglingBefore).sorted(by: { $0.shown < $1.shown })
        where tablesBefore[reference.target.lowercased()] != nil || touched[reference.target.lowercased()] != nil
            || renames.values.contains(where: { $0.caseInsensitiveEquals(reference.target) })
        {
            problems.append(Problem(.brokenReference, location: nil, "foreign key \(reference.shown) names a table that no longer exists"))
        }
        // The rename-first trap: SQLite rewrote the foreign key of a child the run never
        // touched, so the same columns now reference another table while theirs still exists.
        for (child, keys) in references.sorted(by: { $0.key < $1.key }) {
            guard let before = referencesBefore[child], touched[child.lowercased()] == nil, created[child.lowercased()] == nil else { continue }
            for key in keys {
                guard let old = before.first(where: { $0.columns == key.columns })?.target,
                      !old.caseInsensitiveEquals(key.target), tablesAfter[old.lowercased()] != nil else { continue }
                problems.append(Problem(.brokenReference, location: nil, "the foreign key of \(child) (\(key.columns)) that referenced \(old) now references \(key.target): a rename of \(old) rewrote it"))
            }
        }
        // A view or trigger that no longer compiles is lost to the application: allowed
        // only as its drop.
        for object in try Self.brokenObjects(on: connection) where !brokenBefore.contains(object.key) {
            brokenByRun.insert(object.name.lowercased())
            let kind: MigrationAllowance.Kind? = switch object.kind {
            case "view": .dropView
            case "trigger": .dropTrigger
            default: nil
            }
            if let kind, allowance(kind, object.name, files: files) != nil { continue }
            problems.append(Problem(.brokenObject, location: nil, "\(object.kind) \(object.name) no longer compiles against the new schema (\(object.why))"
                + (kind.map { " (allow: '-- steward: allow \($0.rawValue) \(object.name)')" } ?? "")))
        }

        // Search: FTS5 tables whose content table the run changed.
        var searchChecked: [String] = []
        let schemaAfter = try Schema(reading: connection)
        let coverageAfter = Self.syncCoverage(of: schemaAfter)
        for table in schemaAfter.fts5Tables where table.contentMode == .external {
            let key = table.name.lowercased()
            guard let content = table.contentTable?.lowercased() else { continue }
            let changed = touched[content].map { $0.written || $0.dropped || $0.altered } ?? false
                || renames.values.contains { $0.lowercased() == content }
            let deferred = deferredFTS.contains(key)
            if let before = coverageBefore[key], let after = coverageAfter[key] {
                // Covered before, not after: each lost trigger must have been allowed.
                let lost = [("insert", before.insert, after.insert), ("delete", before.delete, after.delete),
                            ("update", before.update, after.update)]
                    .compactMap { event, old, new in old != nil && new == nil ? (event, old ?? "") : nil }
                let unallowed = lost.filter { allowance(.dropTrigger, $0.1, files: files) == nil }
                if !unallowed.isEmpty, !deferred {
                    problems.append(Problem(.searchTriggersLost, location: nil, "the FTS5 table \(table.name) lost its sync trigger\(unallowed.count == 1 ? "" : "s") for \(unallowed.map { "\($0.0) (\($0.1))" }.joined(separator: ", ")) on \(table.contentTable ?? content): its index would drift from its content"))
                }
            }
            guard changed, !checkedFTS.contains(key) else { continue }
            searchChecked.append(table.name)
            do {
                try FTS5IntegrityCheck.check(table, rank: 1, on: connection, method: ftsMethod)
            } catch let error as SQLiteError where error.isCorrupt {
                if !deferred {
                    problems.append(Problem(.searchDrift, location: nil, "the FTS5 index of \(table.name) no longer matches its content table \(table.contentTable ?? content): the migrations changed \(table.contentTable ?? content) without its index (rebuild it in the migration with '-- steward: rebuild-fts \(table.name)')"))
                }
            }
        }

        // Allowances that match nothing the run did are mistakes in the file.
        var unmatched: [String] = []
        for allowance in allowances where used[allowance] == false && !matchesSomething(allowance) {
            unmatched.append("\(allowance.location ?? "the caller's allowance") '\(allowance.kind.rawValue) \(allowance.name)' matches nothing this run did")
        }
        let accounting = MigrateReport.Accounting(
            migrations: files.compactMap { perFile[$0] }, tables: tables, searchChecked: searchChecked,
            allowances: allowances.map { .init(kind: $0.kind, name: $0.name, givenAt: $0.location, used: used[$0] == true) })
        return (accounting, problems, unmatched)
    }

    /// Compares the database after the run with before. Throws `checkFailed` listing every
    /// loss the migrations did not name, and `badInput` for an allowance that matches
    /// nothing the run did. `checkedFTS` are the FTS5 tables already rebuilt and checked.
    func finish(checkedFTS: Set<String>) throws -> MigrateReport.Accounting {
        let (accounting, problems, unmatched) = try account(checkedFTS: checkedFTS)
        if !unmatched.isEmpty {
            throw StewardError(.badInput, unmatched.joined(separator: "; ") + "; rolled back, nothing changed")
        }
        if !problems.isEmpty {
            throw StewardError(
                .checkFailed,
                "the migrations would lose what they do not name (\(problems.count)): "
                    + problems.map(\.message).joined(separator: "; ") + "; rolled back, nothing changed")
        }
        return accounting
    }

    /// The tables a DROP TABLE of the run dropped (some made again), lower-cased.
    var droppedTables: Set<String> {
        Set(touched.filter { $0.value.dropped }.keys)
    }

    /// The tables the run wrote, dropped, altered or renamed, lower-cased, by their names
    /// when first touched.
    var changedTables: Set<String> {
        Set(touched.filter { $0.value.written || $0.value.dropped || $0.value.altered }.keys).union(renames.keys)
    }

    /// Whether an allowance names something the run touched in the way it allows.
    private func matchesSomething(_ allowance: MigrationAllowance) -> Bool {
        let key = allowance.name.lowercased()
        switch allowance.kind {
        case .rowLoss, .optionChange, .sequenceReset:
            return touched[key] != nil
        case .dropIndex, .dropTrigger, .dropView:
            return explicitlyDropped[key] != nil || droppedWithTable[key] != nil || brokenByRun.contains(key)
        }
    }

    /// The key a table has after the run: its own, or the end of its renames.
    private func resolved(_ key: String, in after: [String: TableShape]) -> String? {
        if after[key] != nil { return key }
        var seen: Set<String> = [key]
        var name = key
        var found: String?
        while let next = renames[name]?.lowercased(), seen.insert(next).inserted {
            name = next
            if after[next] != nil { found = next }
        }
        return found
    }

    static func shown(_ allowance: MigrationAllowance) -> String {
        allowance.location ?? MigrationAllowance.givenByCaller
    }

    // MARK: - Reading the schema

    static func isInternal(_ name: String) -> Bool {
        name.hasPrefix("sqlite_")
    }

    static func objects(on connection: Connection) throws -> [String: SchemaObject] {
        var result: [String: SchemaObject] = [:]
        try connection.forEachRow(sql: "SELECT type, name, tbl_name, sql FROM main.sqlite_schema WHERE type IN ('index', 'trigger', 'view') AND sql IS NOT NULL") { row in
            let type: MigrateReport.Accounting.ObjectType = switch row.text(at: 0) {
            case "index": .index
            case "trigger": .trigger
            default: .view
            }
            let name = row.text(at: 1) ?? ""
            result[name.lowercased()] = SchemaObject(type: type, name: name, table: row.text(at: 2) ?? "", sql: row.text(at: 3) ?? "")
        }
        return result
    }

    /// Ordinary tables (not virtual, not shadow, not SQLite's own), by lower-cased name.
    static func tables(on connection: Connection) throws -> [String: TableShape] {
        var result: [String: TableShape] = [:]
        try connection.forEachRow(sql: """
            SELECT l.name, l.strict, l.wr, s.sql FROM pragma_table_list AS l JOIN main.sqlite_schema AS s ON s.name = l.name
            WHERE l.schema = 'main' AND l.type = 'table' AND s.type = 'table' AND l.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
            """) { row in
            let name = row.text(at: 0) ?? ""
            let autoincrement = SQLScanner.tokens(of: row.text(at: 3) ?? "").contains { $0.isKeyword("AUTOINCREMENT") }
            result[name.lowercased()] = TableShape(
                name: name, isStrict: row.int(at: 1) != 0, isWithoutRowID: row.int(at: 2) != 0, hasAutoincrement: autoincrement)
        }
        return result
    }

    static func tableNames(on connection: Connection) throws -> [String: String] {
        var result: [String: String] = [:]
        try connection.forEachRow(sql: "SELECT name FROM main.sqlite_schema WHERE type = 'table'") { row in
            let name = row.text(at: 0) ?? ""
            result[name.lowercased()] = name
        }
        return result
    }

    static func sequence(on connection: Connection) throws -> [String: Int64] {
        guard try connection.integer(sql: "SELECT count(*) FROM main.sqlite_schema WHERE name = 'sqlite_sequence'") > 0 else { return [:] }
        var result: [String: Int64] = [:]
        try connection.forEachRow(sql: "SELECT name, seq FROM main.sqlite_sequence") { row in
            result[(row.text(at: 0) ?? "").lowercased()] = row.int64(at: 1)
        }
        return result
    }

    /// A foreign key: the child's columns (comma-separated, lower-cased) and the parent.
    struct Reference: Hashable {
        let child: String
        let columns: String
        let target: String
        var shown: String { "\(child) → \(target)" }
    }

    /// Each table's foreign keys, by the table's name.
    static func references(on connection: Connection) throws -> [String: [Reference]] {
        var result: [String: [Reference]] = [:]
        try connection.forEachRow(sql: """
            SELECT s.name, f."table", group_concat(lower(f."from"), ',') FROM main.sqlite_schema AS s, pragma_foreign_key_list(s.name) AS f
            WHERE s.type = 'table' GROUP BY s.name, f.id ORDER BY s.name, f.id
            """) { row in
            let child = row.text(at: 0) ?? ""
            result[child, default: []].append(Reference(child: child, columns: row.text(at: 2) ?? "", target: row.text(at: 1) ?? ""))
        }
        return result
    }

    /// Every foreign key whose parent table does not exist.
    static func dangling(_ references: [String: [Reference]], tables: [String: TableShape], on connection: Connection) -> Set<Reference> {
        var result: Set<Reference> = []
        for reference in references.values.joined() where tables[reference.target.lowercased()] == nil {
            // A view or virtual table as a parent is not a table that went missing.
            let exists = (try? connection.integer(
                sql: "SELECT count(*) FROM main.sqlite_schema WHERE name = ?1 COLLATE NOCASE", bindings: [.text(reference.target)])) ?? 0
            if exists == 0 { result.insert(reference) }
        }
        return result
    }

    /// Views, triggers and virtual tables that do not prepare.
    static func brokenObjects(on connection: Connection) throws -> [(kind: String, name: String, why: String, key: String)] {
        try SchemaObjectsCheck.run(on: connection).problems.map {
            ($0.kind, $0.name, $0.error.shownMessage, "\($0.kind) \($0.name.lowercased())")
        }
    }

    /// For each external-content FTS5 table, its sync triggers.
    static func syncCoverage(of schema: Schema) -> [String: FTS5SyncTriggers] {
        var result: [String: FTS5SyncTriggers] = [:]
        for table in schema.fts5Tables where table.contentMode == .external {
            result[table.name.lowercased()] = schema.syncTriggers(for: table)
        }
        return result
    }
}
