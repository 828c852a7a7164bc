/* text_header.c: header lines of a panic text and the lines that open its
 * sections (part of kp__text_parse; shared state: text_parse.h). */
#include "text_parse.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* "Sat Jun 13 17:31:08 2015": the date line of classic reports. */
static bool is_date_line(const char *t)
{
	static const char days[] = "MonTueWedThuFriSatSun";
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	bool d = false, m = false;
	for (int i = 0; i < 7; i++)
		d |= strncmp(t, days + 3 * i, 3) == 0;
	if (!d || t[3] != ' ')
		return false;
	for (int i = 0; i < 12; i++)
		m |= strncmp(t + 4, months + 3 * i, 3) == 0;
	if (!m || t[7] != ' ')
		return false;
	const char *p = skip_ws(t + 8);
	if (!is_digit(*p))
		return false;
	while (is_digit(*p))
		p++;
	p = skip_ws(p);
	return is_digit(p[0]) && is_digit(p[1]) && p[2] == ':' && is_digit(p[3]) && is_digit(p[4]) &&
	       p[5] == ':';
}

/* "-----", "=====": a poster's separator (three or more of one mark). */
static bool is_separator(const char *t)
{
	size_t n = strspn(t, "-=_*#~+.");
	return n >= 3 && !t[n] && strspn(t, (char[]){t[0], '\0'}) == n;
}

bool kp__text_is_header(const char *t)
{
	static const char *const pre[] = {"```", "Anonymous UUID:", "Date/Time:"};
	if (!*t || strcmp(t, "null") == 0 || is_date_line(t) || strcmp(t, "*** Panic Report ***") == 0 ||
	    is_separator(t))
		return true;
	for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
		if (after(t, pre[i]))
			return true;
	return false;
}

/* Lines that precede or decorate a report without saying anything about
 * the panic: its header, pasted artefacts and the halt chatter of a failed
 * debugger synchronisation. */
bool kp__text_is_noise(const char *t)
{
	if (kp__text_is_header(t))
		return true;
	static const char *const pre[] = {
		"Attempting to forcibly halt cpu", "Unable to obtain state for cpu",
		"Debugger synchronization timed out",
	};
	for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
		if (after(t, pre[i]))
			return true;
	const char *p = after(t, "cpu ");
	if (p && is_digit(*p)) {
		while (is_digit(*p))
			p++;
		return after(p, " failed to halt") != NULL;
	}
	return false;
}

/* ---- header lines ---- */


static void set_addr(tp *c, unsigned bit, uint64_t *field, const char *v)
{
	uint64_t x;
	if (!(c->r->addr_flags & bit) && hex_at(skip_ws(v), &x, NULL)) {
		*field = x;
		c->r->addr_flags |= bit;
	}
}

static void kernel_uuid(tp *c, const char *v)
{
	char u[37];
	v = skip_ws(v);
	size_t n = strlen(v);
	if (c->r->kernel_uuid || !n)
		return;
	if (kp_uuid_canon(v, n, u)) {
		if (!(c->r->kernel_uuid = kp__strdup(c->r, u)))
			c->oom = true;
	} else {
		kp__warn(c->r, c->lineno, "Kernel UUID \"%.40s\" is not a UUID (hand-edited?); ignored", v);
	}
}

/* "Panicked task 0xT: [N pages, ]N threads: pid P: name". */
static void panicked_task(tp *c, const char *p)
{
	kp_report *r = c->r;
	uint64_t task, pid;
	c->saw_marker = true;
	if (!r->has_panicked_task && hex_at(p, &task, NULL)) {
		r->panicked_task = task;
		r->has_panicked_task = true;
	}
	const char *q = strstr(p, ": pid ");
	if (!q || !dec_at(q + 6, &pid, &q))
		return;
	if (!r->has_panicked_pid && pid <= INT64_MAX) {
		r->panicked_pid = (int64_t)pid;
		r->has_panicked_pid = true;
	}
	if (*q == ':')
		kp__text_set_str(c, &r->panicked_process, q + 1);
}

/* "Process name corresponding to current thread (0x…): X" (macOS 12+) or
 * "…: X (0x…)" (macOS 11). */
static void process_name(tp *c, const char *p)
{
	if (*p == ' ' && p[1] == '(') {
		p = strstr(p, "):");
		if (!p)
			return;
		p += 2;
	} else if (*p == ':') {
		p++;
	} else {
		return;
	}
	p = skip_ws(p);
	size_t n = strlen(p);
	const char *paren = strstr(p, " (0x");
	if (paren && strchr(paren, ')') == p + n - 1)
		n = (size_t)(paren - p);
	if (!c->r->panicked_process && n && !(c->r->panicked_process = kp__strndup(c->r, p, n)))
		c->oom = true;
}

