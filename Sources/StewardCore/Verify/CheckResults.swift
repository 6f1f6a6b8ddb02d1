import Foundation

/// Results gathered from the checks running on several threads.
final class CheckResults: @unchecked Sendable {
    private let lock = NSLock()
    private var checks: [String: VerifyReport.Check] = [:]
    private var cases: [VerifyReport.ContractCase] = []
    private var firstError: StewardError?

    func add(_ check: VerifyReport.Check) {
        lock.lock(); defer { lock.unlock() }
        checks[check.name] = check
    }

    func check(named name: String) -> VerifyReport.Check? {
        lock.lock(); defer { lock.unlock() }
        return checks[name]
    }

    /// An error that stops the whole run (bad input, interruption).
    func fail(_ error: StewardError) {
        lock.lock(); defer { lock.unlock() }
        if firstError == nil { firstError = error }
    }

    var error: StewardError? {
        lock.lock(); defer { lock.unlock() }
        return firstError
    }

    var contractCases: [VerifyReport.ContractCase] {
        get { lock.lock(); defer { lock.unlock() }; return cases }
        set { lock.lock(); cases = newValue; lock.unlock() }
    }
}
