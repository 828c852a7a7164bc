/* kext_abbrev.c: the Catalina-era kext id compaction of panic texts (the
 * tables of xnu libkern/kext_panic_report.h), undone.
 *
 * A leading '>' '|' '$' '@' stands for com.apple.driver. / .iokit. /
 * .security. / com.apple.; "!X" inside stands for a word.  Unknown "!X"
 * pairs are kept verbatim.  Quirk: a '>' directly followed by another
 * prefix character (">|IOUserEthernet", ">@BootCache" in the 10.15 corpus
 * file, whose markdown quoting was removed) is dropped: "com.apple.driver.|..."
 * is no bundle id, and the Monterey list writes the same kexts with the
 * single inner prefix. */
#include "report_build.h"

#include <string.h>

static const char *prefix_of(char ch)
{
	switch (ch) {
	case '>': return "com.apple.driver.";
	case '|': return "com.apple.iokit.";
	case '$': return "com.apple.security.";
	case '@': return "com.apple.";
	default: return NULL;
	}
}

static const char *word_of(char ch)
{
	switch (ch) {
	case 'U': return "AppleUSB";
	case 'A': return "Apple";
	case 'F': return "Family";
	case 'S': return "Storage";
	case 'C': return "Controller";
	case 'B': return "Bluetooth";
	case 'I': return "Intel";
	default: return NULL;
	}
}

char *kp__kext_expand(kp_report *r, const char *s, size_t n)
{
	if (n >= 2 && s[0] == '>' && (s[1] == '|' || s[1] == '$' || s[1] == '@')) {
		s++;
		n--;
	}
	const char *pre = n ? prefix_of(s[0]) : NULL;
	size_t i0 = pre ? 1 : 0, out = pre ? strlen(pre) : 0;
	if (!memchr(s + i0, '!', n - i0)) {   /* most ids: no word to expand */
		char *d = kp__alloc(r, out + n - i0 + 1);
		if (d) {
			memcpy(d, pre ? pre : "", out);
			memcpy(d + out, s + i0, n - i0);
			d[out + n - i0] = '\0';
		}
		return d;
	}
	for (size_t i = i0; i < n; i++) {
		const char *w = (s[i] == '!' && i + 1 < n) ? word_of(s[i + 1]) : NULL;
		out += w ? strlen(w) : 1;
		i += w ? 1 : 0;
	}
	char *d = kp__alloc(r, out + 1);
	if (!d)
		return NULL;
	char *w = d;
	if (pre) {
		memcpy(w, pre, strlen(pre));
		w += strlen(pre);
	}
	for (size_t i = i0; i < n; i++) {
		const char *word = (s[i] == '!' && i + 1 < n) ? word_of(s[i + 1]) : NULL;
		if (word) {
			memcpy(w, word, strlen(word));
			w += strlen(word);
			i++;
		} else {
			*w++ = s[i];
		}
	}
	*w = '\0';
	return d;
}

