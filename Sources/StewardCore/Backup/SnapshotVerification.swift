import Foundation
import SQLiteKit

/// The checks on the copy (field notes §3): `integrity_check` says exactly `ok`,
/// `foreign_key_check` finds nothing, `user_version` is the source's, and the header says
/// rollback journal. The SHA-256 of the copy is computed at the same time on another
/// thread: both read the same finished file, and nothing writes it any more.
struct SnapshotVerification {
    struct Result {
        let checks: BundleManifest.Checks
        let digest: BackgroundFileDigest.Digest
    }

    let copyPath: String
    let source: BundleManifest.Source
    let cancellation: Cancellation

    /// Throws `.checkFailed` (exit 1) when any check fails: such a copy is never bundled.
    func run() throws -> Result {
        let watch = Stopwatch()
        let hashing = BackgroundFileDigest(path: copyPath, cancellation: cancellation)
        hashing.start()
        defer {
            hashing.cancel()
            _ = try? hashing.wait()
        }

        let findings: Findings
        do {
            findings = try check()
        } catch let error as SQLiteError {
            if error.isInterrupt || cancellation.isCancelled {
                throw StewardError(.interrupted, "interrupted by \(cancellation.reason ?? "a signal"); no bundle was written")
            }
            throw StewardError(.checkFailed, "refusing to publish: the copy cannot be checked: \(error.message)")
        }
        let digest: BackgroundFileDigest.Digest
        do {
            digest = try hashing.wait()
        } catch let error as StewardError where error.kind == .interrupted {
            throw StewardError(.interrupted, "interrupted by \(cancellation.reason ?? "a signal"); no bundle was written")
        }

        var problems: [String] = []
        if findings.integrity != ["ok"] {
            problems.append("integrity_check: \(findings.integrity.joined(separator: "; "))")
        }
        if !findings.violations.isEmpty {
            problems.append("foreign_key_check: \(Self.summary(of: findings.violations))")
        }
        if findings.userVersion != source.userVersion {
            problems.append("user_version is \(findings.userVersion), the source's is \(source.userVersion)")
        }
        let header = try? DatabaseHeader(bytes: digest.header)
        if findings.journalMode != "delete" || header?.writeVersion != 1 || header?.readVersion != 1 {
            problems.append("the copy is not in rollback-journal mode (journal_mode \(findings.journalMode), header bytes 18-19 \(digest.header.dropFirst(18).prefix(2).map(String.init)))")
        }
        guard problems.isEmpty else {
            throw StewardError(.checkFailed, "refusing to publish: the copy fails its checks: \(problems.joined(separator: "; "))")
        }
        return Result(
            checks: .init(
                integrityCheck: "ok", foreignKeyViolations: 0, userVersion: findings.userVersion,
                userVersionMatchesSource: true, journalMode: findings.journalMode,
                writeVersion: Int(header?.writeVersion ?? 0), readVersion: Int(header?.readVersion ?? 0),
                durationSeconds: watch.roundedSeconds),
            digest: digest)
    }

    private struct Findings {
        let integrity: [String]
        let violations: [Connection.ForeignKeyViolation]
        let userVersion: Int32
        let journalMode: String
    }

    private func check() throws -> Findings {
        // Immutable: no locks at all, so the hashing thread's descriptor on the same file
        // cannot drop any, and nothing is created beside the copy.
        let connection = try Connection(path: FileProbe.uri(for: copyPath, query: "mode=ro&immutable=1"), mode: [.readOnly, .uri])
        let cancellation = self.cancellation
        connection.setProgressHandler(instructions: 100_000) { !cancellation.isCancelled }
        let integrity = try connection.integrityCheck(maximumErrors: 10)
        let violations = try connection.foreignKeyViolations()
        return Findings(
            integrity: integrity, violations: violations, userVersion: try connection.userVersion(),
            journalMode: try connection.journalMode())
    }

    /// `ticket → customer: 3` per pair of tables; never the rows.
    static func summary(of violations: [Connection.ForeignKeyViolation]) -> String {
        var counts: [String: Int] = [:]
        for violation in violations { counts["\(violation.table) → \(violation.parent)", default: 0] += 1 }
        return counts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
    }
}
