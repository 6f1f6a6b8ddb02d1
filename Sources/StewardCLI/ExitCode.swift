import StewardCore
import StewardBase

/// The exit statuses Steward uses (sysexits), so that scripts can branch on them.
public enum ExitCode {
    public static let success: Int32 = 0
    public static let checkFailed: Int32 = 1
    public static let usage: Int32 = 64
    public static let dataError: Int32 = 65
    public static let noInput: Int32 = 66
    public static let software: Int32 = 70
    public static let cannotCreate: Int32 = 73
    public static let ioError: Int32 = 74
    public static let temporaryFailure: Int32 = 75
    public static let noPermission: Int32 = 77
    public static let interrupted: Int32 = 130

    /// The status for a failed operation.
    public static func `for`(_ kind: StewardError.Kind) -> Int32 {
        switch kind {
        case .checkFailed: return checkFailed
        case .badInput: return dataError
        case .notFound: return noInput
        case .cannotCreate: return cannotCreate
        case .inputOutput: return ioError
        case .busy: return temporaryFailure
        case .noKey: return noPermission
        case .interrupted: return interrupted
        case .internal: return software
        case .usage: return usage
        }
    }
}
