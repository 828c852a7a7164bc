/* clipboard.c: OSC 52 copy (kpt_clipboard.h).  The text is base64'd, so
 * report text cannot end the sequence early or inject its own; and it is
 * sanitised first, so what is pasted cannot act either (a copied name that
 * ends a bracketed paste and carries a CR would run a command in a shell). */
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

char *kpt_clipboard_text(const char *text, size_t len, bool *cut)
{
	/* sanitising never shrinks text but for a dropped CR, and grows a byte
	 * to at most 10 (<U+1D173>): a capped prefix is all that can fit */
	size_t in = len > KPT_CLIPBOARD_MAX ? KPT_CLIPBOARD_MAX : len;
	size_t size = in * 10 + 1;
	char *out = kpt_xmalloc(size);
	size_t n = kp_sanitize(out, size, text, in, KP_SAN_KEEP_NEWLINES);
	*cut = in < len;
	if (n > KPT_CLIPBOARD_MAX) {
		n = KPT_CLIPBOARD_MAX;
		while (n > 0 && ((unsigned char)out[n] & 0xC0) == 0x80)
			n--;   /* never half a UTF-8 sequence */
		out[n] = '\0';
		*cut = true;
	}
	return out;
}

void kpt_clipboard_copy(kpt_app *app, const char *raw, const char *what)
{
	bool cut;
	char *text = kpt_clipboard_text(raw, strlen(raw), &cut);
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
