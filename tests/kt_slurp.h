/* kt_slurp.h: reading a whole file, for tests and benchmarks, through
 * core's one reader (kp_fs_read_file) without its size limit.
 * Ownership: the caller frees the returned buffer (NUL-terminated, not
 * counted in *len); NULL when the file cannot be read. */
#ifndef KT_SLURP_H
#define KT_SLURP_H

#include <stdint.h>

#include "kp_fs.h"

/* noinline: inlined, gcc -O2 takes the returned buffer for a pointer to the
 * local that received it (-Wdangling-pointer) */
static void *kt_slurp(const char *path, size_t *len) __attribute__((unused, noinline));
static void *kt_slurp(const char *path, size_t *len)
{
	char *b;
	if (kp_fs_read_file(path, SIZE_MAX, &b, len, NULL, NULL) != KP_OK)
		return NULL;
	return b;
}

#endif
