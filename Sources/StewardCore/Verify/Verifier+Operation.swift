extension Verifier: StewardOperation {}
