/// The version of Steward, reported by `--version` and recorded in every report.
public enum StewardVersion {
    public static let current = "0.1.0"
}
