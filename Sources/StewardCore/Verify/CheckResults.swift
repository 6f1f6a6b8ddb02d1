import Synchronization
import StewardBase

/// Results gathered from the checks running on several threads.
final class CheckResults: Sendable {
    private struct State {
        var checks: [CheckName: CheckResult] = [:]
        var cases: [VerifyReport.ContractCase] = []
        var firstError: StewardError?
    }

    private let state = Mutex(State())

    func add(_ check: CheckResult, as name: CheckName) {
        state.withLock { $0.checks[name] = check }
    }

    func skip(_ name: CheckName, _ reason: String) {
        add(.skipped(name, reason), as: name)
    }

    /// Skipped because the run was not given `input` (the CLI names the option).
    func skip(_ name: CheckName, missing input: CheckResult.MissingInput) {
        add(.skipped(name, missing: input), as: name)
    }

    /// The check `name` failed for want of what `remedy` gives (the CLI names the option).
    func attach(_ remedy: StewardError.Remedy, to name: CheckName) {
        state.withLock { $0.checks[name]?.remedy = remedy }
    }

    func check(named name: CheckName) -> CheckResult? {
        state.withLock { $0.checks[name] }
    }

    /// An error that stops the whole run (bad input, interruption); the first one counts.
    func fail(_ error: StewardError) {
        state.withLock { if $0.firstError == nil { $0.firstError = error } }
    }

    /// The file changed under the run's reads (a program cut it short without SQLite's
    /// locks): whatever another check's thread found first ("the database is damaged",
    /// reading the same cut file) is not to be trusted, so this error replaces it; an
    /// interruption by a signal still wins.
    func failChanged(_ error: StewardError) {
        state.withLock { state in
            if state.firstError?.kind != .interrupted { state.firstError = error }
        }
    }

    var error: StewardError? {
        state.withLock { $0.firstError }
    }

    var contractCases: [VerifyReport.ContractCase] {
        get { state.withLock { $0.cases } }
        set { state.withLock { $0.cases = newValue } }
    }
}
