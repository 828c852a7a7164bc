/* parse_text.c: the one text parser, for legacy .panic files and for the
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
 *    open, for at most HEAD_MAX_LINES lines. */
#include "report_build.h"

#include <stdlib.h>
#include <string.h>

#define MAX_BT_IMAGES 4096
#define HEAD_MAX_LINES 16
/* A kext entry without an end address claims a frame above its start only
 * when the gap is below this (see map_frame). */
#define NOEND_MAX_GAP ((uint64_t)16 << 20)
/* x86_64 KDK kernels link __TEXT at this address; "Kernel slide" is
 * relative to it. */
#define X86_KERNEL_LINK_BASE 0xffffff8000200000ull
/* arm64 PAC: bits above a 47-bit VA carry the signature.  On the m1pro
 * corpus report, lr 0xfdc0fe00148e2af8 has bit 55 set; OR-ing this mask
 * gives 0xfffffe00148e2af8, inside EndpointSecurity's listed range, which
 * is also the value its stripped lr: list shows.  Kernel addresses on
 * Apple silicon are all >= 0xfffffe0000000000, so 47 bits never clips one. */
#define PAC_MASK (~((1ull << 47) - 1))

typedef struct sbuf {
	char *p;
	size_t n, cap;
} sbuf;

enum sect { S_NONE, S_X86_BT, S_ARM_BT, S_KEXT_BT, S_LOADED };

typedef struct tp {
	kp_report *r;
	const char *text;
	size_t len;
	long line0, byte0;

	sbuf line;            /* current line: NULs dropped, trailing blanks cut */
	long lineno;          /* absolute line number of the current line */
	size_t off;           /* offset of the current line in text */
	bool oom;

	enum sect sect;
	bool want_kv, want_osv;     /* the value is on the next line */
	bool loaded_blank;          /* a blank line was seen inside the list */
	bool build_threads, add_kexts;
	int proc;                   /* panicked process we build, -1 */
	int thread;                 /* thread of the current block, -1 */
	int block_cpu;
	bool block_named;           /* the block names itself the panicked thread */
	int named_thread;           /* first thread so named, -1 */
	bool arm_frames, x86_frames;
	size_t nbt_images, bt_images_dropped;

	bool saw_panic, saw_bt, saw_kv, saw_marker, saw_loaded, ending, kext_last;
	int panic_cpu;
	size_t panic_off;           /* where panic_string starts */
	bool have_first;
	size_t first_off;
	sbuf first;                 /* first meaningful line, for the headline */
	long content_line;          /* first non-blank line, for errors */
	size_t content_off;
	bool have_content;
	long last_line;

	sbuf head;                  /* panic message so far */
	bool head_open;
	int head_lines;
	char *timestamp;            /* set only on success */
} tp;

static bool sb_put(tp *c, sbuf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->n + n + 1) {
			if (cap > SIZE_MAX / 2) {
				c->oom = true;
				return false;
			}
			cap *= 2;
		}
		char *p = realloc(b->p, cap);
		if (!p) {
			c->oom = true;
			return false;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
	return true;
}

