import Foundation

final class SharedDate: @unchecked Sendable {
    private var value = Date()
    func set(_ date: Date) { value = date }
    func get() -> Date { value }
}
