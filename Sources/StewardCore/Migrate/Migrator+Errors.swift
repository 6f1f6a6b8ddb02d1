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

    func explain(_ error: SQLiteError, waitingForLock: Bool, context: String? = nil) -> StewardError {
        let prefix = context.map { "\($0): " } ?? ""
        if error.isInterrupt || cancellation.isCancelled {
            return StewardError.interrupted(by: cancellation, "; nothing changed")
        }
        if error.isOutOfMemory {
            return StewardError(.inputOutput, "\(prefix)out of memory while migrating \(options.databasePath); nothing changed")
        }
        if error.isBusy {
            return StewardError.gaveUp(on: options.databasePath, after: options.timeout, error.message, prefix: prefix)
        }
        if error.code == .readOnly {
            return StewardError(.cannotCreate, "\(prefix)cannot write to \(options.databasePath): \(error.message)")
        }
        if error.isInputOutput {
            return StewardError(.inputOutput, "\(prefix)\(options.databasePath): \(error.message)")
        }
        // Whatever is running here reads rows: only a constraint's message, which names
        // the constraint, is shown (no row data in any message).
        return StewardError(.badInput, "\(prefix)\(options.databasePath): \(error.safeDescription)")
    }
}
