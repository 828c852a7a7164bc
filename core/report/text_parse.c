/* text_parse.c: the one text parser, for legacy .panic files and for the
 * panic string embedded in JSON reports (contract: kp__text_parse in
 * report_build.h; grammar: panic-formats.md section 2).
 *
 * One pass over the lines fills the header fields, the kext lists and the
 * backtrace frames (addresses only); a second step names the kernel image,
 * maps every frame to an image and decides whether the text is truncated.
 *
 * Known limits:
 *  - NUL bytes are dropped everywhere (panic_string included, a C string
 *    cannot hold them); every other byte, CR and escape sequences included,
 *    is stored verbatim;
 *  - lines are matched after leading blanks and markdown bold (`**` at the
 *    start of a line) are removed; nothing else of markdown is undone;
 *  - at most MAX_BT_IMAGES "in backtrace" entries are read (each is looked
 *    up among the images); the rest are counted in one warning;
 *  - the loaded kext list is read only when r has no kexts yet;
 *  - the headline follows continuation lines only while a quoted string is
 *    open, for at most HEAD_MAX_LINES lines.
 *
 * The parts (shared state and who owns what: text_parse.h): this file
 * drives the pass and builds headline and panic_string; text_header.c,
 * text_backtrace.c and text_kexts.c read the lines of their kind. */
#include "text_parse.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HEAD_MAX_LINES 16

static bool contains_ci(const char *s, const char *w)
{
	size_t n = strlen(w);
	for (; *s; s++) {
		size_t i = 0;
		while (i < n && s[i] && (s[i] | 0x20) == (w[i] | 0x20))
			i++;
		if (i == n)
			return true;
	}
	return false;
}

/* Collapses runs of blanks into one space and trims, in place. */
static void collapse_ws(char *s)
{
	char *w = s;
	bool sp = false;
	for (const char *p = s; *p; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
			sp = w != s;
			continue;
		}
		if (sp)
			*w++ = ' ';
		sp = false;
		*w++ = *p;
	}
	*w = '\0';
}

/* Returns true when the line was consumed by the open section. */
static bool section_line(tp *c, const char *t)
{
	switch (c->sect) {
	case S_X86_BT:
		if (kp__text_x86_frame(c, t))
			return true;
		break;
	case S_ARM_BT:
		if (kp__text_arm_frame(c, t))
			return true;
		break;
	case S_KEXT_BT:
		if (kp__text_bt_image(c, t))
			return true;
		break;
	case S_PPC_BT:
		if (kp__text_ppc_frames(c, t))
			return true;
		break;
	case S_LOADED:
		if (!*t) {
			c->loaded_blank = true;
			return true;
		}
		if (kp__text_loaded_kext(c, t, c->loaded_blank)) {
			c->loaded_blank = false;
			c->kext_last = true;
			return true;
		}
		break;
	case S_NONE:
		return false;
	}
	c->sect = S_NONE;
	return false;
}

