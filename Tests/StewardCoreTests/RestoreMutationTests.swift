import ArchiveKit
import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// Random bytes changed in a small valid bundle, restored in-process: never a crash, a hang
/// or an unexpected kind of error, and success only with the original payload, byte for
/// byte. Half of the mutants change the compressed bytes (mostly refused by zstd); the
/// other half change the tar stream inside and are compressed again, so that mutations
/// reach the tar headers, the manifest and the payload. (The end-to-end suite runs a
/// subset through the binary.)
@Suite struct RestoreMutationTests {
    static let count = 160
    static let seed: UInt64 = 20_261_130

    @Test func mutatedBundlesAreRefusedOrRestoredIdentically() throws {
        let example = try ExampleBundle()
        let original = Array(try #require(FileManager.default.contents(atPath: example.path)))
        let tar = try TarBuilder.zstd(original, arguments: ["-dc"])
        let work = try TemporaryDirectory(prefix: "steward-mutation")

        var mutants = BundleMutation.mutants(of: original, count: Self.count, seed: Self.seed)
        for mutant in BundleMutation.mutants(of: tar, count: Self.count, seed: Self.seed + 1) {
            mutants.append(("tar " + mutant.description, try TarBuilder.zstd(mutant.bytes)))
        }
        var outcomes: [String: Int] = [:]
        for (index, mutant) in ([("control: the bundle unchanged", original)] + mutants).enumerated() {
            let bundle = work.file("m\(index).tar.zst")
            try Data(mutant.bytes).write(to: URL(fileURLWithPath: bundle))
            let into = work.file("r\(index)")
            switch Self.restoreWithTimeout(bundle: bundle, into: into, seconds: 20) {
            case .success(let report) where report.published:
                let restored = FileManager.default.contents(atPath: report.database.path).map(Array.init)
                #expect(restored == example.parts.payload, "\(mutant.description) was published with a different database")
                outcomes["0", default: 0] += 1
                try FileManager.default.removeItem(atPath: into)
            case .success(let report):
                outcomes["1 (\(report.failedChecks.joined(separator: ",")))", default: 0] += 1
            case .failure(let error):
                #expect(error.kind == .badInput, "\(mutant.description): \(error.kind) \(error.message)")
                outcomes["65", default: 0] += 1
            case nil:
                Issue.record("\(mutant.description) did not finish within 20 s")
                return
            }
            if index == 0 { #expect(outcomes["0"] == 1, "the unchanged bundle is restored") }
            try FileManager.default.removeItem(atPath: bundle)
            let left = try work.contents()
            #expect(left.isEmpty, "\(mutant.description) left \(left)")
        }
        print("mutation outcomes (\(mutants.count) mutants and a control, seed \(Self.seed)): \(outcomes.sorted { $0.key < $1.key })")
        #expect(outcomes.values.reduce(0, +) == mutants.count + 1)
        #expect((outcomes["65"] ?? 0) > mutants.count / 2, "\(outcomes)")
    }

    /// Runs a restore on a thread of its own; nil when it did not finish in time.
    static func restoreWithTimeout(bundle: String, into: String, seconds: Double) -> Result<RestoreReport, StewardError>? {
        final class Box: @unchecked Sendable { var result: Result<RestoreReport, StewardError>? }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        let cancellation = Cancellation()
        Thread.detachNewThread {
            box.result = Result {
                try Restorer(options: .init(bundlePath: bundle, intoDirectory: into), cancellation: cancellation).run()
            }.mapError { $0 as? StewardError ?? StewardError(.internal, "\($0)") }
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else {
            cancellation.cancel(reason: "timeout")
            return nil
        }
        return box.result
    }
}
