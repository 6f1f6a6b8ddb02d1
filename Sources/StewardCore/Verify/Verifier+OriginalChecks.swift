import Foundation
import SQLiteKit

extension Verifier {
    /// A hardened read-only connection to the database for checks; nil, with the run's
    /// error recorded, when SQLite cannot open it.
    func openReadOnly(path: String, header: DatabaseHeader?, results: CheckResults) throws -> Connection? {
        do {
            let connection = try DatabaseFile.openReadOnly(path: path, header: header, waits: lockWaits)
            try connection.harden(loadingExtensions: options.extensions)
            return connection
        } catch let error as SQLiteError {
            // The connection waited up to the timeout: busy here means it gave up.
            results.fail(SQLiteErrorMapping(path: path, role: .database, cancellation: cancellation,
                                            lockTimeout: options.timeout).error(for: error))
        }
        return nil
    }

    func checkOriginal(
        path: String, header: DatabaseHeader?, quick: Bool, expectedVersion: Int32?, integrityInPlace: Bool,
        expectation: MigrationExpectation?, results: CheckResults, facts: DatabaseFactsBox
    ) throws {
        guard let connection = try openReadOnly(path: path, header: header, results: results) else { return }
        let cancellation = self.cancellation
        connection.setProgressHandler(instructions: 100_000) { !cancellation.isCancelled }

        timed(.sqlite, into: results) {
            let canCreate = SQLiteLibrary.canCreateFTS5(on: connection)
            let options = SQLiteLibrary.compileOptions.filter { $0.hasPrefix("ENABLE_FTS") }
            let summary = canCreate
                ? "SQLite \(SQLiteLibrary.version); an FTS5 table can be created on this connection"
                : "SQLite \(SQLiteLibrary.version); FTS5 unavailable: no FTS5 table can be created on this connection"
            return Check(.sqlite, passed: canCreate, summary, options)
        }

        // integrity_check skips views, triggers and virtual tables: one that no longer
        // prepares (a table it names was dropped, a module not loaded) passes it, and
        // restore refuses the file. The one check restore and backup run too.
        var missingModule = false
        timed(.schemaObjects, into: results) {
            let check = try DatabaseChecks.schemaObjects(on: connection)
            missingModule = check.missingModule
            return check
        }
        if missingModule { results.attach(.loadExtension, to: .schemaObjects) }

        if integrityInPlace {
            timed(.integrity, into: results) {
                // This read transaction holds a shared lock while the read-write connection
                // reads: should a hot journal appear meanwhile, that connection cannot take
                // the exclusive lock it needs to roll it back into the file.
                try connection.execute(sql: "BEGIN")
                defer { connection.rollbackIfNeeded() }
                _ = try connection.integer(sql: "SELECT count(*) FROM sqlite_schema")
                let checker: Connection
                do {
                    checker = try IntegrityCheck.open(
                        path: path, followLinks: true, loadingExtensions: options.extensions, waits: lockWaits) { cancellation.isCancelled }
                } catch is IntegrityCheck.NotWritable {
                    return Check(.integrity, passed: false, "cannot run: SQLite opened the file read-only, which would leave CHECK constraints unchecked", [])
                }
                return try DatabaseChecks.integrity(on: checker, quick: quick, maximumErrors: 20)
            }
        }

        timed(.foreignKeys, into: results) {
            try DatabaseChecks.foreignKeys(on: connection)
        }

        var schema: Schema?
        timed(.ftsTriggers, into: results) {
            let read = try Schema(reading: connection)
            schema = read
            return try FTSSyncTriggersCheck.check(read, on: connection, deferred: options.ftsDeferred)
        }
        if let schema {
            facts.ftsTables = schema.fts5Tables.map {
                .init(name: $0.name, columns: $0.columns, contentMode: $0.contentMode.rawValue, content: $0.contentTable,
                      contentRowID: $0.contentRowID, tokenize: $0.tokenizer, options: $0.options)
            }
        }

        let version = (try? connection.userVersion()) ?? header?.userVersion ?? 0
        facts.userVersion = version
        // Where the runner's ledger is the record, it says how far the database is, unless a
        // user_version was asked for.
        let fromLedger = options.expectedVersion == nil ? (try? expectation?.checkVersionFromLedger(on: connection)) ?? nil : nil
        if let fromLedger {
            timed(.version, into: results) { fromLedger }
        } else if let expectedVersion {
            timed(.version, into: results) { DatabaseChecks.userVersion(version, expected: expectedVersion) }
        } else {
            results.skip(.version, missing: .expectedVersion)
        }
        if let expectation, expectation.hasLedger {
            timed(.ledger, into: results) { try expectation.checkLedger(on: connection) ?? Check(.ledger, passed: true, "") }
        } else if expectation != nil {
            results.skip(.ledger, "the set is in Steward's own layout: user_version is its record (see version)")
        } else {
            results.skip(.ledger, missing: .migrations)
        }
        checkSchema(on: connection, version: version, expectation: expectation, results: results)
    }

    /// Drift: the schema against what the migrations the database has applied make, in
    /// every layout (`SchemaDriftCheck`, as `migrate` checks a database before migrating it).
    func checkSchema(
        on connection: Connection, version: Int32, expectation: MigrationExpectation?, results: CheckResults
    ) {
        guard options.migrationsDirectory != nil else {
            results.skip(.schema, missing: .migrations)
            return
        }
        guard let expectation else {
            results.add(.init(name: .schema, status: .fail, summary: "cannot run: the migration set could not be read",
                              durationSeconds: 0, details: []), as: .schema)
            return
        }
        let watch = Stopwatch()
        let found = SchemaDriftCheck(extensions: options.extensions).compare(on: connection, set: expectation.set, cancellation: cancellation)
        // Asked for by --migrations: a comparison that cannot be made fails, saying why
        // (never "skipped" with exit 0); it is timed only once known, so the progress
        // line never announces it as passed first.
        if found.status == .skipped {
            timed(.schema, into: results, since: watch) {
                Check(.schema, passed: false, "cannot run: \(found.reason ?? "the schema could not be compared")", [])
            }
            return
        }
        timed(.schema, into: results, since: watch) {
            found.status == .drift
                ? Check(.schema, passed: false, "the schema differs from what the migration set makes at version \(found.builtTo)", found.differences)
                : Check(.schema, passed: true, "the schema is what the migration set makes at version \(found.builtTo)", [])
        }
    }
}
