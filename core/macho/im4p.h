/* im4p.h: private to core/macho/: kernelcaches as Apple's Preboot volume
 * keeps them, an IM4P container (DER) around the Mach-O, LZSS-compressed
 * (complzss) or LZFSE-compressed (lzfse.h), or stored.  kp_macho_open
 * unwraps them, so a wrapped kernelcache reads like a plain one.
 *
 * Ownership: kp__im4p_unwrap's *out is malloc'd, the caller's to free. */
#ifndef KP_IM4P_H
#define KP_IM4P_H

#include <stdbool.h>
#include <stddef.h>

#include "kp_error.h"

/* The largest kernelcache unwrapped (today's are about 100 MB). */
#define KP_IM4P_MAX_SIZE (1024u << 20)

/* True when d[0..n) (a file's first bytes; n >= 16 is enough) starts an
 * IM4P. */
bool kp__im4p_sniff(const unsigned char *d, size_t n);

/* The payload of the IM4P d[0..n), decompressed: KP_ERR_FORMAT naming the
 * byte where the container or the compressed data lies, KP_ERR_LIMIT past
 * KP_IM4P_MAX_SIZE, KP_ERR_NOMEM. */
kp_status kp__im4p_unwrap(const unsigned char *d, size_t n, unsigned char **out, size_t *outlen,
                          kp_error *err);

#endif
