// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Steward",
    products: [
        .executable(name: "steward", targets: ["steward"]),
    ],
    targets: [
        // System libraries: the only places that name a C library.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CArchive",
            pkgConfig: "libarchive",
            providers: [.apt(["libarchive-dev"])]
        ),
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),

        // Swift layers over the C libraries.
        .target(name: "SQLiteKit", dependencies: ["CSQLite"]),
        .target(name: "ArchiveKit", dependencies: ["CArchive", "CCrypto"]),

        // Command-line parsing, shaped like swift-argument-parser.
        .target(name: "ArgumentKit"),

        // The operations as library APIs returning Codable reports.
        .target(name: "StewardCore", dependencies: ["SQLiteKit", "ArchiveKit"]),

        // Commands, help, rendering and exit codes.
        .target(name: "StewardCLI", dependencies: ["ArgumentKit", "StewardCore"]),

        .executableTarget(name: "steward", dependencies: ["StewardCLI"]),

        // Tests.
        .target(name: "TestSupport", dependencies: ["SQLiteKit", "ArchiveKit"], path: "Tests/TestSupport"),
        .testTarget(name: "SQLiteKitTests", dependencies: ["SQLiteKit", "TestSupport"]),
        .testTarget(
            name: "ArchiveKitTests",
            dependencies: ["ArchiveKit", "TestSupport"],
            // The age test vectors are read by path (Fixtures/age/README.md).
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "ArgumentKitTests", dependencies: ["ArgumentKit"]),
        .testTarget(name: "StewardCoreTests", dependencies: ["StewardCore", "SQLiteKit", "ArchiveKit", "TestSupport"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["steward", "SQLiteKit", "ArchiveKit", "TestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
