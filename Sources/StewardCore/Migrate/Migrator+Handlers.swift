import Foundation
import SQLiteKit

#if canImport(Glibc)
import Glibc
#endif

extension Migrator {
    func installHandlers(on connection: Connection) {
        let cancellation = self.cancellation
        let timeout = options.timeout
        // Each wait for a lock gets the whole timeout; a cancelled run stops waiting.
        var waitStart = Date()
        connection.setBusyHandler { count in
            if count == 0 { waitStart = Date() }
            if cancellation.isCancelled { return false }
            guard Date().timeIntervalSince(waitStart) < timeout else { return false }
            usleep(useconds_t(min(50_000, 2_000 * (count + 1))))
            return true
        }
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
