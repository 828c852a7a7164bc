/* sigfile.h: kpsignatures' public header: the signature files of the
 * blacktop/symbolicator project (MIT), which name the functions of a
 * stripped kernelcache entry by the strings they reference:
 *
 *   {"target": "com.apple.kernel" | BUNDLE_ID, "total": N,
 *    "version": {"min": "22.0.0", "max": "22.6.0"},
 *    "signatures": [{"args": 0, "symbol": "__ZN...", "prototype": "",
 *                    "anchors": [{"string": "...", "segment": "__TEXT",
 *                                 "section": "__cstring", "caller": "_IOLog" | null}],
 *                    "backtrace": ["caller", "caller's caller", ...]}]}
 *
 * A checkout keeps them as kernel/<Darwin major>/xnu.json (the kernel) and
 * kernel/<Darwin major>/kexts/NAME.json (file names are not bundle ids:
 * only "target" says which entry a file is for).  sigmatch.h applies them.
 *
 * Known limits: an anchor string holding NUL (JSON \u0000) ends there;
 * "args" and "prototype" are not read.
 *
 * Ownership: a kp__sigfile owns everything in it (its strings point into
 * the file's text it keeps, decoded in place); kp__sigfile_free clears the
 * caller's pointer.
 * Read-only after load. */
#ifndef KP_SIGFILE_H
#define KP_SIGFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kp_error.h"

#define KP_SIGFILE_MAX_SIZE (64u << 20)   /* one file, at most; kept whole, and at
                                             most 8/3 of its size again in arrays */
#define KP_SIGFILE_MAX_STRING 4096u       /* one anchor string or name, at most */

typedef struct kp__sig_anchor {
	const char *string;    /* matched whole and NUL-terminated in the section */
	size_t len;
	const char *segment, *section;
	const char *caller;    /* what the first call after the reference calls, or NULL */
} kp__sig_anchor;

typedef struct kp__sig {
	const char *symbol;            /* as the symtab would hold it: "__ZN3AUC5startEP9IOService" */
	const kp__sig_anchor *anchors;
	size_t nanchors;
	const char *const *backtrace;  /* [0] the only caller of symbol, [1] its only caller, ... */
	size_t nbacktrace;
} kp__sig;

typedef struct kp__sigfile {
	const char *path;    /* as loaded ("" from memory) */
	const char *target;
	bool has_version;
	unsigned vmin[3], vmax[3];
	int dir_major;       /* the Darwin major of its folder (kernel/<major>/...), -1 unknown */
	const kp__sig *sigs;
	size_t nsigs;
	void *priv;          /* the JSON and arrays behind the above */
} kp__sigfile;

/* Parses a signature file from data[0..len): KP_ERR_FORMAT naming the byte
 * where the JSON breaks, or the signature and field of the wrong type, a
 * string over KP_SIGFILE_MAX_STRING, a version that is not "MAJOR[.MINOR[.PATCH]]";
 * KP_ERR_NOMEM. */
kp_status kp__sigfile_parse(const char *data, size_t len, kp__sigfile **out, kp_error *err);

/* The same from a file (capped at KP_SIGFILE_MAX_SIZE), path and dir_major kept. */
kp_status kp__sigfile_load(const char *path, int dir_major, kp__sigfile **out, kp_error *err);

void kp__sigfile_free(kp__sigfile **f);

/* "23.4.0", "23.4", "23" (then 0s): false when s is not one. */
bool kp__darwin_parse(const char *s, unsigned v[3]);

/* Whether f's version range holds v (a file without one holds every v). */
bool kp__sigfile_covers(const kp__sigfile *f, const unsigned v[3]);

/* Every *.json file under dir (depth at most 6, symbolic links to folders
 * not followed), with the Darwin major of the nearest all-digit folder
 * between dir and it (-1: none); fn is called in sorted path order.
 * KP_ERR_IO when dir cannot be read. */
typedef void (*kp__sigdir_fn)(void *ctx, const char *path, int dir_major);
kp_status kp__sigdir_walk(const char *dir, kp__sigdir_fn fn, void *ctx, kp_error *err);

#endif
