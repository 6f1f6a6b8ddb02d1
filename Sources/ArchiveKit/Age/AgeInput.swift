import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A buffered reader over a byte source: header lines first, then exact-size reads of
/// payload chunks.
final class AgeInput {
    /// Fills the buffer with up to its size; 0 at the end of the input.
    typealias Source = (UnsafeMutableRawBufferPointer) throws -> Int

    private let source: Source
    private var buffer: [UInt8] = []
    private var position = 0
    private var isAtEnd = false
    /// Bytes handed out so far.
    private(set) var offset: Int64 = 0

    init(source: @escaping Source) {
        self.source = source
    }

    /// Reads more into the buffer; false at the end of the input.
    private func refill() throws -> Bool {
        guard !isAtEnd else { return false }
        if position > 0 {
            buffer.removeFirst(position)
            position = 0
        }
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = try chunk.withUnsafeMutableBytes { try source($0) }
        guard count > 0 else {
            isAtEnd = true
            return false
        }
        buffer += chunk.prefix(count)
        return true
    }

    /// The next line without its LF; nil at the end of the input before any byte.
    /// Throws `tooLong` when no LF comes within `limit` bytes, `unterminated` when the
    /// input ends inside the line.
    enum LineFailure: Error {
        case tooLong
        case unterminated
    }

    func readLine(limit: Int) throws -> [UInt8]? {
        // Bytes after `position` already searched for a LF, kept across refills (which
        // move the unread bytes to the front of the buffer).
        var searched = 0
        while true {
            if let newline = buffer[(position + searched)...].firstIndex(of: 0x0A) {
                guard newline - position <= limit else { throw LineFailure.tooLong }
                let line = Array(buffer[position..<newline])
                offset += Int64(newline + 1 - position)
                position = newline + 1
                return line
            }
            searched = buffer.count - position
            guard searched <= limit else { throw LineFailure.tooLong }
            guard try refill() else {
                if searched == 0 { return nil }
                throw LineFailure.unterminated
            }
        }
    }

    /// Fills `target` as far as the input allows; returns the count (short only at the end).
    func read(into target: UnsafeMutableRawBufferPointer) throws -> Int {
        var filled = 0
        // Bytes left from the header's buffering first.
        if position < buffer.count {
            let count = min(buffer.count - position, target.count)
            buffer.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress else { return }
                target.baseAddress?.copyMemory(from: base + position, byteCount: count)
            }
            position += count
            filled = count
        }
        while filled < target.count, !isAtEnd {
            let count = try source(UnsafeMutableRawBufferPointer(rebasing: target[filled...]))
            if count == 0 { isAtEnd = true } else { filled += count }
        }
        offset += Int64(filled)
        return filled
    }
}
