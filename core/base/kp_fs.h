/* kp_fs.h: the file operations every layer shares: reading a whole file under
 * one size rule, creating folders, replacing a file atomically, file times.
 *
 * Ownership: buffers handed out are malloc'd and belong to the caller; errors
 * are values (kp_error) with a message that names no path (callers add it).
 * Call order for streaming writes: kp_fs_atomic_open, write to a.fp,
 * then exactly one of kp_fs_atomic_commit or kp_fs_atomic_abort. */
#ifndef KP_FS_H
#define KP_FS_H

#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "kp_error.h"

#include <stdbool.h>

/* Reads the whole regular file at path into *out (NUL-terminated, caller
 * frees; *len excludes the NUL) and its fstat into *st_out when non-NULL.
 * Opens with O_NONBLOCK so a FIFO cannot hang the open.  A directory, FIFO,
 * socket or device is KP_ERR_IO; a file over limit bytes is KP_ERR_LIMIT
 * (checked on fstat, before reading).  A file that shrinks while read gives
 * what was read; one that grows is cut at the size fstat gave. */
kp_status kp_fs_read_file(const char *path, size_t limit, char **out, size_t *len,
                          struct stat *st_out, kp_error *err);

/* mkdir -p: creates path and every missing parent with mode; existing
 * folders are fine. */
kp_status kp_fs_mkdirs(const char *path, mode_t mode, kp_error *err);

/* Creates the folders leading to the file path (kp_fs_mkdirs of its dirname;
 * nothing to do for a bare name). */
kp_status kp_fs_mkdirs_for(const char *path, mode_t mode, kp_error *err);

/* Creates a new file for a user's copy of something (export, the TUI's w):
 * never follows a link, never overwrites, never blocks (a FIFO or device
 * planted at path is refused as existing).  With next_free, a name that
 * exists is tried as NAME-1.EXT, NAME-2.EXT ... (up to 99) and the name
 * used goes to used[0..usize); without, an existing path is KP_ERR_IO
 * "exists; not overwriting it".  *fd is open for writing (blocking), mode
 * 0644 less the umask; the caller closes it. */
kp_status kp_fs_create_new(const char *path, bool next_free, char *used, size_t usize, int *fd,
                           kp_error *err);

/* Replaces path with data[0..len) atomically: a temporary file in the same
 * folder (created O_EXCL|O_NOFOLLOW, so nothing planted there is followed),
 * written, fsync'd, renamed over path.  The temporary is removed on any
 * failure; path is then unchanged.  Mode 0644 (less the umask).  The
 * temporaries of path that a killed writer left (its pid gone) are removed
 * first. */
kp_status kp_fs_write_atomic(const char *path, const void *data, size_t len, kp_error *err);
/* kp_fs_write_atomic without the fsync, for a file its reader checks whole
 * (a symbol cache: size and checksum): readers still see the old file or
 * the new one, never part of one, but after a crash the new one may be
 * missing or damaged, and is then rejected and made again.  Saves the wait
 * for the disk. */
kp_status kp_fs_write_atomic_unsynced(const char *path, const void *data, size_t len,
                                      kp_error *err);

/* Streaming form of kp_fs_write_atomic for writers that print. */
typedef struct kp_fs_atomic {
	FILE *fp;        /* write here between open and commit/abort */
	char *path, *tmp;
} kp_fs_atomic;

kp_status kp_fs_atomic_open(kp_fs_atomic *a, const char *path, kp_error *err);
/* Flushes, fsyncs, closes and renames; on failure removes the temporary.
 * Either way a is released. */
kp_status kp_fs_atomic_commit(kp_fs_atomic *a, kp_error *err);
/* Closes and removes the temporary; a is released.  Safe on a zeroed a. */
void kp_fs_atomic_abort(kp_fs_atomic *a);

/* The names in folder path but "." and "..", sorted bytewise (strcmp), so
 * a walk's order does not depend on the file system.  *names is a malloc'd
 * array of n malloc'd strings (kp_fs_names_free; NULL when n is 0).
 * KP_ERR_IO when the folder cannot be opened, with errno as opendir left
 * it; KP_ERR_NOMEM.  On error nothing is handed out. */
kp_status kp_fs_dir_names(const char *path, char ***names, size_t *n, kp_error *err);
void kp_fs_names_free(char **names, size_t n);

/* The modification time in nanoseconds since the epoch, and its nanosecond
 * part alone (st_mtim on Linux, st_mtimespec on macOS). */
int64_t kp_fs_mtime_ns(const struct stat *st);
long kp_fs_mtime_nsec(const struct stat *st);
/* The access time likewise (st_atim, st_atimespec). */
int64_t kp_fs_atime_ns(const struct stat *st);

#endif
