import Foundation

/// One test's own directory and the places in it that Steward is pointed at: a database
/// path (the test makes the file), a `migrations` folder for a set, an `out` folder for
/// bundles. A suite makes one in its `init`, so each test has its own (Swift Testing
/// makes a new suite value per test).
public final class Workspace: Sendable {
    public let directory: TemporaryDirectory
    public let database: String
    public var migrations: String { directory.file("migrations") }
    public var out: String { directory.file("out") }
    public var bundles: String { directory.file("bundles") }

    /// - Parameters:
    ///   - name: the database's file name in the directory (it is not made).
    ///   - folders: what to make in the directory (an empty `migrations`, `out` or `bundles`).
    ///   - layout: the layout the set declares in `migrations/.steward-dialect`, if any.
    public init(database name: String = "app.db", making folders: Set<Folder> = [.migrations], layout: String? = nil) throws {
        directory = try TemporaryDirectory()
        database = directory.file(name)
        for folder in folders {
            try FileManager.default.createDirectory(atPath: directory.file(folder.rawValue), withIntermediateDirectories: true)
        }
        if let layout { try directory.declareLayout(layout) }
    }

    public enum Folder: String, Sendable {
        case migrations, out, bundles
    }

    /// Writes the migration file `name` (a path below `migrations`, folders made on the way).
    public func writeMigration(_ name: String, _ text: String = "CREATE TABLE x(y);\n") throws {
        try directory.write(text, to: "migrations/\(name)")
    }

    /// The path of `name` below `migrations`.
    public func migration(_ name: String) -> String {
        (migrations as NSString).appendingPathComponent(name)
    }
}

/// A suite whose tests each work in a `Workspace` of their own, reached by the names the
/// tests use (`directory`, `database`, `migrations`, `out`, `bundles`, `write`).
public protocol WorkspaceSuite {
    var workspace: Workspace { get }
}

extension WorkspaceSuite {
    public var directory: TemporaryDirectory { workspace.directory }
    public var database: String { workspace.database }
    public var migrations: String { workspace.migrations }
    public var out: String { workspace.out }
    public var bundles: String { workspace.bundles }

    /// Writes the migration file `name` into the suite's set.
    public func write(_ name: String, _ text: String = "CREATE TABLE x(y);\n") throws {
        try workspace.writeMigration(name, text)
    }

    /// Steward's own layout: `NUMBER_NAME.sql` creating the table `NAME`, and its
    /// `NUMBER_NAME.down.sql` dropping it unless `down` is false.
    public func writeTable(_ number: String, _ name: String, down: Bool = true) throws {
        try write("\(number)_\(name).sql", "CREATE TABLE \(name)(x);\n")
        if down { try write("\(number)_\(name).down.sql", "DROP TABLE \(name);\n") }
    }
}

extension Workspace {
    /// Runs `steward migrate` on the workspace's database and set, with `extra` arguments.
    public func migrate(_ extra: [String] = [], environment: [String: String] = [:]) throws -> StewardRun {
        try StewardProcess.run(["migrate", "--db", database, "--migrations", migrations] + extra, environment: environment)
    }

    /// Copies the example set shipped in `migrations/` (its first two files and the layout
    /// it declares) into the workspace's `migrations`.
    public func copyExampleSet() throws {
        for name in ["0001_create_ticket.sql", "0002_ticket_search.sql", ".steward-dialect"] {
            try FileManager.default.copyItem(atPath: Fixtures.exampleMigrations.appendingPathComponent(name).path, toPath: migration(name))
        }
    }
}
