/// The version of Steward, reported by `--version` and recorded in every report.
///
/// `current` is the one place the version is written: the Makefile reads it from this
/// line for the Debian package and the installed man pages. Keep it on one line.
public enum StewardVersion: BuildStamped {
    public static let current = "0.1.0"

    /// `--version`'s text: the version, and the commit when the build was stamped
    /// (`0.1.0 (commit 3f2a9c1d4e5b)`; `, modified` when the checkout had uncommitted changes).
    public static var full: String {
        guard let commit else { return current }
        return "\(current) (commit \(commit))"
    }
}

/// Lets a build made with `make` name its commit. `make` writes
/// `BuildStamp.generated.swift` (not in git) with an extension on `StewardVersion` that
/// declares its own `commit`, which wins over this default; a plain `swift build`, or a
/// source tree without git metadata, keeps the default and reports no commit.
public protocol BuildStamped {}

extension BuildStamped {
    public static var commit: String? { nil }
}
