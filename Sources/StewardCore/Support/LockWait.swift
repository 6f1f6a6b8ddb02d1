/// How long an operation waits for another connection's lock before it gives up with
/// `StewardError.Kind.busy` (75): `--timeout` of every command that waits, one default.
public struct LockWait: Sendable, Equatable {
    public static let defaultSeconds: Double = 30

    public var seconds: Double

    public init(seconds: Double = LockWait.defaultSeconds) {
        self.seconds = seconds
    }

    /// For `sqlite3_busy_timeout`, which takes milliseconds in an `Int32`.
    public var busyTimeoutMilliseconds: Int32 {
        Int32(min(max(seconds, 0) * 1000, Double(Int32.max)))
    }
}
