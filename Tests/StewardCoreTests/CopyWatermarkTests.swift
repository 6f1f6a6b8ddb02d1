@testable import BundleFormat
import Foundation
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// The compression that follows backup's kernel copy: it reads a file while it is still
/// being written, never past the copy, exactly the entry's bytes.
@Suite struct CopyWatermarkTests {
    let workspace: Workspace
    var path: String { workspace.database }

    init() throws {
        workspace = try Workspace(database: "copy.sqlite", making: [])
        FileManager.default.createFile(atPath: path, contents: nil)
    }

    func bytes(_ count: Int, seed: UInt8) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) &+ seed })
    }

    @Test func aReaderFollowsTheCopyAndReadsExactlyTheEntrysBytes() throws {
        let mark = CopyWatermark()
        let chunk = FileStreaming.blockSize + FileStreaming.blockSize / 2
        let chunks = (0..<3).map { bytes(chunk, seed: UInt8($0)) }
        let expected = chunks.reduce(Data(), +)
        let path = self.path
        let writer = Thread {
            guard let handle = FileHandle(forWritingAtPath: path) else { return mark.abandon() }
            var written: Int64 = 0
            for data in chunks {
                Thread.sleep(forTimeInterval: 0.05)
                handle.write(data)
                written += Int64(data.count)
                mark.advance(to: written)
            }
            // Bytes past the pages, cut off later: never read.
            handle.write(Data(repeating: 0x5A, count: 5000))
            try? handle.close()
            mark.complete()
        }
        writer.start()
        var read = Data()
        let total = try FileStreaming.forEachBlock(of: path, size: Int64(expected.count), following: mark, isCancelled: { false }) {
            read.append(contentsOf: $0)
        }
        #expect(total == Int64(expected.count))
        #expect(read == expected)
    }

    @Test func aReaderBehindAnAbandonedCopyStops() throws {
        let mark = CopyWatermark()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { mark.abandon() }
        #expect(throws: CopyWatermark.Abandoned.self) {
            _ = try FileStreaming.forEachBlock(of: path, size: 4096, following: mark, isCancelled: { false }) { _ in }
        }
        #expect(!mark.isComplete)
    }

    @Test func aStoppedReaderDoesNotWaitForTheCopy() throws {
        let mark = CopyWatermark()
        let stop = Cancellation()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { stop.cancel(reason: "test") }
        let error = try #require(throws: StewardError.self) {
            _ = try FileStreaming.forEachBlock(of: path, size: 4096, following: mark, isCancelled: { stop.isCancelled }) { _ in }
        }
        #expect(error.kind == .interrupted)
    }

    @Test func aCompleteMarkIsNotTakenBackByAdvancing() {
        let mark = CopyWatermark()
        mark.advance(to: 10)
        mark.complete()
        mark.advance(to: 20)
        #expect(mark.isComplete)
    }

    @Test func aCompleteMarkCanStillBeAbandoned() {
        let mark = CopyWatermark()
        mark.complete()
        mark.abandon()
        #expect(!mark.isComplete)
    }

    @Test func theHookWaitsForTheReader() {
        let mark = CopyWatermark()
        #expect(!mark.waitForReader(seconds: 0.05))
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { mark.finishReading() }
        #expect(mark.waitForReader(seconds: 10))
    }
}
