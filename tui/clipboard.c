/* clipboard.c: OSC 52 copy (kpt_clipboard.h).  The text is base64'd, so
 * report text cannot end the sequence early or inject its own. */
#include "kpt_app.h"
#include "kpt_clipboard.h"
#include "kpt_prompt.h"
#include "kpt_xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *kpt_clipboard_osc52(const char *text, size_t len)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	static const char head[] = "\033]52;c;";
	char *out = kpt_xmalloc(sizeof head + (len + 2) / 3 * 4 + 2);
	size_t n = sizeof head - 1;
	memcpy(out, head, n);
	const unsigned char *s = (const unsigned char *)text;
	for (size_t i = 0; i < len; i += 3) {
		unsigned v = (unsigned)s[i] << 16 | (i + 1 < len ? (unsigned)s[i + 1] << 8 : 0) |
		             (i + 2 < len ? s[i + 2] : 0);
		out[n++] = b64[v >> 18 & 63];
		out[n++] = b64[v >> 12 & 63];
		out[n++] = i + 1 < len ? b64[v >> 6 & 63] : '=';
		out[n++] = i + 2 < len ? b64[v & 63] : '=';
	}
	out[n++] = '\a';
	out[n] = '\0';
	return out;
}

void kpt_clipboard_copy(kpt_app *app, const char *text, const char *what)
{
	char *seq = kpt_clipboard_osc52(text, strlen(text));
	size_t len = strlen(seq), off = 0;
	while (off < len) {
		ssize_t k = write(STDOUT_FILENO, seq + off, len - off);
		if (k <= 0)
			break;
		off += (size_t)k;
	}
	free(seq);
	size_t tl = strlen(text);
	kpt_set_msg(app, "copied %s to the clipboard (OSC 52): %.60s%s", what, text,
	            tl > 60 || strchr(text, '\n') ? "..." : "");
}
