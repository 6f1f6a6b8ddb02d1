import Foundation

final class DatabaseFactsBox: @unchecked Sendable {
    private let lock = NSLock()
    private var version: Int32?
    private var tables: [VerifyReport.FTSTable] = []

    var userVersion: Int32? {
        get { lock.lock(); defer { lock.unlock() }; return version }
        set { lock.lock(); version = newValue; lock.unlock() }
    }

    var ftsTables: [VerifyReport.FTSTable] {
        get { lock.lock(); defer { lock.unlock() }; return tables }
        set { lock.lock(); tables = newValue; lock.unlock() }
    }
}
