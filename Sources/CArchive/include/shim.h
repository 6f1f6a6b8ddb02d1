#ifndef STEWARD_CARCHIVE_SHIM_H
#define STEWARD_CARCHIVE_SHIM_H

#include <archive.h>
#include <archive_entry.h>

// Loads libarchive.so.13 once (the functions of archive.h that ArchiveKit calls are
// forwarders into it, CArchive.c). NULL when loaded, else why it cannot be, naming the
// library and dlerror(); call it before any other function of libarchive.
const char *_Nullable steward_archive_load(void);

// Swift cannot import cast macros such as AE_IFREG ((__LA_MODE_T)0100000).
static inline unsigned int steward_archive_regular_file(void) {
    return AE_IFREG;
}

#endif
