import Foundation

/// The work under way (phase and table), shared between the run and SQLite's
/// progress callback, which runs on the same thread.
final class SharedName: @unchecked Sendable {
    private var value: (String, String)?
    var isNew = false
    func set(_ work: (String, String)?) { value = work; isNew = work != nil }
    func get() -> (String, String)? { value }
}
