import Foundation
import SQLiteKit
import StewardBase

extension Verifier {
    func checkContract(_ contract: SearchContract, set: DialectSet, results: CheckResults) throws {
        progress(.started(check: .searchContract))
        let watch = Stopwatch()
        guard SQLiteLibrary.canCreateFTS5() else {
            let check = CheckResult(
                name: .searchContract, status: .fail, summary: "cannot run: FTS5 unavailable",
                durationSeconds: watch.roundedSeconds, details: [])
            results.add(check, as: .searchContract)
            progress(.finished(check: .searchContract, status: .fail, seconds: check.durationSeconds))
            return
        }
        let cases: [VerifyReport.ContractCase]
        do {
            cases = try ContractRunner(contract: contract, set: set, cancellation: cancellation).run()
        } catch let error as StewardError {
            results.fail(error)
            return
        } catch let error as SQLiteError {
            results.fail(StewardError(.badInput, "the search contract cannot run: \(error.shownMessage)"))
            return
        }
        results.contractCases = cases
        let failed = cases.filter { !$0.passed }
        let disagreeing = cases.filter { !$0.agree }.map(\.name)
        var details = failed.map { item in
            "\(item.name): expected \(item.expected); fresh \(item.fresh); migrated \(item.migrated)"
        }
        if !disagreeing.isEmpty {
            details.insert("fresh and migrated databases disagree on: \(disagreeing.joined(separator: ", "))", at: 0)
        }
        let summary = failed.isEmpty
            ? "\(Counted.phrase(cases.count, "case")) passed on the fresh and the migrated database (contract \(contract.version))"
            : "\(failed.count) of \(Counted.phrase(cases.count, "case")) failed: \(failed.map(\.name).joined(separator: ", "))"
        let check = CheckResult(
            name: .searchContract, status: failed.isEmpty ? .pass : .fail, summary: summary,
            durationSeconds: watch.roundedSeconds, details: details)
        results.add(check, as: .searchContract)
        progress(.finished(check: .searchContract, status: check.status, seconds: check.durationSeconds))
    }
}
