import Foundation
import TestSupport

extension TemporaryDirectory {
    /// Writes an archive's bytes to `name` in the directory; returns its path.
    func save(_ bytes: [UInt8], as name: String = "a.tar.zst") throws -> String {
        let path = file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}
