#ifndef STEWARD_CARCHIVE_SHIM_H
#define STEWARD_CARCHIVE_SHIM_H

#include <archive.h>
#include <archive_entry.h>

// Swift cannot import cast macros such as AE_IFREG ((__LA_MODE_T)0100000).
static inline unsigned int steward_archive_regular_file(void) {
    return AE_IFREG;
}

#endif
