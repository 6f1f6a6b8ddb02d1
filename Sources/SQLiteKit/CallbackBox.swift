/// A Swift closure that one of SQLite's C callbacks (busy handler, progress handler,
/// authorizer) reaches through its context pointer. The connection holds the box in a
/// stored property for as long as the callback is registered; SQLite holds only the
/// unretained `context`.
final class CallbackBox<Handler> {
    let handler: Handler

    init(_ handler: Handler) {
        self.handler = handler
    }

    /// The pointer to register the callback with.
    var context: UnsafeMutableRawPointer {
        Unmanaged.passUnretained(self).toOpaque()
    }

    /// Inside the callback: the handler of the box `context` points to, nil for none.
    static func handler(_ context: UnsafeMutableRawPointer?) -> Handler? {
        context.map { Unmanaged<CallbackBox>.fromOpaque($0).takeUnretainedValue().handler }
    }
}
