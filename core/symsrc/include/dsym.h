/* dsym.h: kpsymsrc's public header: where the files with a given Mach-O UUID are.
 *
 * Roots are walked lazily, in the order added, only until a UUID is found;
 * what a walk found is kept in a cache file and trusted on the next launch
 * while every directory of the root keeps its mtime and every file its size
 * and mtime.  Callers must still confirm LC_UUID when they open a file.
 *
 * Ownership: the index owns every path it returns (valid until free). */
#ifndef KP_DSYM_H
#define KP_DSYM_H

#include <stdbool.h>
#include <stddef.h>

typedef struct kp_dsym_index kp_dsym_index;

/* cache_dir "" or NULL: no cache file. */
kp_dsym_index *kp__dsym_new(const char *cache_dir);
void kp__dsym_free(kp_dsym_index *x);

/* Adds a search root (file, bundle or folder) for the symbol source tag
 * (symsrc.c's table index); duplicates are ignored (a root belongs to the
 * first source that named it). */
bool kp__dsym_add_root(kp_dsym_index *x, const char *path, unsigned tag);

/* The best file for uuid (canonical) under the roots of source tag: a dSYM
 * before a plain binary; NULL when none of them holds it.  Only that
 * source's roots are walked.  skip counts matches to pass over (to try the
 * next one when the first turned out stale). */
const char *kp__dsym_find(kp_dsym_index *x, const char *uuid, unsigned tag, size_t skip);

/* The best file for kext bundle id bundle (e.g. com.apple.iokit.IOUSBFamily),
 * walking every root: a file inside a dSYM whose Contents/Info.plist says
 * CFBundleIdentifier com.apple.xcode.dsym.BUNDLE (or BUNDLE), else one in a
 * folder named BUNDLE.kext.dSYM or LAST.kext.dSYM (LAST: the id's last
 * dot-separated part), else a kext binary (X.kext/Contents/MacOS/X) whose
 * Info.plist says BUNDLE; NULL when none.  Callers read the UUID from it. */
const char *kp__dsym_find_bundle(kp_dsym_index *x, const char *bundle);

/* Writes the cache file if anything changed (atomically, by rename). */
void kp__dsym_save(kp_dsym_index *x);

/* Whether the walk of root path stopped short: past 40 folders deep or
 * KPBROWSE_DSYM_WALK_MAX names (default a million).  A walk never follows a
 * link whose real path leaves its root, and in a .dSYM looks only at
 * Contents/Resources/DWARF's files. */
bool kp__dsym_cut(const kp_dsym_index *x, const char *path);

/* The root added as path: walked first when it was not yet; each UUID of
 * a file it holds (per slice) to fn; how many.  0 for a path not added. */
size_t kp__dsym_root_uuids(kp_dsym_index *x, const char *path, void (*fn)(void *ctx, const char *uuid),
                           void *ctx);

void kp__dsym_stats(const kp_dsym_index *x, size_t *walked, size_t *from_cache, size_t *probed);

#endif
