import Foundation
import SQLiteKit

#if canImport(Glibc)
import Glibc
#endif

extension Migrator {
    func installHandlers(on connection: Connection) {
        let cancellation = self.cancellation
        lockWaits.attach(to: connection)
        let progress = self.progress
        let currentWork = self.currentWork
        var started = Date()
        var lastTick = Date()
        connection.setProgressHandler(instructions: 10_000) {
            if cancellation.isCancelled { return false }
            if let (phase, table, isNew) = currentWork.next() {
                let now = Date()
                if isNew { started = now }
                if now.timeIntervalSince(lastTick) >= 0.2 {
                    lastTick = now
                    progress(.working(phase: phase, table: table, seconds: now.timeIntervalSince(started)))
                }
            }
            return true
        }
    }
}
