import Foundation

/// A directory of its own for one test, removed when the value is released.
public final class TemporaryDirectory: @unchecked Sendable {
    public let url: URL
    public var path: String { url.path }

    public init(prefix: String = "steward-test") throws {
        let base = FileManager.default.temporaryDirectory
        let url = base.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        // Readable by an unprivileged user, for tests that run the binary as one.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        self.url = url
    }

    deinit {
        // Tests may leave read-only directories behind; make them writable to remove them.
        if let enumerator = FileManager.default.enumerator(atPath: url.path) {
            for case let relative as String in enumerator {
                let path = url.appendingPathComponent(relative).path
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                    try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
                }
            }
        }
        try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        try? FileManager.default.removeItem(at: url)
    }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// Names of the entries in the directory (or a subdirectory), sorted.
    public func contents(of subdirectory: String? = nil) throws -> [String] {
        let path = subdirectory.map { file($0) } ?? self.path
        return try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }
}
