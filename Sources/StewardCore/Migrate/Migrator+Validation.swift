import Foundation
import SQLiteKit

extension Migrator {
    /// `--dry-run` copies the whole database into memory: a file larger than the memory
    /// available is refused before the copy, rather than failing (or swapping) half way.
    func checkMemory(for source: Connection) throws {
        let bytes: Int64
        do {
            // Through the connection, so a WAL database counts the pages still in its -wal.
            bytes = try source.integer(sql: "PRAGMA page_count") * source.integer(sql: "PRAGMA page_size")
        } catch let error as SQLiteError {
            throw readFailure(error)
        }
        guard let available = AvailableMemory.bytes, bytes > available else { return }
        throw StewardError(
            .inputOutput,
            "a dry run keeps a whole copy of the database in memory, and \(options.databasePath) "
                + "(\(AvailableMemory.megabytes(bytes)) MB) is larger than the memory available "
                + "(\(AvailableMemory.megabytes(available)) MB); dry-run on a smaller copy or migrate a copy of the file instead")
    }

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

    /// Checks `scripts` on a private copy of the schema of `connection` (no rows): for a set
    /// whose first files alter tables made elsewhere.
    func validate(_ scripts: [MigrationScript], onSchemaOf connection: Connection) throws {
        let scratch = try withExtensions(Connection.inMemory())
        try sqlite { try SchemaCopy.copy(from: connection, to: scratch) }
        let cancellation = self.cancellation
        scratch.setProgressHandler(instructions: 10_000) { !cancellation.isCancelled }
        for script in scripts {
            try script.apply(on: scratch, cancellation: cancellation, schemaOnly: true)
        }
    }
}
