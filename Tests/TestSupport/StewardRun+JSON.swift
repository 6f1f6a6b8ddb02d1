import Foundation

/// Reading what `--json` printed: one report, or a run over many databases' JSON lines.
extension StewardRun {
    /// A line of output that is not one JSON object.
    public struct NotAJSONObject: Error, CustomStringConvertible {
        public let line: String
        public var description: String { "not one JSON object: \(line)" }
    }

    /// Every line of `text` parsed as one JSON object.
    public static func jsonLines(of text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw NotAJSONObject(line: String(line))
            }
            return object
        }
    }

    /// Every line of stdout parsed as one JSON object.
    public func jsonLines() throws -> [[String: Any]] {
        try Self.jsonLines(of: stdout)
    }

    /// The lines about each database of a run over many (`kind` "database"), by the
    /// database's `database.path`.
    public func databaseLines() throws -> [String: [String: Any]] {
        Self.databases(in: try jsonLines())
    }

    /// The objects about each database (`kind` "database") among `lines`, by `database.path`.
    public static func databases(in lines: [[String: Any]]) -> [String: [String: Any]] {
        var result: [String: [String: Any]] = [:]
        for line in lines where line["kind"] as? String == "database" {
            if let path = (line["database"] as? [String: Any])?["path"] as? String { result[path] = line }
        }
        return result
    }

    /// The check named `name` in the `checks` of the report on stdout, or nil.
    public func check(_ name: String) throws -> [String: Any]? {
        guard let checks = try json()["checks"] as? [[String: Any]] else { throw NotAJSONObject(line: stdout) }
        return checks.first { $0["name"] as? String == name }
    }
}