/* pp: the panic line from "panic(" on, or from "(" when a paste lost the
 * word (then the line starts there). */
static void panic_line(tp *c, const char *pp)
{
	const char *inner = pp + (*pp == '(' ? 1 : 6);
	c->saw_panic = true;
	const char *o = c->text + c->off, *oe = c->text + c->len;
	size_t k = 0;
	while (o + k + 6 <= oe && o[k] != '\n' && memcmp(o + k, "panic(", 6) != 0)
		k++;
	c->panic_off = (o + k + 6 <= oe && o[k] != '\n') ? c->off + k : c->off;
	const char *cpu = after(inner, "cpu ");
	uint64_t n;
	if (cpu && dec_at(cpu, &n, NULL) && n < 100000)
		c->panic_cpu = (int)n;
	const char *msg = strstr(pp, "):");
	msg = msg ? msg + 2 : strchr(pp, ')');
	msg = msg ? skip_ws(msg + (*msg == ')')) : inner;
	c->head.n = 0;
	kp__text_sb_put(c, &c->head, msg, strlen(msg));
	c->head_lines = 1;
	/* 32-bit kernels wrote "panic(cpu 1 caller 0x0019CADF): " and the
	 * message on the next line */
	c->head_next = !*msg;
}

/* A line that starts a new part of the report, never a message line. */
bool kp__text_section_start(const char *t)
{
	static const char *const pre[] = {
		"Backtrace", "Debugger message:", "Panicked ", "Kernel ", "Mac OS version:",
		"OS version:", "Memory ID:", "CORE ", "x0:",
	};
	for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
		if (after(t, pre[i]))
			return true;
	return false;
}

/* A panic( that does not start its line (serial-console prefixes) counts
 * only in its full machine form "panic(cpu N caller 0x", so prose that
 * quotes a panic line is not taken for one. */
static bool midline_panic(const char *p)
{
	if (!after(p, "panic(cpu "))
		return false;
	p += 10;
	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	return strncmp(p, " caller 0x", 10) == 0;
}

/* A panic line whose leading word "panic" was lost in a paste:
 * "(cpu N caller 0x...): ..." (the machine form only). */
static bool bare_panic(const char *t)
{
	const char *p = after(t, "(cpu ");
	if (!p || *p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	return strncmp(p, " caller 0x", 10) == 0 && strstr(p, "):") != NULL;
}

/* A panic line whose first letters a paste lost ("nic(cpu 0 caller 0x"):
 * its "(" when t is one, else NULL. */
static const char *clipped_panic(const char *t)
{
	static const char *const tails[] = {"", "c", "ic", "nic", "anic"};
	for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
		const char *p = after(t, tails[i]);
		if (p && *p == '(' && bare_panic(p))
			return p;
	}
	return NULL;
}

