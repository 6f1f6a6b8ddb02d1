/// The two line-ending forms of a file's bytes, to tell a changed file from one whose line
/// endings were converted (by git's autocrlf, or an editor).
enum LineEndings {
    /// Every CRLF read as LF.
    static func unix(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A {
                index += 1
                continue
            }
            result.append(bytes[index])
            index += 1
        }
        return result
    }

    /// Every LF written as CRLF (after reading CRLF as LF, so none is doubled).
    static func windows(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + bytes.count / 16)
        for byte in unix(bytes) {
            if byte == 0x0A { result.append(0x0D) }
            result.append(byte)
        }
        return result
    }
}
