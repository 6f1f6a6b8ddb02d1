extension DialectSet {
    /// A set in Steward's own layout, read by `MigrationSet` (whose refusals stand when the
    /// layout is Steward's), as the other layouts are seen.
    init(steward set: MigrationSet) {
        self.init(
            directory: set.directory, dialect: .steward,
            migrations: set.migrations.map { migration in
                DialectMigration(
                    version: VersionKey(Int64(migration.version)), ledgerVersion: String(migration.version),
                    fileName: migration.fileName, path: migration.path, description: migration.fileName,
                    bytes: Array(migration.sql.utf8), upSQL: migration.sql)
            },
            ignoredFiles: set.ignoredFiles)
    }
}

extension DialectSet {
    /// The set without its `declarationFile` among the ignored files: it names the layout,
    /// it is not a stray file.
    var withoutDeclaration: DialectSet {
        DialectSet(directory: directory, dialect: dialect, migrations: migrations,
                   ignoredFiles: ignoredFiles.filter { $0 != Self.declarationFile })
    }
}
