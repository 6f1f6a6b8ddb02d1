extension Restorer: Operation {}
