import Foundation
@testable import StewardBase
@testable import StewardCore

/// The kind of the `StewardError` `body` throws (`.internal` for any other error), or nil
/// when it returns.
func errorKind(of body: () throws -> Void) -> StewardError.Kind? {
    do {
        try body()
        return nil
    } catch let error as StewardError {
        return error.kind
    } catch {
        return .internal
    }
}