/* Header and section lines that may appear anywhere. */
void kp__text_general_line(tp *c, const char *t)
{
	kp_report *r = c->r;
	const char *p;
	if (!c->saw_panic && (((p = strstr(t, "panic(")) && (p == t || midline_panic(p))) ||
	                      (p = clipped_panic(t)) != NULL)) {
		panic_line(c, p);
		c->head_open = kp__text_quotes_open(c->head.s ? c->head.s : "");
		return;
	}
	if ((p = after(t, "Backtrace")) && strstr(p, "Frame : Return Address")) {
		uint64_t cpu;
		const char *q = after(skip_ws(p), "(CPU ");
		int n = (q && dec_at(q, &cpu, NULL) && cpu < 100000) ? (int)cpu : -1;
		kp__text_start_block(c, S_X86_BT, n, strstr(p, "panicked thread") != NULL);
		return;
	}
	if ((p = after(t, "Backtrace:")) && (!*skip_ws(p) || strncmp(skip_ws(p), "0x", 2) == 0)) {
		/* PowerPC: "Backtrace:" then 0x words, on it and the lines after */
		kp__text_start_block(c, S_PPC_BT, c->panic_cpu, false);
		kp__text_ppc_frames(c, p);
		return;
	}
	if ((p = after(t, "Panicked thread:"))) {
		const char *q = strstr(p, "tid: ");
		uint64_t tid;
		if (q && dec_at(q + 5, &tid, NULL) && !r->has_panicked_thread_id) {
			r->panicked_thread_id = tid;
			r->has_panicked_thread_id = true;
		}
		c->saw_marker = true;
		kp__text_start_block(c, S_ARM_BT, c->panic_cpu, true);
		return;
	}
	if ((p = after(t, "Panicked task "))) {
		panicked_task(c, p);
		return;
	}
	if (kp__text_v15_line(c, t))
		return;
	if (strcmp(t, "Kernel Extensions in backtrace:") == 0 ||
	    after(t, "Kernel loadable modules in backtrace")) {
		c->sect = S_KEXT_BT;
		c->saw_marker = true;
		return;
	}
	/* macOS 26 lists what was loaded after boot, the boot kernelcache's
	 * kexts being named by "Kernel Extensions in backtrace" alone */
	if ((p = after(t, "loaded kexts:")) || (p = after(t, "Post-boot loaded kexts:"))) {
		c->saw_loaded = true;
		if (strstr(p, "skipped")) {
			r->kexts_skipped = true;
			c->ending = true;
		} else {
			c->sect = S_LOADED;
			c->loaded_blank = false;
		}
		return;
	}
	if ((p = after(t, "last loaded kext at ")) || (p = after(t, "last started kext at "))) {
		kp__text_last_kext(c, p, &r->last_started_kext);
		return;
	}
	if ((p = after(t, "last unloaded kext at ")) || (p = after(t, "last stopped kext at "))) {
		kp__text_last_kext(c, p, &r->last_unloaded_kext);
		return;
	}
	if ((p = after(t, "Kernel version:"))) {
		c->saw_kv = true;
		p = skip_ws(p);
		if (*p)
			kp__text_set_str(c, &r->kernel_version, p);
		else
			c->want_kv = true;
		return;
	}
	if ((p = after(t, "Kernel UUID:"))) {
		kernel_uuid(c, p);
		return;
	}
	if ((p = after(t, "Mac OS version:")) || (p = after(t, "OS version:"))) {
		p = skip_ws(p);
		if (!*p) {
			c->want_osv = true;
		} else {
			kp__text_set_str(c, &r->os_version, p);
			kp__text_set_str(c, &r->build, p);
		}
		return;
	}
	if ((p = after(t, "System model name:")) || (c->saw_panic && (p = after(t, "Model: ")))) {
		p = skip_ws(p);
		size_t n = 0;
		while (p[n] && p[n] != ' ' && p[n] != '\t' && !(p[n] == ',' && p[n + 1] == ' '))
			n++;
		if (!r->product && n && !(r->product = kp__strndup(r, p, n)))
			c->oom = true;
		if (t[0] == 'M')
			c->ending = true;    /* the system profile closes a classic report */
		return;
	}
	static const struct {
		const char *pre;
		unsigned bit;
		size_t field;
	} addrs[] = {
		{ "Kernel slide:", KP_HAS_KERNEL_SLIDE, offsetof(kp_report, kernel_slide) },
		{ "Kernel text base:", KP_HAS_KERNEL_TEXT_BASE, offsetof(kp_report, kernel_text_base) },
		{ "Kernel text exec slide:", KP_HAS_KERNEL_TEXT_EXEC_SLIDE,
		  offsetof(kp_report, kernel_text_exec_slide) },
		{ "Kernel text exec base:", KP_HAS_KERNEL_TEXT_EXEC_BASE,
		  offsetof(kp_report, kernel_text_exec_base) },
		{ "KernelCache slide:", KP_HAS_KERNELCACHE_SLIDE, offsetof(kp_report, kernelcache_slide) },
		{ "KernelCache base:", KP_HAS_KERNELCACHE_BASE, offsetof(kp_report, kernelcache_base) },
	};
	for (size_t i = 0; i < sizeof addrs / sizeof addrs[0]; i++)
		if ((p = after(t, addrs[i].pre))) {
			set_addr(c, addrs[i].bit, (uint64_t *)(void *)((char *)r + addrs[i].field), p);
			return;
		}
	if ((p = after(t, "BSD process name corresponding to current thread:"))) {
		kp__text_set_str(c, &r->panicked_process, p);
		return;
	}
	if ((p = after(t, "Process name corresponding to current thread"))) {
		process_name(c, p);
		return;
	}
	if (after(t, "Debugger message:") || after(t, "Paniclog version:")) {
		c->saw_marker = true;
		return;
	}
	if ((after(t, "** ") && strstr(t, "Stackshot")) || (after(t, "!! ") && strstr(t, "stackshot")) ||
	    strcmp(t, "EOF") == 0) {
		c->ending = true;
		return;
	}
	if ((p = after(t, "Calendar:")) && !c->has_calendar) {
		char *e;
		unsigned long long sec = strtoull(p, &e, 16);
		/* 2001 to 2100: a clock that was never set says 0 */
		if (e != p && sec >= 978307200ULL && sec < 4102444800ULL) {
			c->has_calendar = true;
			c->calendar_sec = sec;
		}
		return;
	}
	if (!c->saw_panic && !c->timestamp) {
		if ((p = after(t, "Date/Time:")))
			c->timestamp = kp__text_dup_trim(c, p);
		else if (is_date_line(t))
			c->timestamp = kp__text_dup_trim(c, t);
	}
}
