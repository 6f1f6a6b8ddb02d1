#ifndef STEWARD_CSYSTEM_SHIM_H
#define STEWARD_CSYSTEM_SHIM_H

// Linux calls that glibc declares only under _GNU_SOURCE (in stdio.h and fcntl.h), which
// Swift's Glibc module is built without. Defining _GNU_SOURCE here and including those
// headers does not work: they would be read again with other feature macros, and clang
// refuses the second definition of their types (`fds_bits` in fd_set, against
// Dispatch's). So the three are declared here with glibc 2.36's signatures (off64_t is
// int64_t, and ssize_t the type of sys/types.h without GNU extensions), and wrapped
// under names of our own so that Swift never sees two declarations of one function.

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

extern int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);
extern ssize_t copy_file_range(int infd, int64_t *pinoff, int outfd, int64_t *poutoff, size_t length, unsigned int flags);
extern int sync_file_range(int fd, int64_t offset, int64_t count, unsigned int flags);

// RENAME_NOREPLACE from <linux/fs.h>, SYNC_FILE_RANGE_WRITE from <fcntl.h> (GNU part).
static const unsigned int steward_rename_noreplace = 1;
static const unsigned int steward_sync_file_range_write = 2;

static inline int steward_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags) {
    return renameat2(olddirfd, oldpath, newdirfd, newpath, flags);
}

// Copies from the current offsets of both descriptors.
static inline ssize_t steward_copy_file_range(int infd, int outfd, size_t length) {
    return copy_file_range(infd, NULL, outfd, NULL, length, 0);
}

static inline int steward_sync_file_range(int fd, int64_t offset, int64_t count, unsigned int flags) {
    return sync_file_range(fd, offset, count, flags);
}

#endif
