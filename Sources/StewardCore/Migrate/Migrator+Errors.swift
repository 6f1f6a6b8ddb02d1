import Foundation
import SQLiteKit

extension Migrator {
    func sqlite<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw explain(error, waitingForLock: false)
        }
    }

    /// An error on the database inside the run: busy means the run gave up after its timeout.
    func explain(_ error: SQLiteError, waitingForLock: Bool, context: String? = nil) -> StewardError {
        SQLiteErrorMapping(path: options.databasePath, role: .migratedDatabase, cancellation: cancellation,
                           interruptedDetail: "; nothing changed", lockTimeout: options.timeout, context: context).error(for: error)
    }
}
