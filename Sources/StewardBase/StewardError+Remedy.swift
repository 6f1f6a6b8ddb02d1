extension StewardError {
    /// A way out of a refusal that the user chooses when running Steward again. The core
    /// says which; the command line knows the option that does it and says that
    /// (`StewardError.message` never names an option).
    public enum Remedy: Sendable, Equatable {
        /// The database does not exist: the run may create it.
        case createMissingDatabase
        /// The database is an empty file: the run may take it as a new database.
        case createFromEmptyFile
        /// Applied migrations changed since: the run may accept the changed files.
        case allowChangedMigrations
        /// Migrations older than the newest applied are pending: the run may apply them
        /// anyway (`count` of them).
        case allowOutOfOrder(count: Int)
        /// A baseline was asked for a database that already records its migrations.
        case withoutBaseline
        /// A database list holds a NUL byte: it may be read as NUL-separated names.
        case nulSeparatedList
        /// An encrypted bundle and no key given: an identity or a passphrase opens it.
        case giveKey
        /// A version Steward's own layout cannot hold: another runner's layout may.
        case chooseDialect
        /// A set these layouts read alike, on a database with no record of any: the run
        /// may name the one the application's runner uses.
        /// (The layouts by their `--dialect` names.)
        case nameDialect([String])
        /// The schema differs from what the set makes: the run may migrate anyway.
        case allowDrift
        /// A virtual table's module is an extension's: the run may load that extension.
        case loadExtension
        /// A Flyway placeholder has no value: the run may give it one.
        case givePlaceholder(name: String)
        /// A bundle name held a directory: the directory where bundles go is given apart.
        case directoryApart
        /// A target below what is applied: a down run takes migrations back.
        case takeMigrationsBack
        /// A layout whose runner has no down migrations Steward can run: the way back is
        /// the bundle written before the upgrade.
        case restoreRollbackBundle
    }
}
