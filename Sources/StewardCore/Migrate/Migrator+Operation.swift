extension Migrator: StewardOperation {}
