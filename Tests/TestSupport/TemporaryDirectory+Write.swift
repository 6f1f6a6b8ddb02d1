import Foundation

extension TemporaryDirectory {
    /// Writes `text` to `relativePath` inside the directory, making the folders on the way
    /// (a migration set's `migrations/0001_init/up.sql`, say).
    public func write(_ text: String, to relativePath: String) throws {
        let path = file(relativePath)
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }
}
