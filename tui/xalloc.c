/* xalloc.c: kpt_xalloc.h. */
#include "kpt_xalloc.h"
#include "kp_vec.h"

#include <stdlib.h>
#include <string.h>

void *kpt_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		abort();
	return p;
}

void *kpt_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		abort();
	return p;
}

void *kpt_xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		abort();
	return p;
}

char *kpt_xstrdup(const char *s)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		abort();
	return d;
}

void *kpt_xpush(void **arr, size_t *n, size_t *cap, size_t sz)
{
	void *e = kp_vec_push(arr, n, cap, sz);
	if (!e)
		abort();
	return e;
}
