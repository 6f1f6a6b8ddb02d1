// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Steward",
    // The Apple platforms StewardKit is meant for (an app's test target). This machine
    // builds for Linux only: nothing here is compiled for them (README, "In your app's tests").
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .executable(name: "steward", targets: ["steward"]),
        // For applications' test targets: Steward's checks through the app's own connection.
        .library(name: "StewardKit", targets: ["StewardKit"]),
    ],
    targets: [
        // System libraries: the only places that name a C library.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // libarchive and libcrypto are not linked but loaded on first use (dlopen), so that
        // commands that never need them do not pay for loading them (issue 14). Their
        // headers come from libarchive-dev and libssl-dev. CLazyLibrary is the loading
        // they share.
        .target(name: "CLazyLibrary"),
        .target(name: "CArchive", dependencies: ["CLazyLibrary"]),
        .target(name: "CCrypto", dependencies: ["CLazyLibrary"]),
        // glibc's GNU-only calls (renameat2, copy_file_range, sync_file_range), declared.
        .systemLibrary(name: "CSystem"),

        // File names as bytes that need not be UTF-8, carried in Swift strings.
        .target(name: "FileNames"),

        // Swift layers over the C libraries.
        .target(name: "SQLiteKit", dependencies: ["CSQLite", "FileNames"]),
        .target(name: "ArchiveKit", dependencies: ["CArchive", "CCrypto", "FileNames"]),

        // Command-line parsing, shaped like swift-argument-parser.
        .target(name: "ArgumentKit"),

        // What every operation and the bundle format need: StewardError and its remedies,
        // cancellation, system calls, paths, check names, test hooks.
        // CSystem declares glibc's calls: Linux only (LinuxCalls has the other platforms' way).
        .target(name: "StewardBase", dependencies: ["FileNames", .target(name: "CSystem", condition: .when(platforms: [.linux]))]),

        // The checks the command line and StewardKit share, portable (SQLite and Foundation
        // only): check values, FTS5 integrity and sync triggers, the search contract and
        // how its cases run.
        .target(name: "StewardChecks", dependencies: ["StewardBase", "SQLiteKit", "CSQLite"]),

        // The bundle format, version 1: manifest and its validation, writer, reader,
        // keys and encryption, naming, content digests.
        .target(name: "BundleFormat", dependencies: ["StewardBase", "SQLiteKit", "ArchiveKit", "FileNames"]),

        // The operations as library APIs returning Codable reports.
        .target(name: "StewardCore", dependencies: ["StewardBase", "StewardChecks", "BundleFormat", "SQLiteKit", "ArchiveKit", "FileNames", "CSystem"]),

        // Commands, help, rendering and exit codes.
        .target(name: "StewardCLI", dependencies: ["ArgumentKit", "StewardBase", "BundleFormat", "StewardCore", "FileNames", "SQLiteKit"]),

        .executableTarget(name: "steward", dependencies: ["StewardCLI"]),
        // The FTS5 check alone, for bench/fts5-check.sh (issue 33): not a product.
        .executableTarget(name: "steward-fts5-bench", dependencies: ["StewardChecks", "SQLiteKit"]),

        // The library for applications' test targets: a borrowed connection, the search
        // contract, the FTS5 checks and a backup's proof. Portable: SQLite and Foundation.
        // SHA-256 for the backup proof: CryptoKit on Apple's systems, libcrypto (loaded
        // through ArchiveKit, as the command line loads it) on Linux.
        .target(name: "StewardKit", dependencies: [
            "StewardChecks", "StewardBase", "SQLiteKit", .target(name: "ArchiveKit", condition: .when(platforms: [.linux])),
        ]),

        // Tests.
        .target(name: "TestSupport", dependencies: ["CSQLite", "SQLiteKit", "ArchiveKit", "FileNames"], path: "Tests/TestSupport"),
        // An app's own FTS5 tokenizer, registered through fts5_api (StewardKitTests play the app).
        .target(name: "CAppTokenizer", dependencies: ["CSQLite"], path: "Tests/CAppTokenizer"),
        .testTarget(
            name: "StewardKitTests",
            dependencies: ["StewardKit", "StewardChecks", "StewardBase", "SQLiteKit", "CSQLite", "CAppTokenizer", "TestSupport", "steward"]
        ),
        .testTarget(name: "SQLiteKitTests", dependencies: ["SQLiteKit", "TestSupport"]),
        .testTarget(
            name: "ArchiveKitTests",
            dependencies: ["ArchiveKit", "TestSupport"],
            // The age test vectors are read by path (Fixtures/age/README.md).
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "ArgumentKitTests", dependencies: ["ArgumentKit"]),
        .testTarget(name: "FileNamesTests", dependencies: ["FileNames"]),
        .testTarget(name: "StewardCoreTests", dependencies: ["StewardBase", "StewardChecks", "BundleFormat", "StewardCore", "SQLiteKit", "ArchiveKit", "FileNames", "TestSupport"]),
        .testTarget(name: "StewardCLITests", dependencies: ["StewardCLI", "ArgumentKit", "StewardBase", "StewardChecks", "BundleFormat", "StewardCore", "TestSupport"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["steward", "SQLiteKit", "ArchiveKit", "FileNames", "TestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
