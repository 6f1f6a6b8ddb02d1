/// Path arithmetic on strings. Foundation's `NSString` path methods trap on some inputs
/// in this toolchain (`deletingLastPathComponent` of a one-character name), and a path a
/// user typed must never crash Steward; these do the little that is needed, plainly.
public enum Paths {
    /// The directory part: `a/b/c` → `a/b`, `/c` → `/`, `c` → `` (the current directory).
    public static func directory(of path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        let directory = String(trimmed[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    /// The directory part, or `.` when the path has none.
    public static func directoryOrCurrent(of path: String) -> String {
        let directory = directory(of: path)
        return directory.isEmpty ? "." : directory
    }

    /// The last component: `a/b/c.db` → `c.db`, `c/` → `c`.
    public static func fileName(of path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    /// `name` without its last extension: `a.tar.zst` → `a.tar`, `.hidden` stays.
    public static func removingExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// `directory/name`, without doubling a slash; an empty directory gives `name`.
    public static func join(_ directory: String, _ name: String) -> String {
        if directory.isEmpty { return name }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The path without trailing slashes (`/` stays `/`), as system calls want it.
    public static func trimmingTrailingSlashes(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }
}
