/* text_sleepwake.c: the preamble of a Sleep Wake Failure report (contract:
 * kp__sleepwake_* in report_build.h); the spindump after it is
 * text_spindump.c's.
 *
 * The form, as swd writes it into "Sleep Wake Failure_*.diag" (bug_type 24
 * after a one-line JSON header, or bare in the text that
 * /var/db/PanicReporter/current.panic names), macOS 10.12 to 15:
 *   [UUID: ...]                                 optional
 *   REASON                                      one line, or "Stackshot Reason: REASON"
 *   Failure code:: 0xHHHHHHHH HHHHHHHH         two words, the second maybe 0x-prefixed
 *   [Please IGNORE the below stackshot]         the stackshot is swd's own
 *   ================================================================
 *   Date/Time: ...  Event: Sleep Wake Failure ...   the spindump text
 * REASON examples: "Sleep Wake failure in EFI", "Power button pressed during
 * wake transition after 88661 ms.", "Wake transition timed out after 180
 * seconds while calling power state change callbacks. Suspected bundle:
 * com.example.Driver. Thread 0x20a9."
 * The phase is the low byte of the code's second word, the last PM trace
 * point recorded (kIOPMTracePoint* in xnu's IOPMPrivate.h). */
#include "report_build.h"
#include "text_span.h"

#include <string.h>

/* How far the preamble may reach (a reason line is short). */
#define PREAMBLE_BYTES 8192

/* A separator: 16 or more '=' and nothing else. */
static bool rule_line(const char *s, const char *e)
{
	if (e - s < 16)
		return false;
	for (; s < e; s++)
		if (*s != '=')
			return false;
	return true;
}

/* Where the separator line after a "Failure code::" line ends (the body
 * starts there), or NULL when data has no such preamble. */
static const char *preamble_end(const char *data, size_t len)
{
	const char *p = data, *end = data + (len < PREAMBLE_BYTES ? len : PREAMBLE_BYTES);
	bool code = false;
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		const char *s = kp__span_skip_blanks(p, e), *te = kp__span_trim_end(s, e);
		if (kp__span_has_prefix(s, te, "Failure code::"))
			code = true;
		else if (rule_line(s, te))
			return code && e < data + len ? e + 1 : NULL;
		p = e + 1;
	}
	return NULL;
}

const char *kp_sleepwake_phase_name(unsigned phase)
{
	switch (phase) {
	case 0x00: return "system up";
	case 0x10: return "sleep started";
	case 0x11: return "sleep: applications";
	case 0x12: return "sleep: priority clients";
	case 0x13: return "sleep: will-change interests";
	case 0x14: return "sleep: power plane drivers";
	case 0x15: return "sleep: did-change interests";
	case 0x16: return "sleep: capability clients";
	case 0x17: return "sleep: platform actions";
	case 0x18: return "sleep: CPUs";
	case 0x19: return "sleep: platform driver";
	case 0x1a: return "hibernate";
	case 0x1f: return "system sleep (firmware / EFI)";
	case 0x21: return "wake: platform driver";
	case 0x22: return "wake: platform actions";
	case 0x23: return "wake: CPUs";
	case 0x24: return "wake: will-power-on clients";
	case 0x25: return "wake: will-change interests";
	case 0x26: return "wake: did-change interests";
	case 0x27: return "wake: power plane drivers";
	case 0x28: return "wake: capability clients";
	case 0x29: return "wake: applications";
	case 0x30: return "loginwindow";
	case 0x31: return "dark wake entry";
	case 0x32: return "dark wake exit";
	default: return NULL;
	}
}

/* Hex digits without 0x (the code's second word as swd prints it). */
static bool hex_word(const char *s, const char *e, uint64_t *v)
{
	if (s == e || e - s > 16)
		return false;
	*v = 0;
	for (; s < e; s++) {
		int d = kp_hex_digit((unsigned char)*s);
		if (d < 0)
			return false;
		*v = *v << 4 | (uint64_t)d;
	}
	return true;
}

/* "Suspected bundle: ID." and "Thread 0xT." inside the reason. */
static void reason_parts(kp_report *r, const char *s, const char *e, struct kp_sleepwake_pre *out)
{
	const char *k = NULL;
	for (const char *t = s; t + 18 <= e && !k; t++)
		if (memcmp(t, "Suspected bundle: ", 18) == 0)
			k = t + 18;
	if (k) {
		const char *q = k;
		while (q < e && *q != ' ' && *q != '\t')
			q++;
		if (q > k && q[-1] == '.')
			q--;
		if (q > k)
			out->bundle = kp__strndup(r, k, (size_t)(q - k));
	}
	for (const char *t = s; t + 9 <= e; t++)
		if (memcmp(t, "Thread 0x", 9) == 0) {
			const char *q = t + 7, *h = t + 9;
			while (h < e && ((*h >= '0' && *h <= '9') || (*h >= 'a' && *h <= 'f') || (*h >= 'A' && *h <= 'F')))
				h++;
			out->has_tid = kp_parse_u64(q, (size_t)(h - q), &out->tid);
			break;
		}
}

size_t kp__sleepwake_preamble(kp_report *r, const char *data, size_t len, struct kp_sleepwake_pre *out)
{
	memset(out, 0, sizeof *out);
	const char *body = preamble_end(data, len);
	if (!body)
		return 0;
	const char *p = data;
	while (p < body) {
		const char *e = memchr(p, '\n', (size_t)(body - p));
		if (!e)
			e = body;
		const char *s = kp__span_skip_blanks(p, e), *te = kp__span_trim_end(s, e);
		if (kp__span_has_prefix(s, te, "Failure code::")) {
			const char *v = kp__span_skip_blanks(s + 14, te);
			r->sleep_failure_code = kp__strndup(r, v, (size_t)(te - v));
			/* the second word: its low byte is the phase */
			const char *w = v;
			while (w < te && *w != ' ' && *w != '\t')
				w++;
			w = kp__span_skip_blanks(w, te);
			const char *we = w;
			while (we < te && *we != ' ' && *we != '\t')
				we++;
			uint64_t v2;
			bool ok = we > w && (kp__span_has_prefix(w, we, "0x") ? kp_parse_u64(w, (size_t)(we - w), &v2)
			                                               : hex_word(w, we, &v2));
			if (ok) {
				r->has_sleep_phase = true;
				r->sleep_phase = (unsigned)(v2 & 0xff);
			}
		} else if (kp__span_has_prefix(s, te, "Please IGNORE")) {
			out->ignore_stackshot = true;
		} else if (kp__span_has_prefix(s, te, "Stackshot Reason:")) {
			const char *v = kp__span_skip_blanks(s + 17, te);
			r->reason = kp__strndup(r, v, (size_t)(te - v));
			reason_parts(r, v, te, out);
		} else if (s < te && !r->reason && !rule_line(s, te) && !kp__span_has_prefix(s, te, "UUID:")) {
			r->reason = kp__strndup(r, s, (size_t)(te - s));
			reason_parts(r, s, te, out);
		}
		p = e + 1;
	}
	return (size_t)(body - data);
}
