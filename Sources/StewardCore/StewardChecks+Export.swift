// The checks StewardCore shares with StewardKit live in StewardChecks (docs/architecture.md,
// "Modules"); whoever imports the core sees them where they always were.
@_exported import StewardChecks
