import Foundation

/// A tiny loadable SQLite extension that provides one collation, `steward_reverse`
/// (byte order, reversed), compiled by the test that needs it with `gcc -shared -fPIC`
/// against the system's sqlite3ext.h. sqlite-vec provides no collation, and a database
/// whose index uses a collation that is not loaded cannot be integrity-checked
/// ("no such collation sequence").
public enum CollationExtension {
    public static let collation = "steward_reverse"

    /// Whether gcc and sqlite3ext.h are there to build it.
    public static let canBuild: Bool =
        FileManager.default.isExecutableFile(atPath: "/usr/bin/gcc") && FileManager.default.fileExists(atPath: "/usr/include/sqlite3ext.h")

    static let source = """
        #include <string.h>
        #include <sqlite3ext.h>
        SQLITE_EXTENSION_INIT1

        static int reverse(void *unused, int leftLength, const void *left, int rightLength, const void *right) {
            int shorter = leftLength < rightLength ? leftLength : rightLength;
            int order = memcmp(left, right, (size_t)shorter);
            if (order == 0) order = leftLength - rightLength;
            return -order;
        }

        int sqlite3_extension_init(sqlite3 *db, char **error, const sqlite3_api_routines *api) {
            SQLITE_EXTENSION_INIT2(api);
            return sqlite3_create_collation(db, "steward_reverse", SQLITE_UTF8, 0, reverse);
        }
        """

    /// Builds the extension in `directory`; returns the path of the shared library.
    public static func build(in directory: String) throws -> String {
        let sourcePath = directory + "/steward_reverse.c"
        let library = directory + "/steward_reverse.so"
        try Data(source.utf8).write(to: URL(fileURLWithPath: sourcePath))
        let result = try systemTool(["gcc", "-shared", "-fPIC", "-O1", "-o", library, sourcePath])
        guard result.status == 0 else { throw BuildFailed(output: result.output) }
        return library
    }

    public struct BuildFailed: Error, CustomStringConvertible {
        public let output: String
        public var description: String { "gcc could not build the collation extension: \(output)" }
    }
}