static void one_line(tp *c, size_t end)
{
	/* The matching view: NULs dropped, blanks and markdown bold cut. */
	c->line.n = 0;
	for (size_t i = c->off; i < end;) {
		const char *nul = memchr(c->text + i, '\0', end - i);
		size_t j = nul ? (size_t)(nul - c->text) : end;
		kp__text_sb_put(c, &c->line, c->text + i, j - i);
		i = j + 1;
	}
	if (!kp__text_sb_put(c, &c->line, "", 0))
		return;
	char *s = c->line.s;
	size_t n = c->line.n;
	while (n && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	if (c->off == 0 && (unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB &&
	    (unsigned char)s[2] == 0xBF)
		s += 3;   /* UTF-8 byte order mark */
	char *t = (char *)skip_ws(s);
	if (t[0] == '*' && t[1] == '*' && t[2] && t[2] != ' ' && t[2] != '*') {
		char *w = t;
		for (const char *q = t; *q; q++) {
			if (q[0] == '*' && q[1] == '*') {
				q++;
				continue;
			}
			*w++ = *q;
		}
		*w = '\0';
		t = (char *)skip_ws(t);
	}

	if (*t) {
		c->last_line = c->lineno;
		c->kext_last = false;
		if (!c->have_content) {
			c->have_content = true;
			c->content_line = c->lineno;
			c->content_off = c->off + (size_t)(t - s);
		}
	}
	if (c->want_kv || c->want_osv) {
		bool kv = c->want_kv;
		c->want_kv = c->want_osv = false;
		if (*t && kv) {
			kp__text_set_str(c, &c->r->kernel_version, t);
			return;
		}
		if (*t && !kp__text_section_start(t)) {
			kp__text_set_str(c, &c->r->os_version, t);
			kp__text_set_str(c, &c->r->build, t);
			return;
		}
	}
	if (c->head_next && *t) {
		c->head_next = false;
		if ((!kp__text_section_start(t) || after(t, "Kernel trap")) && !after(t, "Debugger")) {
			c->head.n = 0;
			kp__text_sb_put(c, &c->head, t, strlen(t));
			c->head_open = kp__text_quotes_open(c->head.s);
			return;
		}
	}
	if (c->head_open) {
		if (*t && c->head_lines < HEAD_MAX_LINES && !kp__text_section_start(t)) {
			kp__text_sb_put(c, &c->head, " ", 1);
			kp__text_sb_put(c, &c->head, t, strlen(t));
			c->head_lines++;
			c->head_open = kp__text_quotes_open(c->head.s);
			return;
		}
		c->head_open = false;
	}
	if (section_line(c, t))
		return;
	if (!*t)
		return;
	if (!c->saw_panic && !c->have_pre && !kp__text_is_header(t)) {
		c->have_pre = true;
		c->pre_off = c->off + (size_t)(t - s);
	}
	bool had_panic = c->saw_panic;
	kp__text_general_line(c, t);
	if (!c->have_first && !kp__text_is_noise(t)) {
		c->have_first = true;
		c->first_is_panic = c->saw_panic && !had_panic;
		c->first_off = c->off + (size_t)(t - s);
		kp__text_sb_put(c, &c->first, t, strlen(t));
	}
}

/* ---- after the pass ---- */

/* '"a" "b"@f' -> 'a b@f'; anything after the last quoted string is kept. */
static char *unquote(tp *c, const char *s)
{
	kp_sb o = { 0 };
	const char *p = s;
	bool first = true;
	while (*p == '"') {
		const char *a = ++p;
		while (*p && !(*p == '"' && p[-1] != '\\'))
			p++;
		if (!first)
			kp__text_sb_put(c, &o, " ", 1);
		kp__text_sb_put(c, &o, a, (size_t)(p - a));
		first = false;
		if (!*p)
			break;
		p++;
		const char *q = skip_ws(p);
		if (*q != '"')
			break;
		p = q;
	}
	kp__text_sb_put(c, &o, p, strlen(p));
	return o.s;
}

static void make_headline(tp *c)
{
	kp_report *r = c->r;
	if (r->headline)
		return;
	char *h = NULL;
	if (c->saw_panic && c->head.s) {
		h = c->head.s[0] == '"' ? unquote(c, c->head.s) : strdup(c->head.s);
		if (!h) {
			c->oom = true;
			return;
		}
		size_t n = strlen(h);
		if (n >= 12 && strcmp(h + n - 12, ", registers:") == 0)
			h[n - 12] = '\0';
		collapse_ws(h);
		if (!*h) {
			free(h);
			h = NULL;
		}
	}
	if (!h && c->first.s && !c->first_is_panic) {   /* never "panic(cpu 0 caller 0x…):" */
		collapse_ws(c->first.s);
		r->headline = kp__strdup(r, c->first.s);
	} else if (h) {
		r->headline = kp__strdup(r, h);
	}
	if (!r->headline && (h || (c->first.s && !c->first_is_panic)))
		c->oom = true;
	free(h);
}

/* text[from, to) with its NUL bytes dropped, as a string in r's arena
 * (the room of the whole span: NULs are rare); NULL when out of memory. */
static char *copy_without_nuls(tp *c, size_t from, size_t to)
{
	if (from > to)
		from = to;
	char *d = kp__alloc(c->r, to - from + 1), *w = d;
	if (!d) {
		c->oom = true;
		return NULL;
	}
	while (from < to) {
		const char *nul = memchr(c->text + from, '\0', to - from);
		size_t run = nul ? (size_t)(nul - c->text) - from : to - from;
		memcpy(w, c->text + from, run);
		w += run;
		from += run + 1;
	}
	*w = '\0';
	return d;
}

static void make_panic_string(tp *c)
{
	kp_report *r = c->r;
	if (r->format != KP_FORMAT_TEXT || r->panic_string)
		return;
	size_t from = c->saw_panic ? c->panic_off : c->have_first ? c->first_off : c->content_off;
	r->panic_string = copy_without_nuls(c, from, c->len);
}

/* r->preamble of a text report: the text from the first line past the
 * header to the panic line (to its "panic(" when a console prefix precedes
 * it on its line), NULs dropped, trailing blanks cut.  A JSON report's
 * panic string is kept whole, preamble included: none apart. */
static void make_preamble(tp *c)
{
	kp_report *r = c->r;
	if (r->format != KP_FORMAT_TEXT || !c->saw_panic || !c->have_pre || c->pre_off >= c->panic_off ||
	    r->preamble)
		return;
	size_t end = c->panic_off;
	while (end > c->pre_off && strchr(" \t\r\n", c->text[end - 1]))
		end--;
	char *d = copy_without_nuls(c, c->pre_off, end);
	if (d && *d)   /* all NULs: no preamble */
		r->preamble = d;
}

/* A report that has a panic is complete when it reached a known ending:
 * a stackshot line, the debugger-synchronisation notice, "EOF", the
 * "Model:" profile, the skipped-kexts line, or a loaded kext list that
 * runs to the end of the text (macOS 10.9 .. 26 end that way when no
 * stackshot line follows).  Every truncated corpus file lacks all of them. */
static void check_truncated(tp *c)
{
	kp_report *r = c->r;
	if (!(c->saw_panic || c->saw_bt) || c->ending || c->kext_last)
		return;
	r->truncated = true;
	const char *why = !c->saw_kv ? "ends before \"Kernel version\""
	                  : !c->saw_loaded ? "ends before the loaded kext list"
	                                   : "has no ending line";
	kp__warn(r, c->last_line, "report is truncated: the text %s", why);
}


/* A report with no Date line dated by the panic's Calendar clock, in the
 * form .ips headers use (UTC); NULL when out of memory. */
static char *calendar_date(tp *c)
{
	time_t t = (time_t)c->calendar_sec;
	struct tm tm;
	char buf[40];
	if (!gmtime_r(&t, &tm) || !strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S +0000", &tm))
		return NULL;
	return kp__text_dup_trim(c, buf);
}

kp_status kp__text_parse(kp_report *r, const char *text, size_t len, long line0, long byte0,
                         kp_error *err)
{
	tp c = { 0 };
	c.r = r;
	c.text = text;
	c.len = len;
	c.line0 = line0;
	c.byte0 = byte0;
	c.proc = c.thread = c.named_thread = c.panic_cpu = -1;
	c.build_threads = r->nprocesses == 0;
	c.add_kexts = r->nkexts == 0;
	c.lineno = line0;
	for (size_t pos = 0; pos < len && !c.oom; c.lineno++) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t e = nl ? (size_t)(nl - text) : len;
		c.off = pos;
		one_line(&c, e);
		pos = e < len ? e + 1 : len;
	}
	kp_status st = KP_OK;
	if (c.oom)
		goto nomem;
	/* a real panic signature: a panic( line, a backtrace, a Kernel version,
	 * a panic marker, or the first line of a bridgeOS-style watchdog panic
	 * string; prose that merely says "panic" is no report */
	bool headline_ish = c.first.s && contains_ci(c.first.s, "watchdog");
	if (!c.saw_panic && !c.saw_bt && !c.saw_kv && !c.saw_marker && !headline_ish) {
		if (!c.have_content)
			st = kp_error_set(err, KP_ERR_FORMAT, line0, byte0, "no panic text: only blank lines");
		else
			st = kp_error_set(err, KP_ERR_FORMAT, c.content_line, byte0 + (long)c.content_off,
			                  "no kernel panic here (no panic( line, backtrace or Kernel version)");
		goto out;
	}
	if (c.bt_images_dropped)
		kp__warn(r, 0, "%zu more kexts in backtrace ignored (limit %d)", c.bt_images_dropped,
		         MAX_BT_IMAGES);
	if (!r->timestamp)
		r->timestamp = c.timestamp;
	if (!r->timestamp && c.has_calendar)
		r->timestamp = calendar_date(&c);
	make_panic_string(&c);
	make_preamble(&c);
	make_headline(&c);
	/* "Backtrace: 0x... 0x..." is the PowerPC form (x86 and arm64 write
	 * other ones); a kernel version naming another arch still wins */
	if (c.ppc_frames && r->arch == KP_ARCH_UNKNOWN &&
	    !(r->kernel_version && (strstr(r->kernel_version, "X86_64") || strstr(r->kernel_version, "I386") ||
	                            strstr(r->kernel_version, "ARM64"))))
		r->arch = KP_ARCH_PPC;
	/* An embedded text (threads of its caller's JSON, not its own) leaves
	 * the arch to the caller: a skimming parse decodes those frames only
	 * after this, and the arch must come from the same frames either way. */
	if (c.build_threads)
		kp__derive_arch(r);
	kp__text_map_frames(&c);
	kp__text_finish_process(&c);
	check_truncated(&c);
	if (!c.oom)
		goto out;
nomem:
	st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
out:
	free(c.mods);
	free(c.line.s);
	free(c.first.s);
	free(c.head.s);
	return st;
}
