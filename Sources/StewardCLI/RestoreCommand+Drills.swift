import ArgumentKit
import Foundation
import StewardCore
import StewardBase

/// `steward restore --check-only` over many bundles: a restore drill per bundle, run by
/// the fleet runner (`FleetRun`) that `migrate`, `verify` and `backup` use, with the same
/// pool, shards, NDJSON lines and exit rule. The list is the bundles given as arguments,
/// then those of `--bundles-from`; each line has `kind` `database` (the bundle's database
/// was proved) and `path` the bundle as listed, so `steward report` reads it like any other.
extension RestoreCommand {
    /// The fleet options of a drill, worded for bundles.
    static let drillKeys = FleetOptions.Keys(several: "more than one bundle (several <bundle> arguments, or '--bundles-from <file>')",
        listFrom: "bundles-from", "With --check-only: read bundle paths from this file, one a line ('-': standard input); they follow the <bundle> arguments.",
        jobs: "With several bundles: how many to check at a time (default: the number of cores).",
        shard: "Check only the K-th of N shares of the bundle list: bundle i (from 0, duplicates removed) belongs to share (i mod N) + 1.",
        failFast: "With several bundles: start no further drill once one has failed.")

    /// The drill's fleet options, or nil for a run over one bundle: a drill over many is
    /// one with more than one bundle, or with `--bundles-from`, `--jobs` or `--shard`.
    static func drillFleet(_ values: ParsedValues, bundles: [String]) throws(CommandLineError) -> FleetOptions? {
        guard try FleetOptions.isFleet(values, drillKeys, items: bundles) else { return nil }
        // A restore publishes into one place: several bundles can only be drilled.
        guard values[Opt.checkOnly] else {
            throw values.error("several bundles are restored only as a drill: add --check-only, or restore one bundle at a time")
        }
        if values.isPresent(Opt.into) {
            throw values.error("--into names one directory; a drill over several bundles stages each under TMPDIR and publishes nothing")
        }
        if bundles.contains(Restorer.standardInput) {
            throw values.error("standard input (-) holds one bundle; it cannot be one of several")
        }
        return try FleetOptions.make(values, drillKeys, items: bundles)
    }

    static var itemKind: FleetItemKind { .bundle }

    /// One bundle's drill, which exits as a single `restore --check-only` does; a bundle
    /// that cannot be opened is its error's status (65, 66, 77 …).
    static func options(_ options: Restorer.Options, for path: String) throws -> Restorer.Options {
        // A list read from a file may still name standard input.
        guard path != Restorer.standardInput else {
            throw StewardError(.usage, "standard input (-) holds one bundle; it cannot be one of several")
        }
        var options = options
        options.bundlePath = path
        return options
    }

    static func fleetDetail(_ report: RestoreReport) -> String {
        report.passed
            ? "every check passed; nothing was published"
            : "failed: \(report.failedChecks.joined(separator: ", ")); nothing was published"
    }
}
