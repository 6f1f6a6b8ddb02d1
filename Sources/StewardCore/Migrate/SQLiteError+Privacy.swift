import SQLiteKit

extension SQLiteError {
    /// SQLITE_NOMEM: reported as a resource failure (74), not as bad input.
    var isOutOfMemory: Bool { code == .noMemory }

    /// The error as a message may show it when the statement was running over rows.
    ///
    /// A constraint's message names the constraint, from the schema. Any other message of
    /// a running statement can quote row data ("JSON path error near '…'", a value read as
    /// a name), so only the code's generic text is kept; verify's assertions do the same.
    var safeDescription: String {
        if code == .constraint {
            return messageAndCode
        }
        return "\(extendedCode.genericMessage) (SQLite error \(extendedCode); "
            + "SQLite's own message is not shown, as it can quote row data)"
    }
}
