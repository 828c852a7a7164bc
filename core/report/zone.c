/* zone.c: the suspect of a zone exhaustion panic (issue 14 item 9), from
 * the panic text's two forms:
 *   zalloc: "kalloc.1024" (100535 elements) retry fail
 *   ... zone map exhausted ... likely due to memory leak in zone NAME (SIZE,
 *       N elements allocated)
 * where NAME may be in brackets ("[default.kalloc.48]") and SIZE is "N
 * total bytes" or a count with a K/M/G suffix.  Only the first match counts;
 * the figures are kept only when they read as numbers. */
#include "report_build.h"

#include <string.h>

static bool digits(const char *s, uint64_t *v, const char **end)
{
	size_t n = 0;
	while (s[n] >= '0' && s[n] <= '9')
		n++;
	if (!n || !kp_parse_u64(s, n, v))
		return false;
	*end = s + n;
	return true;
}

/* "N elements" anywhere in [s, e). */
static bool elements_in(const char *s, const char *e, uint64_t *v)
{
	for (const char *p = s; p < e; p++) {
		const char *q;
		if ((p == s || p[-1] == ' ' || p[-1] == '(') && digits(p, v, &q) && q < e &&
		    strncmp(q, " elements", 9) == 0)
			return true;
	}
	return false;
}

/* The size before the first ',' of "(SIZE, ...)": "N total bytes", "NM". */
static bool bytes_in(const char *s, const char *e, uint64_t *v)
{
	const char *q;
	if (!digits(s, v, &q) || q >= e)
		return false;
	uint64_t mul = *q == 'K' ? 1024 : *q == 'M' ? 1024 * 1024 : *q == 'G' ? 1024ull * 1024 * 1024 : 1;
	if (mul == 1 && strncmp(q, " total bytes", 12) != 0 && strncmp(q, " bytes", 6) != 0)
		return false;
	if (*v > UINT64_MAX / mul)
		return false;
	*v *= mul;
	return true;
}

void kp__zone_parse(kp_report *r)
{
	const char *t = r->panic_string ? r->panic_string : r->headline;
	if (!t || r->zone.name)
		return;
	const char *p = strstr(t, "memory leak in zone ");
	if (p) {
		p += 20;
		const char *nl = strchr(p, '\n'), *lim = nl ? nl : p + strlen(p);
		const char *open = memchr(p, '(', (size_t)(lim - p));
		const char *ne = open ? open : lim;
		while (ne > p && ne[-1] == ' ')
			ne--;
		const char *ns = p;
		if (ns < ne && *ns == '[' && ne[-1] == ']')
			ns++, ne--;
		if (ne <= ns)
			return;
		r->zone.name = kp__strndup(r, ns, (size_t)(ne - ns));
		if (open) {
			const char *close = memchr(open, ')', (size_t)(lim - open));
			const char *ce = close ? close : lim;
			r->zone.has_bytes = bytes_in(open + 1, ce, &r->zone.bytes);
			r->zone.has_elements = elements_in(open + 1, ce, &r->zone.elements);
		}
		return;
	}
	/* the quotes may come escaped (\\") when the text was pasted from JSON */
	p = strstr(t, "zalloc: ");
	if (!p || !strstr(p, "retry fail"))
		return;
	p += 8;
	if (*p == '\\')
		p++;
	if (*p != '"')
		return;
	p++;
	const char *q = strchr(p, '"');
	if (q && q > p && q[-1] == '\\')
		q--;
	const char *nl = strchr(p, '\n');
	if (!q || q == p || (nl && nl < q))
		return;
	r->zone.name = kp__strndup(r, p, (size_t)(q - p));
	const char *lim = nl ? nl : q + strlen(q);
	r->zone.has_elements = elements_in(q, lim, &r->zone.elements);
}
