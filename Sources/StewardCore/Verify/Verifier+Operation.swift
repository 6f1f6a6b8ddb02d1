extension Verifier: Operation {}
