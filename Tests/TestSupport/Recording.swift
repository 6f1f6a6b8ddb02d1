import Foundation

/// What a callback was given, in order, whichever thread called it (a run's progress
/// callback, say).
public final class Recording<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Element] = []

    public init() {}

    public func append(_ element: Element) {
        lock.withLock { storage.append(element) }
    }

    public var elements: [Element] {
        lock.withLock { storage }
    }
}
