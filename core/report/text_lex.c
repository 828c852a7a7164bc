/* text_lex.c: the text parser's small helpers every part uses: growing
 * its string buffers, trimmed arena copies, quote tracking (part of
 * kp__text_parse; shared state: text_parse.h).  Calls nothing of the other
 * parts, so text_parse.c -> text_header.c -> text_kexts.c/text_backtrace.c
 * -> text_lex.c runs one way. */
#include "text_parse.h"

#include <string.h>

bool kp__text_sb_put(tp *c, kp_sb *b, const char *s, size_t n)
{
	if (kp_sb_add(b, s, n))
		return true;
	c->oom = true;
	return false;
}

char *kp__text_dup_trim(tp *c, const char *s)
{
	s = skip_ws(s);
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	char *d = kp__strndup(c->r, s, n);
	if (!d)
		c->oom = true;
	return d;
}

void kp__text_set_str(tp *c, char **field, const char *v)
{
	v = skip_ws(v);
	if (!*field && *v)
		*field = kp__text_dup_trim(c, v);
}

bool kp__text_quotes_open(const char *s)
{
	bool open = false;
	for (const char *p = s; *p; p++)
		if (*p == '"' && (p == s || p[-1] != '\\'))
			open = !open;
	return open;
}
