import Foundation
import Testing
import TestSupport

extension Workspace {
    /// The bundled example's first two migrations in a workspace of their own, and the
    /// database `steward migrate --create` makes from them.
    static func withExampleDatabase() throws -> Workspace {
        let workspace = try Workspace(database: "tickets.db")
        try workspace.copyExampleSet()
        let created = try workspace.migrate(["--create", "--quiet"])
        try #require(created.status == 0, "\(created.stderr)")
        return workspace
    }
}
