import Foundation
import Testing
import SQLiteKit

@Suite struct SQLiteValueTests {
    @Test func literalsMakeTheMatchingCase() {
        let integer: SQLiteValue = 42
        let real: SQLiteValue = 2.5
        let text: SQLiteValue = "客户"
        let null: SQLiteValue = nil
        #expect(integer == .integer(42))
        #expect(real == .real(2.5))
        #expect(text == .text("客户"))
        #expect(null == .null)
    }

    @Test(arguments: [
        (SQLiteValue.integer(7), Int64?(7), String?.none),
        (.integer(Int64.min), Int64.min, nil),
        (.text("7"), nil, "7"),
        (.real(7), nil, nil),
        (.null, nil, nil),
        (.blob([55]), nil, nil),
    ])
    func accessorsOnlyAnswerForTheirOwnCase(_ value: SQLiteValue, _ integer: Int64?, _ text: String?) {
        #expect(value.integerValue == integer)
        #expect(value.textValue == text)
    }

    @Test func integerAndRealAreDifferentValues() {
        #expect(SQLiteValue.integer(1) != .real(1))
        #expect(SQLiteValue.text("") != .blob([]))
        #expect(SQLiteValue.text("") != .null)
        #expect(SQLiteValue.blob([]) != .null)
        #expect(Set<SQLiteValue>([.integer(1), .integer(1), .real(1)]).count == 2)
    }

    @Test(arguments: [
        SQLiteValue.null, .integer(Int64.max), .real(-0.5), .text("🔥 'x' \"y\""), .blob([]), .blob([0, 255]),
    ])
    func codableRoundTrip(_ value: SQLiteValue) throws {
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(SQLiteValue.self, from: data) == value)
    }
}
