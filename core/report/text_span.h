/* text_span.h: private to core/report/: the span helpers of the line-based
 * text readers (text_stackshot.c, text_spindump.c, text_sleepwake.c,
 * text_notkernel.c, nvram.c), which read [s, e) spans of a buffer that is
 * not NUL-terminated.  One home for them; the panic text parser's
 * NUL-terminated helpers are text_parse.h's. */
#ifndef KP_TEXT_SPAN_H
#define KP_TEXT_SPAN_H

#include <stdbool.h>
#include <string.h>

/* The first byte of [s, e) that is no blank or tab (e when none). */
static inline const char *kp__span_skip_blanks(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

/* The end of [s, e) without its trailing blanks, tabs and CR. */
static inline const char *kp__span_trim_end(const char *s, const char *e)
{
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	return e;
}

static inline bool kp__span_has_prefix(const char *s, const char *e, const char *pre)
{
	size_t n = strlen(pre);
	return (size_t)(e - s) >= n && memcmp(s, pre, n) == 0;
}

/* The first needle in [s, e), or NULL. */
static inline const char *kp__span_find(const char *s, const char *e, const char *needle)
{
	size_t n = strlen(needle);
	for (; (size_t)(e - s) >= n; s++)
		if (*s == *needle && memcmp(s, needle, n) == 0)
			return s;
	return NULL;
}

#endif
