extension Restorer: StewardOperation {}
