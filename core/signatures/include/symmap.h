/* symmap.h: kpsignatures' public header: the address-to-name map that
 * `ipsw kernel symbolicate --json` writes beside a kernelcache
 * (<kernelcache>.symbols.json), naming functions of a stripped cache by
 * signature.  Two shapes are read: an object of decimal (or 0x-hex) address
 * strings to names, {"18446741874686545420": "kernel_bootstrap"}, and an
 * array of {"addr": ..., "sym": ...}.  Addresses are the cache's own
 * (unslid) virtual addresses of function starts.
 *
 * Ownership: a kp_symmap owns its names (a loaded one the file's text);
 * kp__symmap_free clears the caller's pointer.  Read-only after load: safe to share across lookups. */
#ifndef KP_SYMMAP_H
#define KP_SYMMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kp_error.h"

typedef struct kp_symmap kp_symmap;

/* The largest map read (a whole kernelcache's map is a few MB); one is kept
 * whole, names decoded in place, plus 16 bytes per entry (each at least 8
 * bytes of JSON): at most three times its size. */
#define KP_SYMMAP_MAX_SIZE (256u << 20)

/* Reads path: KP_ERR_IO when it cannot be read (KP_ERR_NOTFOUND when it
 * does not exist), KP_ERR_FORMAT naming the byte where the JSON breaks or
 * what is not a map, KP_ERR_NOMEM. */
kp_status kp__symmap_load(const char *path, kp_symmap **out, kp_error *err);

/* The entry with the greatest address at or below addr: false when none. */
bool kp__symmap_lookup(const kp_symmap *m, uint64_t addr, const char **name, uint64_t *start);

size_t kp__symmap_count(const kp_symmap *m);

/* A map built by the caller (signature names, sigmatch.h): new, any number
 * of adds (name copied; an empty name is ignored), then sort before the
 * first lookup.  new: NULL when out of memory; add: false then. */
kp_symmap *kp__symmap_new(void);
bool kp__symmap_add(kp_symmap *m, uint64_t addr, const char *name);
void kp__symmap_sort(kp_symmap *m);
void kp__symmap_free(kp_symmap **m);

#endif