static const char *after(const char *s, const char *pre)
{
	size_t n = strlen(pre);
	return strncmp(s, pre, n) == 0 ? s + n : NULL;
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static bool is_hex(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* A 0x-prefixed hex number at s; false when there is none or it overflows. */
static bool hex_at(const char *s, uint64_t *v, const char **end)
{
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !is_hex(s[2]))
		return false;
	size_t n = 2;
	while (is_hex(s[n]))
		n++;
	if (!kp__parse_u64(s, n, v))
		return false;
	if (end)
		*end = s + n;
	return true;
}

static bool dec_at(const char *s, uint64_t *v, const char **end)
{
	size_t n = 0;
	while (is_digit(s[n]))
		n++;
	if (!n || !kp__parse_u64(s, n, v))
		return false;
	if (end)
		*end = s + n;
	return true;
}

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

static char *dup_trim(tp *c, const char *s)
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

/* Lines that precede or decorate a report without saying anything about
 * the panic: pasted artefacts and the halt chatter of a failed debugger
 * synchronisation. */
static bool is_noise(const char *t)
{
	if (!*t || strcmp(t, "null") == 0 || is_date_line(t) || strcmp(t, "*** Panic Report ***") == 0)
		return true;
	static const char *const pre[] = {
		"Attempting to forcibly halt cpu", "Unable to obtain state for cpu",
		"Debugger synchronization timed out", "```", "Anonymous UUID:", "Date/Time:",
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

/* ---- backtraces ---- */

static kp_thread *block_thread(tp *c)
{
	kp_report *r = c->r;
	if (c->thread >= 0)
		return &r->processes[c->proc].threads[c->thread];
	if (c->proc < 0) {
		if (!kp__add_process(r)) {
			c->oom = true;
			return NULL;
		}
		c->proc = (int)r->nprocesses - 1;
	}
	kp_process *p = &r->processes[c->proc];
	kp_thread *t = kp__add_thread(r, p);
	if (!t) {
		c->oom = true;
		return NULL;
	}
	t->cpu = c->block_cpu;
	c->thread = (int)p->nthreads - 1;
	if (c->block_named && c->named_thread < 0)
		c->named_thread = c->thread;
	return t;
}

static void add_frame(tp *c, uint64_t ra, const char *sym, size_t symlen)
{
	if (!c->build_threads)
		return;
	kp_thread *t = block_thread(c);
	kp_frame *f = t ? kp__add_frame(c->r, t) : NULL;
	if (!f) {
		c->oom = true;
		return;
	}
	f->address = ra;
	f->has_address = true;
	if (sym && symlen && !(f->symbol = kp__strndup(c->r, sym, symlen)))
		c->oom = true;
}

static void start_block(tp *c, enum sect s, int cpu, bool named)
{
	c->sect = s;
	c->thread = -1;
	c->block_cpu = cpu;
	c->block_named = named;
	c->saw_bt = true;
}

/* "0xFP : 0xRA", then maybe "(args)", "module : _sym + 0xNN" or a glued
 * "Backtrace terminated-invalid frame pointer 0x0".  The symbol is kept
 * without its " + 0xNN". */
static bool x86_frame(tp *c, const char *t)
{
	uint64_t fp, ra;
	const char *p;
	if (!hex_at(t, &fp, &p))
		return false;
	p = skip_ws(p);
	if (*p != ':')
		return false;
	if (!hex_at(skip_ws(p + 1), &ra, &p))
		return false;
	p = skip_ws(p);
	if (*p == '(') {
		const char *q = strchr(p, ')');
		p = q ? skip_ws(q + 1) : p + strlen(p);
	}
	const char *sym = NULL;
	size_t symlen = 0;
	const char *sp = p;
	while (*sp && *sp != ' ' && *sp != '\t')
		sp++;
	if (sp > p && strncmp(sp, " : ", 3) == 0) {
		sym = skip_ws(sp + 3);
		const char *plus = strstr(sym, " + 0x");
		symlen = plus ? (size_t)(plus - sym) : strlen(sym);
	}
	add_frame(c, ra, sym, symlen);
	c->x86_frames = true;
	return true;
}

static bool arm_frame(tp *c, const char *t)
{
	const char *p = after(t, "lr:");
	uint64_t lr;
	if (!p)
		return false;
	if (hex_at(skip_ws(p), &lr, NULL)) {
		lr = (lr & (1ull << 55)) ? (lr | PAC_MASK) : (lr & ~PAC_MASK);
		add_frame(c, lr, NULL, 0);
		c->arm_frames = true;
	}
	return true;
}

/* ---- kexts in backtrace ---- */

static int image_by_name(const kp_report *r, const char *name, size_t n)
{
	for (size_t i = 0; i < r->nimages; i++)
		if (r->images[i].name && strlen(r->images[i].name) == n &&
		    memcmp(r->images[i].name, name, n) == 0)
			return (int)i;
	return -1;
}

/* "[dependency: ]bundle.id(version)[UUID]@0xSTART[->0xEND]". */
static bool bt_image(tp *c, const char *t)
{
	kp_report *r = c->r;
	const char *p = after(t, "dependency:");
	bool dep = p != NULL;
	p = dep ? skip_ws(p) : t;
	const char *lp = strchr(p, '(');
	if (!lp || lp == p)
		return false;
	for (const char *q = p; q < lp; q++)
		if (*q == ' ' || *q == '\t')
			return false;
	const char *rp = lp + 1;
	while (*rp && !(rp[0] == ')' && (rp[1] == '[' || rp[1] == '@')))
		rp++;
	if (!*rp)
		return false;
	const char *q = rp + 1, *u = NULL;
	size_t ulen = 0;
	if (*q == '[') {
		u = q + 1;
		const char *rb = strchr(u, ']');
		if (!rb)
			return false;
		ulen = (size_t)(rb - u);
		q = rb + 1;
	}
	uint64_t start, end = 0;
	if (*q != '@' || !hex_at(q + 1, &start, &q))
		return false;
	bool has_end = q[0] == '-' && q[1] == '>' && hex_at(q + 2, &end, NULL);

	if (c->nbt_images >= MAX_BT_IMAGES) {
		c->bt_images_dropped++;
		return true;
	}
	c->nbt_images++;
	char uuid[37];
	bool has_uuid = u && kp_uuid_canon(u, ulen, uuid);
	int idx = has_uuid ? kp__image_by_uuid(r, uuid) : image_by_name(r, p, (size_t)(lp - p));
	kp_image *im;
	if (idx >= 0) {
		im = &r->images[idx];
	} else {
		if (!(im = kp__add_image(r))) {
			c->oom = true;
			return true;
		}
		im->kind = 'X';
		if (has_uuid && !(im->uuid = kp__strdup(r, uuid)))
			c->oom = true;
	}
	if (!im->name && !(im->name = kp__strndup(r, p, (size_t)(lp - p))))
		c->oom = true;
	if (!im->version && !(im->version = kp__strndup(r, lp + 1, (size_t)(rp - lp - 1))))
		c->oom = true;
	if (!im->has_start) {
		im->start = start;
		im->has_start = true;
	}
	if (!im->has_end && has_end) {
		im->end = end;
		im->has_end = true;
	}
	if (!dep) {
		im->in_backtrace = true;
		im->is_dependency = false;
	} else if (!im->in_backtrace) {
		im->is_dependency = true;
	}
	return true;
}

/* ---- loaded kexts ---- */

static bool kext_name_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || is_digit(ch) || ch == '.' ||
	       ch == '_' || ch == '-' || ch == '>' || ch == '|' || ch == '$' || ch == '@' || ch == '!';
}

/* "name<TAB>version" (a version may hold spaces: "14.0.1 45154").  After a
 * blank line inside the list only tab-separated entries continue it. */
static bool loaded_kext(tp *c, const char *t, bool need_tab)
{
	const char *e = t;
	while (kext_name_char(*e))
		e++;
	if (e == t || (*e != '\t' && (need_tab || *e != ' ')))
		return false;
	const char *v = skip_ws(e);
	if (!*v)
		return false;
	if (c->add_kexts) {
		kp_kext *k = kp__add_kext(c->r);
		if (!k) {
			c->oom = true;
			return true;
		}
		k->name = kp__kext_expand(c->r, t, (size_t)(e - t));
		if (!k->name)
			c->oom = true;
		k->version = dup_trim(c, v);
	}
	return true;
}

/* "last started kext at N: id<TAB>version (addr ..., size ...)": the whole
 * rest, with the id expanded from its compact form. */
static void last_kext(tp *c, const char *p, char **field)
{
	const char *colon = strchr(p, ':');
	if (*field || !colon)
		return;
	const char *s = skip_ws(colon + 1), *e = s;
	while (kext_name_char(*e))
		e++;
	char *name = kp__kext_expand(c->r, s, (size_t)(e - s));
	if (!name)
		c->oom = true;
	else if (!(*field = kp__sprintf(c->r, "%s%s", name, e)))
		c->oom = true;
}

/* ---- header lines ---- */

static void set_str(tp *c, char **field, const char *v)
{
	v = skip_ws(v);
	if (!*field && *v)
		*field = dup_trim(c, v);
}

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
		set_str(c, &r->panicked_process, q + 1);
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

static void panic_line(tp *c, const char *pp)
{
	c->saw_panic = true;
	const char *o = c->text + c->off, *oe = c->text + c->len;
	size_t k = 0;
	while (o + k + 6 <= oe && o[k] != '\n' && memcmp(o + k, "panic(", 6) != 0)
		k++;
	c->panic_off = (o + k + 6 <= oe && o[k] != '\n') ? c->off + k : c->off;
	const char *cpu = after(pp + 6, "cpu ");
	uint64_t n;
	if (cpu && dec_at(cpu, &n, NULL) && n < 100000)
		c->panic_cpu = (int)n;
	const char *msg = strstr(pp, "):");
	msg = msg ? msg + 2 : strchr(pp, ')');
	msg = msg ? skip_ws(msg + (*msg == ')')) : pp + 6;
	c->head.n = 0;
	sb_put(c, &c->head, msg, strlen(msg));
	c->head_lines = 1;
}

static bool quotes_open(const char *s)
{
	bool open = false;
	for (const char *p = s; *p; p++)
		if (*p == '"' && (p == s || p[-1] != '\\'))
			open = !open;
	return open;
}

/* A line that starts a new part of the report, never a message line. */
static bool section_start(const char *t)
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

/* Header and section lines that may appear anywhere. */
static void general_line(tp *c, const char *t)
{
	kp_report *r = c->r;
	const char *p;
	if (!c->saw_panic && (p = strstr(t, "panic(")) && (p == t || midline_panic(p))) {
		panic_line(c, p);
		c->head_open = quotes_open(c->head.p ? c->head.p : "");
		return;
	}
	if ((p = after(t, "Backtrace")) && strstr(p, "Frame : Return Address")) {
		uint64_t cpu;
		const char *q = after(skip_ws(p), "(CPU ");
		int n = (q && dec_at(q, &cpu, NULL) && cpu < 100000) ? (int)cpu : -1;
		start_block(c, S_X86_BT, n, strstr(p, "panicked thread") != NULL);
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
		start_block(c, S_ARM_BT, c->panic_cpu, true);
		return;
	}
	if ((p = after(t, "Panicked task "))) {
		panicked_task(c, p);
		return;
	}
	if (strcmp(t, "Kernel Extensions in backtrace:") == 0 ||
	    after(t, "Kernel loadable modules in backtrace")) {
		c->sect = S_KEXT_BT;
		c->saw_marker = true;
		return;
	}
	if ((p = after(t, "loaded kexts:"))) {
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
		last_kext(c, p, &r->last_started_kext);
		return;
	}
	if ((p = after(t, "last unloaded kext at "))) {
		last_kext(c, p, &r->last_unloaded_kext);
		return;
	}
	if ((p = after(t, "Kernel version:"))) {
		c->saw_kv = true;
		p = skip_ws(p);
		if (*p)
			set_str(c, &r->kernel_version, p);
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
			set_str(c, &r->os_version, p);
			set_str(c, &r->build, p);
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
		set_str(c, &r->panicked_process, p);
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
	if (!c->saw_panic && !c->timestamp) {
		if ((p = after(t, "Date/Time:")))
			c->timestamp = dup_trim(c, p);
		else if (is_date_line(t))
			c->timestamp = dup_trim(c, t);
	}
}

/* Returns true when the line was consumed by the open section. */
static bool section_line(tp *c, const char *t)
{
	switch (c->sect) {
	case S_X86_BT:
		if (x86_frame(c, t))
			return true;
		break;
	case S_ARM_BT:
		if (arm_frame(c, t))
			return true;
		break;
	case S_KEXT_BT:
		if (bt_image(c, t))
			return true;
		break;
	case S_LOADED:
		if (!*t) {
			c->loaded_blank = true;
			return true;
		}
		if (loaded_kext(c, t, c->loaded_blank)) {
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
		size_t j = i;
		while (j < end && c->text[j] != '\0')
			j++;
		sb_put(c, &c->line, c->text + i, j - i);
		i = j + 1;
	}
	if (!sb_put(c, &c->line, "", 0))
		return;
	char *s = c->line.p;
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
			set_str(c, &c->r->kernel_version, t);
			return;
		}
		if (*t && !section_start(t)) {
			set_str(c, &c->r->os_version, t);
			set_str(c, &c->r->build, t);
			return;
		}
	}
	if (c->head_open) {
		if (*t && c->head_lines < HEAD_MAX_LINES && !section_start(t)) {
			sb_put(c, &c->head, " ", 1);
			sb_put(c, &c->head, t, strlen(t));
			c->head_lines++;
			c->head_open = quotes_open(c->head.p);
			return;
		}
		c->head_open = false;
	}
	if (section_line(c, t))
		return;
	if (!*t)
		return;
	general_line(c, t);
	if (!c->have_first && !is_noise(t)) {
		c->have_first = true;
		c->first_off = c->off + (size_t)(t - s);
		sb_put(c, &c->first, t, strlen(t));
	}
}

/* ---- after the pass ---- */

/* '"a" "b"@f' -> 'a b@f'; anything after the last quoted string is kept. */
static char *unquote(tp *c, const char *s)
{
	sbuf o = { 0 };
	const char *p = s;
	bool first = true;
	while (*p == '"') {
		const char *a = ++p;
		while (*p && !(*p == '"' && p[-1] != '\\'))
			p++;
		if (!first)
			sb_put(c, &o, " ", 1);
		sb_put(c, &o, a, (size_t)(p - a));
		first = false;
		if (!*p)
			break;
		p++;
		const char *q = skip_ws(p);
		if (*q != '"')
			break;
		p = q;
	}
	sb_put(c, &o, p, strlen(p));
	return o.p;
}

static void make_headline(tp *c)
{
	kp_report *r = c->r;
	if (r->headline)
		return;
	char *h = NULL;
	if (c->saw_panic && c->head.p) {
		h = c->head.p[0] == '"' ? unquote(c, c->head.p) : strdup(c->head.p);
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
	if (!h && c->first.p) {
		collapse_ws(c->first.p);
		r->headline = kp__strdup(r, c->first.p);
	} else if (h) {
		r->headline = kp__strdup(r, h);
	}
	if (!r->headline && (h || c->first.p))
		c->oom = true;
	free(h);
}

static void make_panic_string(tp *c)
{
	kp_report *r = c->r;
	if (r->format != KP_FORMAT_TEXT || r->panic_string)
		return;
	size_t from = c->saw_panic ? c->panic_off : c->have_first ? c->first_off : c->content_off;
	size_t n = 0;
	for (size_t i = from; i < c->len; i++)
		n += c->text[i] != '\0';
	char *d = kp__alloc(r, n + 1);
	if (!d) {
		c->oom = true;
		return;
	}
	char *w = d;
	for (size_t i = from; i < c->len; i++)
		if (c->text[i] != '\0')
			*w++ = c->text[i];
	*w = '\0';
	r->panic_string = d;
}

static int kernel_image(tp *c)
{
	kp_report *r = c->r;
	int k = r->kernel_uuid ? kp__image_by_uuid(r, r->kernel_uuid) : -1;
	for (size_t i = 0; k < 0 && !r->kernel_uuid && i < r->nimages; i++)
		if (r->images[i].kind == 'K')
			k = (int)i;
	if (k < 0) {
		kp_image *im = kp__add_image(r);
		if (!im) {
			c->oom = true;
			return -1;
		}
		im->kind = 'K';
		im->uuid = r->kernel_uuid;
		k = im->index;
	}
	if (!r->images[k].name && !(r->images[k].name = kp__strdup(r, "kernel")))
		c->oom = true;
	return k;
}

typedef struct span {
	uint64_t start;
	int idx;
} span;

static int span_cmp(const void *a, const void *b)
{
	uint64_t x = ((const span *)a)->start, y = ((const span *)b)->start;
	return x < y ? -1 : x > y;
}

/* The image claiming ra: a listed range start <= ra <= end (looking back a
 * few starts, for overlaps); else, for an in-backtrace kext listed with a
 * start only (10.4, up to 10.15 for dependencies), the nearest start below
 * ra when no other listed image starts in between, the gap is under
 * NOEND_MAX_GAP and the kernel (kbase) does not sit between them.  xnu lists
 * a kext "in backtrace" because a frame lies in it, and kexts were loaded
 * contiguously, so this places 10.4's AirPort frames; on x86_64 <= 10.15
 * the kernel lies above the kexts, hence the kbase guard. */
static int map_kext(const kp_report *r, const span *sp, size_t ns, uint64_t ra, bool has_kbase,
                    uint64_t kbase)
{
	size_t lo = 0, hi = ns;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sp[mid].start <= ra)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	for (size_t k = lo, n = 0; k > 0 && n < 8; k--, n++) {
		const kp_image *im = &r->images[sp[k - 1].idx];
		if (im->has_end && ra <= im->end)
			return im->index;
	}
	const kp_image *im = &r->images[sp[lo - 1].idx];
	if (!im->has_end && im->in_backtrace && ra - im->start < NOEND_MAX_GAP &&
	    !(has_kbase && im->start < kbase && ra >= kbase))
		return im->index;
	return -1;
}

static void map_frames(tp *c)
{
	kp_report *r = c->r;
	int k = kernel_image(c);
	if (c->proc < 0 || k < 0)
		return;
	bool arm = r->arch == KP_ARCH_ARM64 || (r->arch == KP_ARCH_UNKNOWN && c->arm_frames);
	bool has_kbase = false;
	uint64_t kbase = 0;
	if (arm && (r->addr_flags & KP_HAS_KERNEL_TEXT_EXEC_BASE)) {
		has_kbase = true;
		kbase = r->kernel_text_exec_base;
	} else if (!arm && (r->addr_flags & KP_HAS_KERNEL_TEXT_BASE)) {
		has_kbase = true;
		kbase = r->kernel_text_base;
	} else if (!arm && (r->addr_flags & KP_HAS_KERNEL_SLIDE)) {
		has_kbase = true;
		kbase = X86_KERNEL_LINK_BASE + r->kernel_slide;
	}
	span *sp = malloc((r->nimages ? r->nimages : 1) * sizeof *sp);
	if (!sp) {
		c->oom = true;
		return;
	}
	size_t ns = 0;
	for (size_t i = 0; i < r->nimages; i++)
		if (r->images[i].has_start && (int)i != k)
			sp[ns++] = (span){ r->images[i].start, (int)i };
	qsort(sp, ns, sizeof *sp, span_cmp);
	kp_process *p = &r->processes[c->proc];
	for (size_t ti = 0; ti < p->nthreads; ti++) {
		kp_thread *t = &p->threads[ti];
		for (size_t fi = 0; fi < t->nframes; fi++) {
			kp_frame *f = &t->frames[fi];
			int im = map_kext(r, sp, ns, f->address, has_kbase, kbase);
			if (im >= 0) {
				f->image = im;
				f->offset = f->address - r->images[im].start;
				f->has_offset = true;
			} else if (has_kbase && f->address >= kbase) {
				f->image = k;
				f->offset = f->address - kbase;
				f->has_offset = true;
			}
		}
	}
	free(sp);
}

static void finish_process(tp *c)
{
	kp_report *r = c->r;
	if (c->proc < 0)
		return;
	kp_process *p = &r->processes[c->proc];
	p->has_pid = r->has_panicked_pid;
	p->pid = r->panicked_pid;
	p->name = r->panicked_process;
	int pt = c->named_thread;
	for (size_t i = 0; pt < 0 && i < p->nthreads; i++)
		if (c->panic_cpu >= 0 && p->threads[i].cpu == c->panic_cpu)
			pt = (int)i;
	if (pt < 0 && p->nthreads)
		pt = 0;
	if (pt < 0)
		return;
	kp_thread *t = &p->threads[pt];
	t->panicked = true;
	if (r->has_panicked_thread_id && c->named_thread == pt) {
		t->id = r->panicked_thread_id;
		t->has_id = true;
	}
	for (size_t fi = 0; fi < t->nframes; fi++)
		if (t->frames[fi].image >= 0)
			r->images[t->frames[fi].image].in_backtrace = true;
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
		size_t e = pos;
		while (e < len && text[e] != '\n')
			e++;
		c.off = pos;
		one_line(&c, e);
		pos = e < len ? e + 1 : len;
	}
	kp_status st = KP_OK;
	if (c.oom)
		goto nomem;
	bool headline_ish = c.first.p && (contains_ci(c.first.p, "panic") || contains_ci(c.first.p, "watchdog"));
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
	make_panic_string(&c);
	make_headline(&c);
	kp__derive_arch(r);
	map_frames(&c);
	finish_process(&c);
	check_truncated(&c);
	if (!c.oom)
		goto out;
nomem:
	st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
out:
	free(c.line.p);
	free(c.first.p);
	free(c.head.p);
	return st;
}
