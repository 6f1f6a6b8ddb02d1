import Foundation
import SQLiteKit

/// `steward inspect`: what a person needs to know before touching a database file.
///
/// The file is opened read-only. A WAL database whose `-wal` file is absent is opened
/// with `immutable=1`, so that SQLite creates no `-wal` or `-shm` beside it.
public struct Inspector {
    public init() {}

    /// The compile options worth showing: full-text search, JSON, threading and defaults
    /// that change how files behave.
    static let interestingOptionPrefixes = [
        "ENABLE_FTS", "ENABLE_JSON", "ENABLE_RTREE", "ENABLE_DBSTAT", "ENABLE_UNLOCK_NOTIFY",
        "THREADSAFE", "DEFAULT_FOREIGN_KEYS", "DEFAULT_WAL", "DEFAULT_JOURNAL", "SECURE_DELETE",
        "DEFAULT_PAGE_SIZE", "MAX_PAGE_SIZE", "OMIT_", "USE_URI", "ENABLE_PREUPDATE",
    ]

    public static func libraryFacts() -> InspectReport.Library {
        InspectReport.Library(
            version: SQLiteLibrary.version,
            sourceID: SQLiteLibrary.sourceID,
            fts5Available: SQLiteLibrary.canCreateFTS5(),
            compileOptions: SQLiteLibrary.compileOptions.filter { option in
                interestingOptionPrefixes.contains { option.hasPrefix($0) }
            })
    }

    /// - Throws: `StewardError`: `.notFound`, `.badInput` (not a database, damaged, a hot
    ///   journal), `.busy`, `.inputOutput`.
    /// `extensions` (`--load-extension`) are loaded into the connection, for schemas whose
    /// tables an extension's module or collation serves; the schema is then trusted only
    /// for innocuous functions (`harden(loadingExtensions:)`).
    public func inspect(path: String, extensions: [String] = []) throws -> InspectReport {
        let probe = try DatabaseFile(path: path)
        let library = Self.libraryFacts()
        let walExists = DatabaseFile.exists(path + "-wal")
        let shmExists = DatabaseFile.exists(path + "-shm")
        let journalExists = DatabaseFile.exists(path + "-journal")
        var warnings: [String] = []

        if probe.size == 0 { throw DatabaseFile.emptyFile(path) }

        let header = try probe.header()

        let mode = try DatabaseFile.readOnlyMode(path: path, header: header)
        if journalExists {
            warnings.append("a -journal file exists beside the database: a write was interrupted or is in progress")
        }
        if let warning = mode.warning { warnings.append(warning) }

        var openedAs: InspectReport.Access = mode.immutable ? .immutable : .readOnly
        let connection: Connection
        do {
            connection = try Self.openAndRead(path: path, immutable: mode.immutable)
        } catch let error as SQLiteError
            where !mode.immutable && header.isWAL && !journalExists && !error.isBusy && !error.isNotADatabase && !error.isCorrupt
        {
            // A read-only directory can keep SQLite from opening a live WAL database;
            // the main file alone can still be read, without what the -wal holds.
            guard let fallback = try? Self.openAndRead(path: path, immutable: true) else {
                throw DatabaseFile.explain(error, path: path)
            }
            connection = fallback
            openedAs = .immutable
            warnings.append("opened without the -wal file (\(error.shownMessage)): recent commits may be missing")
        } catch let error as SQLiteError {
            throw DatabaseFile.explain(error, path: path)
        }

        do {
            try connection.harden(loadingExtensions: extensions)
            let schema = try Schema(reading: connection)
            let pageCount = try connection.integer(sql: "PRAGMA page_count")
            let freelist = try connection.integer(sql: "PRAGMA freelist_count")
            // An immutable connection reports `delete` whatever the file says.
            let journalMode = openedAs == .immutable && header.isWAL ? "wal" : try connection.journalMode()

            let tables = schema.tables.map { table -> InspectReport.Table in
                guard table.type != .virtual else {
                    return .init(name: table.name, type: table.type, rowCount: nil, columnCount: table.columnCount,
                                 isWithoutRowID: table.isWithoutRowID, isStrict: table.isStrict, error: nil)
                }
                do {
                    let count = try connection.integer(sql: "SELECT count(*) FROM main.\(Connection.quote(identifier: table.name))")
                    return .init(name: table.name, type: table.type, rowCount: count, columnCount: table.columnCount,
                                 isWithoutRowID: table.isWithoutRowID, isStrict: table.isStrict, error: nil)
                } catch let error as SQLiteError {
                    return .init(name: table.name, type: table.type, rowCount: nil, columnCount: table.columnCount,
                                 isWithoutRowID: table.isWithoutRowID, isStrict: table.isStrict,
                                 error: error.shownMessage)
                } catch {
                    return .init(name: table.name, type: table.type, rowCount: nil, columnCount: table.columnCount,
                                 isWithoutRowID: table.isWithoutRowID, isStrict: table.isStrict,
                                 error: SQLiteMessage.text(of: error))
                }
            }

            let ftsTables = schema.fts5Tables.map { fts -> InspectReport.FTSTable in
                let sync = fts.contentMode == .external ? schema.syncTriggers(for: fts) : nil
                return InspectReport.FTSTable(
                    name: fts.name, columns: fts.columns, unindexedColumns: fts.unindexedColumns,
                    contentMode: fts.contentMode.rawValue, content: fts.contentTable, contentRowID: fts.contentRowID,
                    tokenize: fts.tokenizer, options: fts.options, syncTriggers: sync,
                    missingSyncTriggers: sync?.missing ?? [])
            }
            for fts in ftsTables where !fts.missingSyncTriggers.isEmpty {
                warnings.append("\(fts.name) has no \(fts.missingSyncTriggers.joined(separator: ", ")) sync trigger on \(fts.content ?? "its content table")")
            }
            if !library.fts5Available && !ftsTables.isEmpty {
                warnings.append("this SQLite cannot create FTS5 tables: full-text search will not work here")
            }

            // A damaged file can still show its schema: say so, as sqlite3's quick_check would.
            let quickCheck: InspectReport.QuickCheck
            do {
                let check = try DatabaseChecks.integrity(on: connection, quick: true, maximumErrors: 20)
                quickCheck = .init(passed: check.passed, problems: check.shownProblems)
            } catch let error as SQLiteError where !error.isInterrupt {
                quickCheck = .init(passed: false, problems: ["quick_check could not run: \(error.messageAndCode)"])
            }
            if !quickCheck.passed {
                warnings.append("quick_check found problems: the file is damaged (\(quickCheck.problems.count) finding\(quickCheck.problems.count == 1 ? "" : "s") listed under quickCheck); steward verify proves it")
            }

            var report = InspectReport(
                stewardVersion: StewardVersion.current, kind: .database, sqlite: library,
                file: .init(sizeBytes: probe.size, isEmpty: false, walExists: walExists, shmExists: shmExists,
                            journalExists: journalExists, openedAs: openedAs),
                database: try Self.readerFacts(connection, path: path, pageCount: pageCount, freelistCount: freelist),
                fileHeader: .init(
                    pageSize: header.pageSize, pageCount: Int(header.pageCount), freelistCount: Int(header.freelistCount),
                    textEncoding: header.textEncodingName, journalMode: header.journalName,
                    writeVersion: Int(header.writeVersion), readVersion: Int(header.readVersion),
                    userVersion: header.userVersion, applicationID: header.applicationID,
                    autoVacuum: header.autoVacuumName, schemaFormat: Int(header.schemaFormat),
                    writtenBySQLite: Int(header.sqliteVersionNumber)),
                journalMode: journalMode,
                tables: tables, indexes: schema.indexes,
                triggers: schema.triggers.map { .init(name: $0.name, table: $0.table, timing: $0.timing, event: $0.event) },
                views: schema.views, ftsTables: ftsTables, warnings: warnings)
            report.quickCheck = quickCheck
            return report
        } catch let error as SQLiteError {
            throw DatabaseFile.explain(error, path: path)
        }
    }

