/// Result codes (https://www.sqlite.org/rescode.html), hard-coded so that the tests
/// do not depend on importing the C module.
enum ResultCode {
    static let error: Int32 = 1
    static let interrupt: Int32 = 9
    static let busy: Int32 = 5
    static let readOnly: Int32 = 8
    static let cantOpen: Int32 = 14
    static let constraint: Int32 = 19
    static let mismatch: Int32 = 20
    static let misuse: Int32 = 21
    static let range: Int32 = 25
    static let constraintCheck: Int32 = 275
    static let constraintForeignKey: Int32 = 787
    static let constraintNotNull: Int32 = 1299
    static let constraintPrimaryKey: Int32 = 1555
    static let constraintUnique: Int32 = 2067
}
