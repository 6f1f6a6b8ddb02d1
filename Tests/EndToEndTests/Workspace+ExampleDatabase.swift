import Foundation
import Testing
import TestSupport

/// The bundled example's first two migrations in a directory of their own, and the
/// database `steward migrate --create` makes from them.
struct ExampleDatabaseFixture {
    let directory: TemporaryDirectory
    var database: String { directory.file("tickets.db") }
    var migrations: String { directory.file("migrations") }

    init() throws {
        directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: true)
        for name in ["0001_create_ticket.sql", "0002_ticket_search.sql", ".steward-dialect"] {
            try FileManager.default.copyItem(
                atPath: Fixtures.exampleMigrations.appendingPathComponent(name).path,
                toPath: (migrations as NSString).appendingPathComponent(name))
        }
        let created = try StewardProcess.run(["migrate", "--create", "--quiet", "--db", database, "--migrations", migrations])
        try #require(created.status == 0, "\(created.stderr)")
    }
}
