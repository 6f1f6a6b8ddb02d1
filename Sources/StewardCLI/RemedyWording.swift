import StewardCore
import StewardBase

/// The options that carry out a core `StewardError.Remedy`: the core says what would
/// help, the command line says which option does it.
enum RemedyWording {
    /// Added after the core's message.
    static func suffix(for remedy: StewardError.Remedy) -> String {
        switch remedy {
        case .createMissingDatabase:
            return " (use --create to make a new one)"
        case .createFromEmptyFile:
            return "; use --create to make it a new database"
        case .allowChangedMigrations:
            return "; restore the file as it was, or pass --allow-changed to accept it"
        case .allowOutOfOrder(let count):
            return "; pass --allow-out-of-order to apply \(count == 1 ? "it" : "them") anyway"
        case .withoutBaseline:
            return "; run without --baseline"
        case .nulSeparatedList:
            return "; use --null for NUL-separated names"
        case .giveKey:
            return "; give --identity FILE, or --passphrase-file/--passphrase-env for a passphrase"
        case .chooseDialect:
            return "; use --dialect for another runner's 64-bit versions"
        case .nameDialect(let candidates):
            let options = candidates.map { "--dialect \($0)" }
            let listed = options.count == 1 ? options[0] : options.dropLast().joined(separator: ", ") + " or " + (options.last ?? "")
            return ", or pass \(listed)"
        case .allowDrift:
            return " (--allow-drift migrates anyway)"
        case .loadExtension:
            return " (an extension's module needs --load-extension)"
        case .givePlaceholder(let name):
            return "; give its value with --placeholder '\(name)=VALUE'"
        case .directoryApart:
            return "; the directory is --out"
        case .takeMigrationsBack:
            return "; use --down to take migrations back"
        case .restoreRollbackBundle:
            return "; to go back, restore the bundle that migrate --backup-dir wrote before the upgrade with 'steward restore --replace'"
        }
    }

    /// The message a user reads, on stderr and in `--json`.
    static func message(of error: StewardError) -> String {
        error.message + (error.remedy.map(suffix(for:)) ?? "")
    }
}
