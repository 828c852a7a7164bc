/* lzfse.h: private to core/macho/: LZFSE streams (Apple's compression of
 * IM4P kernelcaches), written from the format: "bvx2" and "bvx1" blocks
 * (FSE-coded literals and literal/match/distance triples), "bvxn" (LZVN),
 * "bvx-" (stored), up to the "bvx$" that ends the stream.  im4p.c is the
 * one caller.
 *
 * Ownership: nothing is kept; src and dst are the caller's.  Call order:
 * kp__lzfse_size (walks the block headers: the size a decode will write),
 * then kp__lzfse_decode into a buffer of that size.  Both bound everything
 * by n and cap: no write past dst[cap), no read past src[n), work linear in
 * n + cap.  Errors name the byte of src where the stream lies. */
#ifndef KP_LZFSE_H
#define KP_LZFSE_H

#include <stddef.h>

#include "kp_error.h"

/* The bytes the stream src[0..n) decodes to, as its block headers say:
 * KP_ERR_FORMAT for a header that is cut short or unknown. */
kp_status kp__lzfse_size(const unsigned char *src, size_t n, size_t *size, kp_error *err);

/* Decodes src[0..n) into dst[0..cap), *outlen the bytes written:
 * KP_ERR_FORMAT for data that does not decode, KP_ERR_LIMIT when it would
 * write more than cap, KP_ERR_NOMEM for the literal buffer (malloc'd and
 * freed within the call). */
kp_status kp__lzfse_decode(unsigned char *dst, size_t cap, size_t *outlen, const unsigned char *src,
                           size_t n, kp_error *err);

#endif
