/* sigmatch.h: kpsignatures' public header: names the functions of one
 * kernelcache entry (or any slice with LC_FUNCTION_STARTS) from
 * symbolicator's signature files (sigfile.h), as ipsw applies them:
 *
 *  1. each anchor string is looked up, whole and NUL-terminated, in its
 *     segment and section of the slice;
 *  2. the code (__TEXT_EXEC,__text and __TEXT,__text) is swept once for
 *     instructions forming one of those addresses, by bit pattern (arm64:
 *     adr, adrp followed within 8 instructions by an add of its register;
 *     x86_64: REX.W 8D /r with mod 00 rm 101, a rip-relative lea), and
 *     Capstone confirms each candidate (x86_64: decoded from the start of
 *     its function, so the instruction boundary is a real one);
 *  3. the function holding a reference (LC_FUNCTION_STARTS) is named
 *     `symbol` when more of the signature's anchors point into it than into
 *     any other function; a tie names nothing;
 *  4. backtrace[0] names the only function that calls symbol's start (bl /
 *     call, confirmed as above), backtrace[1] the only caller of that, and
 *     so on while there is exactly one caller;
 *  5. an anchor's `caller` names what the first call after its reference
 *     calls, when every anchor naming that caller agrees on the address.
 *
 * Conflicts name nothing: two signatures naming one function differently
 * (an anchor-matched name beats a backtrace or caller one), or one name
 * matched at two addresses.  Names are kept as the files spell them
 * (mangled); lookups demangle them.
 *
 * Ownership: the map is the caller's (kp__symmap_free). */
#ifndef KP_SIGMATCH_H
#define KP_SIGMATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "kp_error.h"
#include "kp_macho.h"
#include "sigfile.h"
#include "symmap.h"

/* Told of what one file could not do here (an anchor's section absent
 * from the slice); once per file. */
typedef void (*kp__sigwarn_fn)(void *ctx, const char *file, const char *msg);

typedef struct kp__sigstats {
	size_t anchors_found, candidates, confirmed, named;
} kp__sigstats;

/* Applies files[0..n) (already chosen for this slice: target and version)
 * to sl of m.  KP_ERR_USAGE without Capstone (the message says how to get
 * it), KP_ERR_FORMAT for an architecture other than arm64/x86_64,
 * KP_ERR_NOMEM.  *out may be empty. */
kp_status kp__sig_match(kp_macho *m, const kp_macho_slice *sl, const kp__sigfile *const *files,
                        size_t n, kp__sigwarn_fn warn, void *ctx, kp_symmap **out,
                        kp__sigstats *stats, kp_error *err);

#endif
