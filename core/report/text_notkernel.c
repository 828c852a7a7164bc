/* text_notkernel.c: text reports that are not kernel reports (issue 24
 * item 6), recognised by content so that `index` skips them (counted) and
 * `show` names them, instead of reading them as a hang or failing on them
 * (contract: kp__notkernel_sniff in report_build.h).
 *
 * Recognised, after an optional one-line JSON header:
 *  - an application crash report in text (.crash, macOS 10.x to 11): an
 *    "Exception Type:" line with "Crashed Thread:", "Termination Reason:"
 *    or "Thread N Crashed" (the JSON .ips crashes, bug_type 309, are the
 *    JSON parser's to reject);
 *  - a resource report (.diag: wakeups, cpu_resource, diskwrites_resource):
 *    spindump-like text with "Data Source: Microstackshots" or an "Event:"
 *    of wakeups, cpu usage or disk writes, which would otherwise read as a
 *    hang. */
#include "report_build.h"
#include "text_span.h"

#include <stdio.h>
#include <string.h>

#define SNIFF_BYTES 65536

/* "Thread N Crashed" */
static bool crashed_line(const char *s, const char *e)
{
	if (!kp__span_has_prefix(s, e, "Thread "))
		return false;
	s += 7;
	const char *d = s;
	while (s < e && *s >= '0' && *s <= '9')
		s++;
	return s > d && kp__span_has_prefix(s, e, " Crashed");
}

const char *kp__notkernel_sniff(const char *data, size_t len)
{
	const char *p = data, *end = data + (len < SNIFF_BYTES ? len : SNIFF_BYTES);
	bool exception = false, crashed = false, micro = false;
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		const char *s = kp__span_skip_blanks(p, e), *te = e;
		while (te > s && (te[-1] == ' ' || te[-1] == '\t' || te[-1] == '\r'))
			te--;
		if (kp__span_has_prefix(s, te, "Data Source:") && kp__span_has_prefix(kp__span_skip_blanks(s + 12, te), te, "Microstackshots"))
			micro = true;   /* its Event line, below, says which */
		if (micro && kp__span_has_prefix(s, te, "Process:"))
			break;
		if (kp__span_has_prefix(s, te, "Event:")) {
			const char *v = kp__span_skip_blanks(s + 6, te);
			if (kp__span_has_prefix(v, te, "wakeups"))
				return "a resource report (wakeups)";
			if (kp__span_has_prefix(v, te, "cpu usage"))
				return "a resource report (cpu usage)";
			if (kp__span_has_prefix(v, te, "disk writes"))
				return "a resource report (disk writes)";
		}
		exception |= kp__span_has_prefix(s, te, "Exception Type:");
		crashed |= kp__span_has_prefix(s, te, "Crashed Thread:") || kp__span_has_prefix(s, te, "Termination Reason:") ||
		           crashed_line(s, te);
		if (exception && crashed)
			return "an application crash report";
		/* a panic's own text is never one of these: stop at its mark */
		if (kp__span_has_prefix(s, te, "panic(") || kp__span_has_prefix(s, te, "Panicked task"))
			return NULL;
		p = e + 1;
	}
	return micro ? "a resource report (microstackshots)" : NULL;
}
