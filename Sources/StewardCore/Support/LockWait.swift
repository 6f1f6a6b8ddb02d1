/// How long an operation waits for other connections' locks before it gives up with
/// `StewardError.Kind.busy` (75): the default of `--timeout` in every command that waits.
/// How the time is spent still differs by operation (docs/design-notes.md).
public enum LockWait {
    public static let defaultSeconds: Double = 30
}
