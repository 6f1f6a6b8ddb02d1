extension Array where Element == UInt8 {
    /// Hands the bytes to `write` in blocks of `size` (the last one shorter), as a writer
    /// of a stream is fed.
    func feed(inBlocksOf size: Int, to write: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        var offset = 0
        while offset < count {
            let end = Swift.min(offset + size, count)
            try self[offset..<end].withUnsafeBytes { try write($0) }
            offset = end
        }
    }
}
