#ifndef STEWARD_CSQLITE_SHIM_H
#define STEWARD_CSQLITE_SHIM_H

#include <sqlite3.h>

// Swift cannot import SQLITE_TRANSIENT (a cast macro) nor call C variadic
// functions, so these small wrappers expose what SQLiteKit needs.

static inline sqlite3_destructor_type steward_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

static inline int steward_sqlite_db_config_flag(sqlite3 *db, int op, int value, int *current) {
    return sqlite3_db_config(db, op, value, current);
}

// sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on): only before sqlite3_initialize.
static inline int steward_sqlite_config_memory_statistics(int on) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on);
}

// A file of SQLiteKit's overlay VFS (FileOverlay.swift): SQLite's file object, then the
// overlay it reads through (not retained: the connection keeps it alive).
typedef struct steward_overlay_file {
    sqlite3_file base;
    void *overlay;
} steward_overlay_file;

#endif
