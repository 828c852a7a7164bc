/* symsrc.h: kpsymsrc's public header: the one ordered table of symbol
 * sources, the places a file with a given Mach-O UUID is looked for.  Each
 * source has one interface (symsrc.c's source_ops): asked for the k-th file
 * it holds for a UUID, it answers one or none and, the first time it is
 * asked within an iteration, says what it tried and what came of it (the
 * "trail" `kpbrowse symbols where` prints).  The order is fixed (README
 * "Symbols: where dSYMs are found"): next to a --dsym binary, --dsym, local
 * folders, file-mapped UUID trees, KDKs, Spotlight, a dsymForUUID command,
 * symbol servers over HTTP(S) (symhttp.h), kernelcaches.
 *
 * Sources that walk folders do it through a kp_dsym_index (dsym.h) the
 * caller owns and passes to kp__symsrc_new; each tags its roots with its
 * table index, so a file is credited to the source that named its folder.
 * A hit is a candidate: callers confirm LC_UUID when they open it, and ask
 * for the next one when it does not hold the UUID.
 *
 * Ownership: a kp__symsrc owns every string it hands out (paths, trail
 * text); they stay valid until kp__symsrc_free.  A trail's strings are the
 * trail's, freed by kp__symsrc_trail_free.  Not thread-safe.
 *
 * Calls: kp__symsrc_new, then any number of iterations (kp__symsrc_iter_init
 * then kp__symsrc_next until false), then kp__symsrc_free. */
#ifndef KP_SYMSRC_H
#define KP_SYMSRC_H

#include <stdbool.h>
#include <stddef.h>

#include "dsym.h"
#include "kp_error.h"
#include "plist.h"
#include "symhttp.h"

typedef struct kp__symsrc kp__symsrc;

typedef struct kp__symsrc_cfg {
	const char *const *dsym_paths;  /* --dsym, each already known to exist */
	size_t ndsym;
	const char *const *kernelcache_paths; /* --kernelcache, each known to exist:
	                                   first of the kernelcaches source, even
	                                   with no_env */
	size_t nkernelcache;
	bool no_env;                    /* no environment, config file or defaults */
	bool no_system;                 /* no KDKs, Spotlight, this Mac's kernelcaches */
	bool no_shell;                  /* no dsymForUUID command */
	const char *cache_dir;          /* "" or NULL: no kept kernelcaches */
	const char *const *sig_paths;   /* --signatures folders */
	size_t nsig;
} kp__symsrc_cfg;

kp_status kp__symsrc_new(const kp__symsrc_cfg *cfg, kp_dsym_index *dx, kp__symsrc **out,
                         kp_error *err);
void kp__symsrc_free(kp__symsrc **s);

/* The report's build (e.g. "25G83"): the KDK whose name holds it is walked
 * first.  Takes effect if set before the KDK source is first asked. */
void kp__symsrc_set_build(kp__symsrc *s, const char *build);

/* The signature folders (sigfile.h), in order: --signatures, then
 * KPBROWSE_SIGNATURES (colon-separated), then the config file's
 * `Signatures = DIR` lines; repeats dropped. */
const char *const *kp__symsrc_sigdirs(const kp__symsrc *s, size_t *n);

/* The k-th path the user named for a folder-walking source: --dsym, then
 * the kernelcaches (--kernelcache, KPBROWSE_KERNELCACHE_PATH, the config's),
 * then the local folders; *what names the setting, *outright says it was
 * named on the command line.  false past the last. */
bool kp__symsrc_named_root(const kp__symsrc *s, size_t k, const char **path, const char **what,
                           bool *outright);

/* Registers the roots of every folder-walking source, system ones too (the
 * search by kext bundle id walks them all). */
void kp__symsrc_add_all_roots(kp__symsrc *s);

/* Asks for uuids[0..n) (any case, dashes optional) at once: the
 * dsymForUUID programs 4 at a time (threads), then the symbol servers'
 * downloads in parallel, each for the UUIDs no source before it holds and
 * it was not asked for yet, all within one deadline
 * (KPBROWSE_SYMBOL_DEADLINE, default 30 s, 0 none); what came of each (a
 * time-out, the deadline passing) is kept, so the iterations that follow
 * answer from it (and say it in the trail) without asking again.  How
 * many files were downloaded. */
size_t kp__symsrc_prefetch(kp__symsrc *s, const char *const *uuids, size_t n);

/* Progress of downloads (bytes), for kp_symbols_set_progress. */
void kp__symsrc_set_progress(kp__symsrc *s, kp__symhttp_progress_fn fn, void *ctx);
/* Any thread: downloads running end now and none starts after (they say
 * "cancelled"); for a program on its way out. */
void kp__symsrc_cancel(kp__symsrc *s);

/* One step of a trail: a source asked, or a candidate it gave refused. */
typedef struct kp__symsrc_step {
	const char *source;   /* the source's name (static) */
	char *tried;          /* what it looked at: folders, paths, a command */
	char *said;           /* what came of it */
	bool found;
} kp__symsrc_step;

typedef struct kp__symsrc_trail {
	kp__symsrc_step *v;
	size_t n, cap;
} kp__symsrc_trail;

/* Appends a step (the strings are copied; false when out of memory). */
bool kp__symsrc_trail_add(kp__symsrc_trail *t, const char *source, const char *tried,
                          const char *said, bool found);
void kp__symsrc_trail_free(kp__symsrc_trail *t);

typedef struct kp__symsrc_hit {
	const char *path;     /* a DWARF or Mach-O file that should hold the UUID */
	const char *exec;     /* the binary the source named with it, or NULL */
	const char *arch;     /* the architecture the source said, or NULL */
	const kp__dsym_answer *answer;  /* a dsymForUUID answer (its source paths), or NULL */
	unsigned source;      /* its index in the table */
	const char *name;     /* and its name */
} kp__symsrc_hit;

typedef struct kp__symsrc_iter {
	char uuid[37];
	unsigned src;
	size_t k;
} kp__symsrc_iter;

/* uuid canonical (kp_uuid_canon). */
void kp__symsrc_iter_init(kp__symsrc_iter *it, const char *uuid);

/* The next candidate, sources in table order and within one source in its
 * own order (dSYMs before binaries for folder walks); false after the last.
 * With t, each source asked appends one step to it. */
bool kp__symsrc_next(kp__symsrc *s, kp__symsrc_iter *it, kp__symsrc_trail *t,
                     kp__symsrc_hit *hit);

/* The next candidate of the source the last one came from, without moving
 * on to the next source and without a trail step; false after its last. */
bool kp__symsrc_next_here(kp__symsrc *s, kp__symsrc_iter *it, kp__symsrc_hit *hit);

#endif
