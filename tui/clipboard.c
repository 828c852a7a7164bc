/* clipboard.c: OSC 52 copy (kpt_clipboard.h).  The text is base64'd, so
 * report text cannot end the sequence early or inject its own; and it is
 * sanitised first, a line at a time, so what is pasted cannot act either
 * (a copied name that ends a bracketed paste and carries a CR or a newline
 * would run a command in a shell): the clipboard gets what the screen
 * shows, \x0a where a field holds a newline. */
#include "kpt_app.h"
#include "kpt_clipboard.h"
#include "kpt_prompt.h"
#include "kpt_xalloc.h"
#include "kp_sanitize.h"

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

char *kpt_clipboard_text(const char *const *lines, size_t n, bool *cut)
{
	size_t o = 0, cap = 64;
	char *out = kpt_xmalloc(cap);
	*cut = false;
	for (size_t i = 0; i < n; i++) {
		if (o >= KPT_CLIPBOARD_MAX) {   /* full, and a line is left */
			*cut = true;
			break;
		}
		size_t len = strlen(lines[i]);
		size_t in = len > KPT_CLIPBOARD_MAX ? KPT_CLIPBOARD_MAX : len;
		/* sanitising grows a byte to at most 10 (<U+1D173>) */
		if (o + in * 10 + 2 > cap) {
			cap = o + in * 10 + 2;
			out = kpt_xrealloc(out, cap);
		}
		if (i > 0)
			out[o++] = '\n';
		o += kp_sanitize(out + o, cap - o, lines[i], in, 0);
		*cut |= in < len;
	}
	if (o > KPT_CLIPBOARD_MAX) {
		o = KPT_CLIPBOARD_MAX;
		while (o > 0 && ((unsigned char)out[o] & 0xC0) == 0x80)
			o--;   /* never half a UTF-8 sequence */
		*cut = true;
	}
	out[o] = '\0';
	return out;
}

void kpt_clipboard_copy_lines(kpt_app *app, const char *const *lines, size_t n, const char *what)
{
	bool cut;
	char *text = kpt_clipboard_text(lines, n, &cut);
	char *seq = kpt_clipboard_osc52(text, strlen(text));
	size_t len = strlen(seq), off = 0;
	while (off < len) {
		ssize_t k = write(STDOUT_FILENO, seq + off, len - off);
		if (k <= 0)
			break;
		off += (size_t)k;
	}
	free(seq);
	if (cut) {
		kpt_set_msg(app, "copied the first %u KiB of %s to the clipboard (OSC 52): it is longer",
		            KPT_CLIPBOARD_MAX >> 10, what);
	} else {
		char shown[64];
		size_t tl = strcspn(text, "\n");
		kp_sanitize(shown, sizeof shown, text, tl < 60 ? tl : 60, 0);
		kpt_set_msg(app, "copied %s to the clipboard (OSC 52): %s%s", what, shown,
		            tl > 60 || text[tl] ? "..." : "");
	}
	free(text);
}

void kpt_clipboard_copy(kpt_app *app, const char *line, const char *what)
{
	kpt_clipboard_copy_lines(app, &line, 1, what);
}
