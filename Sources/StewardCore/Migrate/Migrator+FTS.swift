import Foundation
import SQLiteKit

extension Migrator {
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
                    table.definition.name, rank: table.definition.contentMode == .external ? 1 : nil, on: connection)
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
}
