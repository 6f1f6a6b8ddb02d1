#ifndef STEWARD_CARCHIVE_SHIM_H
#define STEWARD_CARCHIVE_SHIM_H

#include <archive.h>
#include <archive_entry.h>

#endif
