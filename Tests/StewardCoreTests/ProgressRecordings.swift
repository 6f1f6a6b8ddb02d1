import Foundation
@testable import StewardCore
import TestSupport

/// The progress events of each operation, as its tests read them.
extension Recording where Element == BackupMaker.Event {
    /// The events by name.
    var names: [String] {
        elements.map { event in
            switch event {
            case .copying: "copying"
            case .copied: "copied"
            case .checking: "checking"
            case .bundling: "bundling"
            case .published: "published"
            }
        }
    }
}

extension Recording where Element == Migrator.Event {
    /// The events as short lines.
    var lines: [String] {
        elements.map { event in
            switch event {
            case let .applying(file, version): "applying \(file) \(version)"
            case let .applied(file, version, statements, _): "applied \(file) \(version) \(statements)"
            case let .undoing(file, version): "undoing \(file) \(version)"
            case let .undone(file, version, statements, _): "undone \(file) \(version) \(statements)"
            case let .rebuildingFTS(table): "rebuildingFTS \(table)"
            case let .working(phase, table, _): "working \(phase) \(table)"
            case let .rebuiltFTS(table, _, _, _): "rebuiltFTS \(table)"
            }
        }
    }
}

extension Recording where Element == Restorer.Event {
    /// The names of the checks reported done.
    var checkNames: [String] {
        elements.compactMap { event in
            if case .checked(let check) = event { return check.name.rawValue }
            return nil
        }
    }
}

extension Recording where Element == Verifier.Event {
    var started: [String] {
        elements.compactMap { if case .started(let name) = $0 { name.rawValue } else { nil } }
    }

    var finished: [String] {
        elements.compactMap { if case .finished(let name, _, _) = $0 { name.rawValue } else { nil } }
    }
}
