/* vec.h: private to core/: growable arrays and file times shared by the
 * core modules.  Ownership: the caller owns the array (free() it). */
#ifndef KP_VEC_H
#define KP_VEC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* Appends one zeroed element of size sz to *arr (n used, cap allocated),
 * doubling the allocation as needed; returns it, or NULL when out of memory
 * (the array is unchanged then). */
void *kp__vec_push(void **arr, size_t *n, size_t *cap, size_t sz);

/* The nanosecond part of a file's mtime, and the whole mtime in ns. */
#ifdef __APPLE__
#define KP_MTIME_NSEC(st) ((long long)(st).st_mtimespec.tv_nsec)
#else
#define KP_MTIME_NSEC(st) ((long long)(st).st_mtim.tv_nsec)
#endif
#define KP_MTIME_NS(st) ((int64_t)(st).st_mtime * 1000000000 + KP_MTIME_NSEC(st))

#endif
