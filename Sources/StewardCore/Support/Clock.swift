import Foundation

/// Elapsed wall time for reports, in seconds.
struct Stopwatch {
    private let start = DispatchTime.now()

    var seconds: Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }

    /// Seconds rounded to milliseconds, as reports show them.
    var roundedSeconds: Double {
        (seconds * 1000).rounded() / 1000
    }
}
