import Foundation
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// The write-back of a file being published starts a window at a time, and the rest at
/// the end; a kernel that refuses the hint turns it off without failing the write.
@Suite struct WriteBackTests {
    @Test func aWindowAtATimeThenTheRest() throws {
        let directory = try TemporaryDirectory()
        let descriptor = open(directory.file("bundle"), O_WRONLY | O_CREAT | O_EXCL, 0o600)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        let bytes = [UInt8](repeating: 7, count: 9 << 20)
        #expect(bytes.withUnsafeBytes { SystemCall.writeAll(descriptor, $0) } == 0)

        var writeBack = WriteBack(from: 16384)
        #expect(writeBack.advance(descriptor, to: 1 << 20) == nil)
        #expect(writeBack.start == 16384, "less than a window: nothing started")
        #expect(writeBack.advance(descriptor, to: 16384 + WriteBack.window) == nil)
        #expect(writeBack.start == 16384 + WriteBack.window)
        #expect(writeBack.advance(descriptor, to: 9 << 20, final: true) == nil)
        #expect(writeBack.start == 9 << 20)
    }

    @Test func aRefusedHintTurnsItOff() {
        var writeBack = WriteBack()
        #expect(writeBack.advance(-1, to: WriteBack.window) == nil, "EBADF is not a failed write")
        #expect(writeBack.start == WriteBack.window)
        #expect(writeBack.advance(-1, to: 3 * WriteBack.window, final: true) == nil)
        #expect(writeBack.start == WriteBack.window, "off: nothing more is asked of the kernel")
    }
}
