import SQLiteKit
import StewardBase

extension Verifier {
    /// The query-plan contract's hot queries, planned with EXPLAIN QUERY PLAN on a
    /// read-only connection to the database: each must use its index, or not scan its
    /// table whole.
    func checkPlans(_ plans: PlanContract, path: String, header: DatabaseHeader?, results: CheckResults) throws {
        guard let connection = try openReadOnly(path: path, header: header, results: results) else { return }
        timed(.plans, into: results) {
            let outcomes = plans.check(on: connection)
            let failed = outcomes.filter { !$0.passed }
            let summary = failed.isEmpty
                ? "\(Counted.phrase(outcomes.count, "query", plural: "queries")) of \(plans.version) planned as the contract says"
                : "\(failed.count) of \(Counted.phrase(outcomes.count, "query", plural: "queries")) of \(plans.version) regressed"
            return Check(.plans, passed: failed.isEmpty, summary, failed.map(\.failure))
        }
    }
}
