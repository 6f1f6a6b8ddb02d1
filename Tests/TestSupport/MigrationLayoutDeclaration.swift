import Foundation

extension TemporaryDirectory {
    /// Writes the file that declares a migration set's layout (`.steward-dialect`, one line)
    /// into `relativeDirectory`: a set that sqlx or golang-migrate would read alike is then
    /// Steward's own (or `dialect`'s) on a database that has no record of either yet.
    public func declareLayout(_ dialect: String = "steward", of relativeDirectory: String = "migrations") throws {
        try write("\(dialect)\n", to: "\(relativeDirectory)/.steward-dialect")
    }
}