    /// The settings as a reader sees them: the main file's header of a live WAL database
    /// can be older than what the -wal holds, so they are asked of the connection.
    private static func readerFacts(_ connection: Connection, path: String, pageCount: Int64, freelistCount: Int64) throws -> InspectReport.DatabaseFacts {
        let autoVacuum: String
        switch try connection.integer(sql: "PRAGMA auto_vacuum") {
        case 1: autoVacuum = "full"
        case 2: autoVacuum = "incremental"
        default: autoVacuum = "none"
        }
        return InspectReport.DatabaseFacts(
            path: path,
            pageSize: Int(try connection.integer(sql: "PRAGMA page_size")),
            pageCount: Int(pageCount), freelistCount: Int(freelistCount),
            textEncoding: try connection.scalar(sql: "PRAGMA encoding")?.textValue ?? "unknown",
            userVersion: Int32(truncatingIfNeeded: try connection.integer(sql: "PRAGMA user_version")),
            applicationID: Int32(truncatingIfNeeded: try connection.integer(sql: "PRAGMA application_id")),
            autoVacuum: autoVacuum,
            schemaVersion: Int(try connection.integer(sql: "PRAGMA schema_version")))
    }

    /// Opens the file and reads its schema once, which is when SQLite first touches it.
    private static func openAndRead(path: String, immutable: Bool) throws -> Connection {
        let connection = try DatabaseFile.open(path: path, immutable: immutable)
        _ = try connection.integer(sql: "SELECT count(*) FROM sqlite_schema")
        return connection
    }
}
