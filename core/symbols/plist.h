/* plist.h: private to core/symbols/: the property lists the symbol sources
 * read, XML or binary, through libplist (plist.c is the only file that
 * includes its header): the com.apple.DebugSymbols defaults.  They come
 * from outside kpbrowse and are untrusted: sizes are bounded, strings
 * holding a NUL or longer than KP_PLIST_STR_MAX are refused, and nothing
 * here prints.
 *
 * Ownership: strings handed to a kp__plist_strings callback are borrowed
 * for the call. */
#ifndef KP_PLIST_H
#define KP_PLIST_H

#include <stddef.h>

#include "kp_error.h"

#define KP_PLIST_MAX (4u << 20)     /* a larger plist is KP_ERR_LIMIT */
#define KP_PLIST_STR_MAX 4096       /* a path, an error message */

/* Calls fn with the value of top-level key in buf[0..len) when it is a
 * string, or with each string of it when it is an array (DebugSymbols
 * defaults take either); nothing when absent.  KP_ERR_FORMAT when buf is
 * no plist or its top level no dictionary, KP_ERR_LIMIT past KP_PLIST_MAX;
 * a string that holds a NUL or is longer than KP_PLIST_STR_MAX is passed
 * over. */
kp_status kp__plist_strings(const void *buf, size_t len, const char *key,
                            void (*fn)(void *ctx, const char *s), void *ctx, kp_error *err);

#endif
