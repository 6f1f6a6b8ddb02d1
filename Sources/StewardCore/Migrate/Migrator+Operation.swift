extension Migrator: Operation {}
