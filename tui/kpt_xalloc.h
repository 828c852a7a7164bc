/* kpt_xalloc.h: the TUI's one out-of-memory policy: allocate or abort().
 * A browser that cannot allocate a row cannot show anything useful, and
 * threading NULL checks through every draw path would hide real errors.
 * Subcommands and the libraries below report KP_ERR_NOMEM instead. */
#ifndef KPT_XALLOC_H
#define KPT_XALLOC_H

#include <stddef.h>

void *kpt_xmalloc(size_t size);             /* size 0 allocates 1 byte */
void *kpt_xcalloc(size_t n, size_t size);   /* n 0 allocates one element */
void *kpt_xrealloc(void *p, size_t size);
/* strdup; NULL stays NULL */
char *kpt_xstrdup(const char *s);
/* kp_vec_push (kp_vec.h): one zeroed element appended to a growable array */
void *kpt_xpush(void **arr, size_t *n, size_t *cap, size_t sz);

#endif
