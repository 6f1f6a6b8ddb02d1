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
}
