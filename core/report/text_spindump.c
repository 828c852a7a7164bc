/* text_spindump.c: spin, hang and shutdown-stall reports, which are
 * spindump text (contract: kp__spindump_* in report_build.h).
 *
 * Containers (sniffed by content, never by extension):
 *  - a one-line JSON header ({"bug_type":"11",...}: 11 .spin, 12 .hang,
 *    17 .shutdownStall, 28 .watchdog_timeout.spin, 29
 *    .userspace_watchdog_timeout.spin), then the spindump text;
 *  - the spindump text alone (`spindump` output, heavy or -timeline): run
 *    by hand when it has no Event line, a stackshot kind, not a hang;
 *  - the same header before a binary body (a bplist00 stub or a binary
 *    spindump): read as far as the header goes, with a warning that names
 *    what the body is; never an empty report passed off as a full one.
 *
 * The text, as spindump writes it (macOS 10.x to 26):
 *   Date/Time:   ...     header "Key:  value" lines up to the first
 *   OS Version:  macOS 11.2.1 (Build 20D74)          "Process:" line; Event,
 *   Event:       Shutdown stall                      Duration, Steps, Command
 *   Duration:    10.33s                              and PID are modelled,
 *   Steps:       34 (100ms sampling interval)        every one is kept as a
 *                                                    field
 *   Process:     configd [61]
 *     Thread 0x2eb9  DispatchQueue "com.apple.main-thread"(1)  100 samples (1-100)  priority 31 (base 31)
 *     100  start + 1 (libdyld.dylib + 4117) [0x7fff6b1b4015]
 *       100  main + 3 (configd + 1234) [0x10000a4d2]
 *        *100  ??? (kernel + 6600128) [0xffffff800085b5c0]
 *         *60  IOService::terminate(unsigned int) + 12 (IOKit + 0x1234) [0x...]
 *   Binary Images:
 *    *0xffffff8000210000 - 0xffffff8000c0ffff  kernel (7195.81.3) <UUID>  /System/Library/Kernels/kernel
 * Quirks: a frame's depth is the column of its sample count (a leading '*',
 * a kernel frame, takes one column of the indent); a count is the samples
 * in that frame and below; heavy output sorts siblings by count, -timeline
 * output does not (siblings follow time), so the heaviest stack is chosen
 * greedily by count at every depth either way; "+ N" offsets are decimal
 * unless written 0x..; "Binary Images:" comes once at the end (older
 * releases) or under each process; a frame's "(NAME + OFF)" names the image
 * by its file name, the image line by bundle id and path.
 *
 * Model: a process per "Process:" block; a thread per "Thread 0x" line with
 * its samples and, as frames (innermost first), its heaviest stack, each
 * frame with its samples; a thread with several stacks says how many in its
 * notice.  Threads of a process are ordered by samples, heaviest first.
 * Offsets are from the image's start as spindump prints it (its __TEXT); on
 * arm64 a kext's __TEXT_EXEC starts later, a known limit of the lookup.
 * Blamed: the hang's target (Command / PID header lines); otherwise the
 * process whose heaviest thread spends the most samples in a kext. */
#include "report_build.h"
#include "text_span.h"
#include "json_scan.h"
#include "kp_signature.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SNIFF_BYTES 65536
#define MAX_DEPTH 512     /* deeper frames are dropped with a warning */
#define MAX_FIELDS 200    /* header lines kept as fields */
#define HEADER_MAX 65536  /* the longest JSON header line read */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Digits at s as a decimal number (at most 19 of them); the end, or NULL. */
static const char *dec(const char *s, const char *e, uint64_t *v)
{
	const char *q = s;
	while (q < e && is_digit(*q) && q - s < 19)
		q++;
	if (q == s || (q < e && is_digit(*q)))
		return NULL;
	return kp_parse_u64(s, (size_t)(q - s), v) ? q : NULL;
}

/* A token (up to a blank) as a number, 0x hex or decimal. */
static const char *number(const char *s, const char *e, uint64_t *v)
{
	const char *q = s;
	while (q < e && *q != ' ' && *q != '\t' && *q != ')' && *q != ']')
		q++;
	return q > s && kp_parse_u64(s, (size_t)(q - s), v) ? q : NULL;
}

/* ---- sniffing ----------------------------------------------------------- */

/* A thread line: "Thread 0x<hex>" and, later on the line, " sample". */
static bool thread_line(const char *s, const char *e)
{
	return kp__span_has_prefix(s, e, "Thread 0x") && kp__span_find(s, e, " sample");
}

bool kp__spindump_sniff(const char *data, size_t len)
{
	const char *p = data, *end = data + (len < SNIFF_BYTES ? len : SNIFF_BYTES);
	bool process = false, thread = false, sampling = false;
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		const char *s = kp__span_skip_blanks(p, e);
		process |= kp__span_has_prefix(s, e, "Process:") && memchr(s, '[', (size_t)(e - s));
		thread |= thread_line(s, e);
		sampling |= kp__span_has_prefix(s, e, "Steps:") || kp__span_has_prefix(s, e, "Num samples:") ||
		            kp__span_has_prefix(s, e, "Duration:");
		if (process && thread && sampling)
			return true;
		p = e + 1;
	}
	return false;
}

/* The bug_types of this family and their kind. */
static bool spin_kind(int bt, kp_kind *k)
{
	switch (bt) {
	case 11: case 12: case 28: case 29: *k = KP_KIND_HANG; return true;
	case 17: *k = KP_KIND_STALL; return true;
	case 24: *k = KP_KIND_SLEEPWAKE; return true;
	default: return false;
	}
}

/* The first line when it is one JSON object; its end (the newline or the
 * end of the data), or NULL. */
static const char *header_line(const char *data, size_t len, const char **start)
{
	const char *p = data, *end = data + len;
	if (len >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB &&
	    (unsigned char)p[2] == 0xBF)
		p += 3;
	p = kp__span_skip_blanks(p, end);
	if (p >= end || *p != '{')
		return NULL;
	/* real header lines are a few hundred bytes: a longer first line is
	 * no header of ours (and never becomes a cJSON tree here) */
	size_t span = (size_t)(end - p) < HEADER_MAX ? (size_t)(end - p) : HEADER_MAX;
	const char *nl = memchr(p, '\n', span);
	if (!nl && span == HEADER_MAX)
		return NULL;
	const char *le = nl ? nl : end;
	kp_jerr je = {0};
	const char *ve = kp_json_skip(p, le, &je);
	if (!ve || kp_json_ws(ve, le) != le)
		return NULL;
	*start = p;
	return le;
}

/* bug_type of a header line, a string or a number; -1 when none. */
static int header_bug_type(const cJSON *h)
{
	const cJSON *bt = cJSON_GetObjectItemCaseSensitive(h, "bug_type");
	uint64_t v;
	if (cJSON_IsString(bt) && bt->valuestring && kp_parse_u64(bt->valuestring, strlen(bt->valuestring), &v) &&
	    v < 100000)
		return (int)v;
	if (cJSON_IsNumber(bt) && bt->valuedouble >= 0 && bt->valuedouble < 100000)
		return (int)bt->valuedouble;
	return -1;
}

bool kp__spindump_header_sniff(const char *data, size_t len)
{
	const char *s, *le = header_line(data, len, &s);
	if (!le)
		return false;
	kp_jerr je = {0};
	cJSON *h = kp__json_parse_span(s, le, &je);
	kp_kind k;
	bool ok = h && spin_kind(header_bug_type(h), &k);
	cJSON_Delete(h);
	return ok;
}

/* ---- parsing ------------------------------------------------------------ */

/* A frame line as read, before it is placed in the model: spans into the
 * text. */
typedef struct fline {
	int indent;
	bool kernel;
	uint64_t samples;
	const char *sym, *sym_end;       /* "???" is no symbol */
	bool has_sym_off;
	uint64_t sym_off;
	const char *img, *img_end;       /* file name of the image, or empty */
	bool has_off, has_addr;
	uint64_t off, addr;
} fline;

/* Images by the file name frames use. */
typedef struct short_name {
	char *name;
	int image;
} short_name;

typedef struct spd {
	kp_report *r;
	long line;
	bool oom;
	int proc, thread;             /* current, -1 when none */
	/* the heaviest stack of the current thread: chosen[0..nchosen) from
	 * the outermost frame; cur[0..ncur) the current line's ancestors, each
	 * with whether it is on the chosen stack */
	fline chosen[MAX_DEPTH];
	size_t nchosen;
	int cur_indent[MAX_DEPTH];
	bool cur_on[MAX_DEPTH];
	size_t ncur;
	size_t nstacks;               /* leaves seen */
	int last_indent;
	bool deep_warned;
	short_name *names;
	size_t nnames, names_cap;
	bool images;                  /* inside a Binary Images block */
	bool seen_process;
	const char *target_cmd, *target_cmd_end;
	bool has_target_pid;
	int64_t target_pid;
	struct kp_sleepwake_pre pre;  /* a Sleep Wake Failure's preamble */
} spd;

static char *dup_span(spd *c, const char *s, const char *e)
{
	char *d = kp__strndup(c->r, s, (size_t)(e - s));
	if (!d)
		c->oom = true;
	return d;
}

static int image_by_short(spd *c, const char *s, size_t n)
{
	for (size_t i = 0; i < c->nnames; i++)
		if (strlen(c->names[i].name) == n && memcmp(c->names[i].name, s, n) == 0)
			return c->names[i].image;
	return -1;
}

static bool add_short(spd *c, const char *s, size_t n, int image)
{
	if (c->nnames == c->names_cap) {
		size_t cap = c->names_cap ? c->names_cap * 2 : 32;
		short_name *v = realloc(c->names, cap * sizeof *v);
		if (!v)
			return false;
		c->names = v;
		c->names_cap = cap;
	}
	char *d = kp__strndup(c->r, s, n);
	if (!d)
		return false;
	c->names[c->nnames++] = (short_name){d, image};
	return true;
}

static bool kernel_name(const char *s, size_t n)
{
	return n >= 6 && memcmp(s, "kernel", 6) == 0 && (n == 6 || s[6] == '.');
}

/* The image frames call s[0..n); added (by that name) when first seen. */
static int frame_image(spd *c, const char *s, size_t n, bool kernel)
{
	int i = image_by_short(c, s, n);
	if (i >= 0)
		return i;
	/* "(<UUID> + off)": an image spindump could not name (Sleep Wake
	 * Failure stackshots name the kernel so) */
	char canon[37];
	bool by_uuid = n > 2 && s[0] == '<' && s[n - 1] == '>' && kp_uuid_canon(s + 1, n - 2, canon);
	if (by_uuid && (i = kp__image_by_uuid(c->r, canon)) >= 0)
		return add_short(c, s, n, i) ? i : (c->oom = true, -1);
	kp_image *im = kp__add_image(c->r);
	if (!im) {
		c->oom = true;
		return -1;
	}
	bool k = kernel && (by_uuid ? c->r->kernel_uuid && strcmp(canon, c->r->kernel_uuid) == 0 : kernel_name(s, n));
	im->kind = k ? 'K' : kernel ? 'X' : 'P';
	im->name = k ? kp__strdup(c->r, "kernel") : by_uuid ? NULL : kp__strndup(c->r, s, n);
	if (by_uuid)
		im->uuid = kp__strdup(c->r, canon);
	i = im->index;
	if ((!c->r->images[i].name && !by_uuid) || (by_uuid && !c->r->images[i].uuid) || !add_short(c, s, n, i)) {
		c->oom = true;
		return -1;
	}
	return i;
}

/* "[*]0xSTART - 0xEND|???  NAME [VERSION] <UUID>  PATH" */
static void image_line(spd *c, const char *s, const char *e)
{
	bool kernel = s < e && *s == '*';
	s += kernel;
	uint64_t start, end = 0;
	const char *q = number(s, e, &start);
	if (!q)
		return;
	q = kp__span_skip_blanks(q, e);
	if (q >= e || *q != '-')
		return;
	q = kp__span_skip_blanks(q + 1, e);
	bool has_end = false;
	if (kp__span_has_prefix(q, e, "???")) {
		q += 3;
	} else if ((q = number(q, e, &end)) != NULL) {
		has_end = true;
	} else {
		return;
	}
	q = kp__span_skip_blanks(q, e);
	const char *name = q;
	while (q < e && *q != ' ' && *q != '\t' && *q != '<')
		q++;
	const char *name_end = q;
	const char *lt = memchr(q, '<', (size_t)(e - q));
	const char *gt = lt ? memchr(lt, '>', (size_t)(e - lt)) : NULL;
	const char *ver = kp__span_skip_blanks(name_end, lt ? lt : e), *ver_end = kp__span_trim_end(ver, lt ? lt : e);
	const char *path = gt ? kp__span_skip_blanks(gt + 1, e) : e, *path_end = kp__span_trim_end(path, e);
	/* the name frames use: the path's last component, else the name */
	const char *sn = name, *sn_end = name_end;
	if (path < path_end && *path == '/') {
		const char *slash = path_end;
		while (slash > path && slash[-1] != '/')
			slash--;
		sn = slash;
		sn_end = path_end;
	}
	if (name == name_end)
		return;
	int i = image_by_short(c, sn, (size_t)(sn_end - sn));
	if (i < 0 && !kernel)
		return;   /* a user image no frame names: not kept (thousands of them) */
	if (i < 0 && (i = frame_image(c, sn, (size_t)(sn_end - sn), true)) < 0)
		return;
	kp_image *im = &c->r->images[i];
	if (im->uuid || im->has_start)
		return;   /* the first process's line for it wins */
	char canon[37];
	if (lt && gt && kp_uuid_canon(lt + 1, (size_t)(gt - lt - 1), canon))
		im->uuid = kp__strdup(c->r, canon);
	im->start = start;
	im->has_start = true;
	im->end = end;
	im->has_end = has_end;
	if (im->kind != 'K') {
		im->name = dup_span(c, name, name_end);
	} else if (im->uuid && !c->r->kernel_uuid) {
		c->r->kernel_uuid = im->uuid;
	}
	if (ver < ver_end)
		im->version = dup_span(c, ver, ver_end);
}

/* A frame line: "[*]N  SYMBOL [+ OFF] [(IMAGE + OFF)] [[0xADDR]] [...]". */
static bool frame_line(const char *p, const char *e, fline *f)
{
	memset(f, 0, sizeof *f);
	const char *s = kp__span_skip_blanks(p, e);
	if (s < e && *s == '*') {
		f->kernel = true;
		s++;
	}
	f->indent = (int)(s - p);
	const char *q = dec(s, e, &f->samples);
	if (!q || q >= e || (*q != ' ' && *q != '\t'))
		return false;
	q = kp__span_skip_blanks(q, e);
	if (q >= e)
		return false;
	/* the address: the last " [0x" with its ']' */
	const char *body_end = kp__span_trim_end(q, e), *br = NULL;
	for (const char *t = q; (t = kp__span_find(t, body_end, "[0x")) != NULL; t++)
		br = t;
	if (br) {
		const char *close = memchr(br, ']', (size_t)(body_end - br));
		uint64_t a;
		if (close && kp_parse_u64(br + 1, (size_t)(close - br - 1), &a)) {
			f->addr = a;
			f->has_addr = true;
		}
		body_end = kp__span_trim_end(q, br);
	}
	/* the image: the parenthesised group that ends the rest */
	if (body_end > q && body_end[-1] == ')') {
		int depth = 0;
		const char *open = NULL;
		for (const char *t = body_end - 1; t >= q; t--) {
			if (*t == ')')
				depth++;
			else if (*t == '(' && --depth == 0) {
				open = t;
				break;
			}
		}
		const char *plus = open ? kp__span_find(open, body_end, " + ") : NULL;
		if (open && plus) {
			f->img = open + 1;
			f->img_end = plus;
			f->has_off = number(plus + 3, body_end - 1, &f->off) != NULL;
			body_end = kp__span_trim_end(q, open);
		}
	}
	/* the symbol and its own "+ N" */
	const char *plus = NULL;
	for (const char *t = q; (t = kp__span_find(t, body_end, " + ")) != NULL; t++)
		plus = t;
	if (plus && number(plus + 3, body_end, &f->sym_off) == body_end) {
		f->has_sym_off = true;
		body_end = kp__span_trim_end(q, plus);
	}
	if (!(body_end - q == 3 && memcmp(q, "???", 3) == 0)) {
		f->sym = q;
		f->sym_end = body_end;
	}
	return true;
}

static kp_thread *cur_thread(spd *c)
{
	if (c->proc < 0 || c->thread < 0)
		return NULL;
	return &c->r->processes[c->proc].threads[c->thread];
}

/* The chosen stack becomes the thread's frames, innermost first. */
static void end_thread(spd *c)
{
	kp_thread *t = cur_thread(c);
	if (t) {
		for (size_t k = c->nchosen; k-- > 0;) {
			const fline *fl = &c->chosen[k];
			kp_frame *f = kp__add_frame(c->r, t);
			if (!f) {
				c->oom = true;
				break;
			}
			f->user = !fl->kernel;
			f->has_samples = true;
			f->samples = fl->samples;
			f->has_address = fl->has_addr;
			f->address = fl->addr;
			if (fl->sym && !(f->symbol = dup_span(c, fl->sym, fl->sym_end)))
				break;
			f->has_symbol_offset = fl->has_sym_off;
			f->symbol_offset = fl->sym_off;
			if (fl->img && fl->img < fl->img_end) {
				int i = frame_image(c, fl->img, (size_t)(fl->img_end - fl->img), fl->kernel);
				if (i < 0)
					break;
				t = cur_thread(c);   /* frames may have moved: re-borrow */
				f = &t->frames[t->nframes - 1];
				f->image = i;
				f->has_offset = fl->has_off;
				f->offset = fl->off;
				f->report_image = true;
				if (fl->kernel && c->r->images[i].kind == 'K')
					f->report_kernel = true;
			}
		}
		if (c->nstacks > 1 && t && !t->notice)
			t->notice = kp__sprintf(c->r, "heaviest of %zu stacks", c->nstacks);
	}
	c->thread = -1;
	c->nchosen = c->ncur = c->nstacks = 0;
	c->last_indent = -1;
}

/* One frame line of the current thread's tree: the heaviest stack is kept
 * greedily (the child with the most samples of each chosen frame). */
static void tree_line(spd *c, const fline *f)
{
	if (f->indent <= c->last_indent || c->nstacks == 0)
		c->nstacks++;
	c->last_indent = f->indent;
	while (c->ncur && c->cur_indent[c->ncur - 1] >= f->indent)
		c->ncur--;
	if (c->ncur >= MAX_DEPTH) {
		if (!c->deep_warned)
			kp__warn(c->r, c->line, "a stack deeper than %d frames: the rest is dropped", MAX_DEPTH);
		c->deep_warned = true;
		return;
	}
	size_t lvl = c->ncur;
	bool parent_on = lvl == 0 || c->cur_on[lvl - 1];
	bool on = false;
	if (parent_on && lvl <= c->nchosen && (lvl == c->nchosen || f->samples > c->chosen[lvl].samples)) {
		c->chosen[lvl] = *f;
		c->nchosen = lvl + 1;
		on = true;
	}
	c->cur_indent[lvl] = f->indent;
	c->cur_on[lvl] = on;
	c->ncur = lvl + 1;
}

/* "Process:  NAME [PID] ..." */
static void process_line(spd *c, const char *s, const char *e)
{
	end_thread(c);
	c->images = false;
	c->seen_process = true;
	kp_process *p = kp__add_process(c->r);
	if (!p) {
		c->oom = true;
		return;
	}
	c->proc = (int)c->r->nprocesses - 1;
	s = kp__span_skip_blanks(s, e);
	e = kp__span_trim_end(s, e);
	const char *open = NULL;
	for (const char *t = s; t < e; t++)
		if (*t == '[')
			open = t;
	uint64_t pid;
	const char *q = open ? dec(open + 1, e, &pid) : NULL;
	if (q && q < e && *q == ']' && pid <= INT64_MAX) {
		p->has_pid = true;
		p->pid = (int64_t)pid;
		e = kp__span_trim_end(s, open);
	}
	if (s < e)
		p->name = dup_span(c, s, e);
}

/* A process block's "Key: value" line: the kernel's UUID and version from
 * kernel_task's (the only place a Sleep Wake Failure names them). */
static void process_kv(spd *c, const char *s, const char *e)
{
	kp_report *r = c->r;
	const kp_process *p = &r->processes[c->proc];
	if (!p->name || strcmp(p->name, "kernel_task") != 0)
		return;
	char canon[37];
	if (kp__span_has_prefix(s, e, "UUID:") && !r->kernel_uuid) {
		const char *v = kp__span_skip_blanks(s + 5, e);
		if (kp_uuid_canon(v, (size_t)(e - v), canon))
			r->kernel_uuid = kp__strdup(r, canon);
	} else if (kp__span_has_prefix(s, e, "Version:") && !r->kernel_version) {
		const char *v = kp__span_skip_blanks(s + 8, e);
		if (kp__span_has_prefix(v, e, "Darwin Kernel Version"))
			r->kernel_version = dup_span(c, v, e);
	}
}

/* `NAME "text"` on a thread line: the text. */
static char *quoted_after(spd *c, const char *s, const char *e, const char *key)
{
	const char *k = kp__span_find(s, e, key);
	if (!k)
		return NULL;
	const char *q = k + strlen(key);
	const char *close = memchr(q, '"', (size_t)(e - q));
	return close ? dup_span(c, q, close) : NULL;
}

/* "Thread 0xTID  [DispatchQueue "L"(n)]  [Thread name "N"]  S samples (a-b)  priority P (base B) ..." */
static void thread_start(spd *c, const char *s, const char *e)
{
	end_thread(c);
	if (c->proc < 0) {   /* a thread before any Process line */
		if (!kp__add_process(c->r)) {
			c->oom = true;
			return;
		}
		c->proc = (int)c->r->nprocesses - 1;
	}
	kp_thread *t = kp__add_thread(c->r, &c->r->processes[c->proc]);
	if (!t) {
		c->oom = true;
		return;
	}
	c->thread = (int)c->r->processes[c->proc].nthreads - 1;
	uint64_t v;
	const char *q = number(s + 7, e, &v);
	if (q) {
		t->has_id = true;
		t->id = v;
	}
	const char *smp = kp__span_find(s, e, " sample");
	if (smp) {
		const char *d = smp;
		while (d > s && is_digit(d[-1]))
			d--;
		if (d < smp && dec(d, smp, &v) == smp) {
			t->has_samples = true;
			t->samples = v;
		}
	}
	const char *pr = kp__span_find(s, e, "priority ");
	if (pr && dec(pr + 9, e, &v) && v < 1000) {
		t->has_sched_priority = true;
		t->sched_priority = (int)v;
	}
	const char *base = kp__span_find(s, e, "(base ");
	if (base && dec(base + 6, e, &v) && v < 1000) {
		t->has_base_priority = true;
		t->base_priority = (int)v;
	}
	t->dispatch_queue = quoted_after(c, s, e, "DispatchQueue \"");
	t->name = quoted_after(c, s, e, "Thread name \"");
}

/* A header "Key:  value" line: modelled when known, kept as a field. */
static void header_kv(spd *c, const char *s, const char *e)
{
	const char *colon = memchr(s, ':', (size_t)(e - s));
	if (!colon || colon == s)
		return;
	for (const char *t = s; t < colon; t++)
		if (!(*t == ' ' || *t == '/' || *t == '-' || (*t >= 'A' && *t <= 'Z') || (*t >= 'a' && *t <= 'z')))
			return;
	const char *v = kp__span_skip_blanks(colon + 1, e), *ve = kp__span_trim_end(v, e);
	size_t kn = (size_t)(colon - s);
	kp_report *r = c->r;
#define KEY(lit) (kn == sizeof lit - 1 && memcmp(s, lit, kn) == 0)
	if (v == ve)
		return;
	if (r->nfields < MAX_FIELDS && !kp__add_field(r, s, kn, v, (size_t)(ve - v)))
		c->oom = true;
	if (KEY("Date/Time") && !r->timestamp) {
		r->timestamp = dup_span(c, v, ve);
	} else if (KEY("OS Version") && !r->os_version && !kp__span_has_prefix(v, ve, "???")) {
		/* "??? ??? (Build ???)": a Sleep Wake Failure's, written before the OS was known */
		r->os_version = dup_span(c, v, ve);
		const char *b = kp__span_find(v, ve, "(Build ");
		const char *be = b ? memchr(b, ')', (size_t)(ve - b)) : NULL;
		if (be && !r->build)
			r->build = dup_span(c, b + 7, be);
	} else if ((KEY("Hardware model") || KEY("Model")) && !r->product) {
		r->product = dup_span(c, v, ve);
	} else if (KEY("Event") && !r->reason) {
		r->reason = dup_span(c, v, ve);
	} else if (KEY("Reason")) {
		/* a .spin's own reason wins over its Event ("hang", "spin"),
		 * which stays a field (issue 31 item 6) */
		r->reason = dup_span(c, v, ve);
	} else if (KEY("Duration") && !r->duration) {
		r->duration = dup_span(c, v, ve);
	} else if (KEY("Steps") && !r->steps) {
		r->steps = dup_span(c, v, ve);
	} else if (KEY("Architecture") && r->arch == KP_ARCH_UNKNOWN) {
		if (kp__span_has_prefix(v, ve, "arm64"))
			r->arch = KP_ARCH_ARM64;
		else if (kp__span_has_prefix(v, ve, "x86_64"))
			r->arch = KP_ARCH_X86_64;
	} else if (KEY("Command") && !(ve - v == 8 && memcmp(v, "spindump", 8) == 0)) {
		/* the hang's target; "spindump" is the sampler itself, no target */
		c->target_cmd = v;
		c->target_cmd_end = ve;
	} else if (KEY("PID")) {
		uint64_t pid;
		if (dec(v, ve, &pid) == ve && pid <= INT64_MAX) {
			c->has_target_pid = true;
			c->target_pid = (int64_t)pid;
		}
	}
#undef KEY
}

static int by_samples(const void *a, const void *b)
{
	const kp_thread *x = a, *y = b;
	uint64_t sx = x->has_samples ? x->samples : 0, sy = y->has_samples ? y->samples : 0;
	return sx < sy ? 1 : sx > sy ? -1 : 0;
}

/* Samples of t's heaviest stack spent in a kext (a kernel-side image that
 * is not the kernel), and that kext. */
static uint64_t kext_samples(const kp_report *r, const kp_thread *t, int *kext)
{
	for (size_t k = 0; k < t->nframes; k++) {
		const kp_frame *f = &t->frames[k];
		if (!f->user && f->image >= 0 && r->images[f->image].kind == 'X') {
			*kext = f->image;
			return f->has_samples ? f->samples : 0;
		}
	}
	return 0;
}

/* The headline's word for the kind. */
static const char *what_kind(const kp_report *r)
{
	return r->kind == KP_KIND_STALL       ? "shutdown stall"
	       : r->kind == KP_KIND_SLEEPWAKE ? "sleep wake failure"
	       : r->kind == KP_KIND_STACKSHOT ? "spindump"
	                                      : "hang";
}

static void move_first(kp_report *r, size_t i)
{
	if (i == 0)
		return;
	kp_process tmp = r->processes[i];
	memmove(&r->processes[1], &r->processes[0], i * sizeof tmp);
	r->processes[0] = tmp;
}

/* A Sleep Wake Failure blames what its reason names: the suspected bundle
 * (*kext, added when no frame holds it) and the thread (its process
 * *blamed, the thread put first); never by samples, since the stackshot is
 * of one instant and often swd's own. */
static void blame_sleepwake(spd *c, int *blamed, int *kext)
{
	kp_report *r = c->r;
	if (c->pre.bundle) {
		for (size_t i = 0; i < r->nimages && *kext < 0; i++)
			if (r->images[i].name && strcmp(r->images[i].name, c->pre.bundle) == 0)
				*kext = (int)i;
		if (*kext < 0) {
			kp_image *im = kp__add_image(r);
			if (!im) {
				c->oom = true;
				return;
			}
			im->kind = 'X';
			im->name = c->pre.bundle;
			*kext = im->index;
		}
		r->images[*kext].in_backtrace = true;
	}
	kp_thread_ref ref;
	if (c->pre.has_tid && kp_report_thread_by_id(r, c->pre.tid, &ref)) {
		kp_process *p = &r->processes[ref.proc];
		if (ref.thread > 0) {
			kp_thread tmp = p->threads[ref.thread];
			memmove(&p->threads[1], &p->threads[0], (size_t)ref.thread * sizeof tmp);
			p->threads[0] = tmp;
		}
		*blamed = ref.proc;
	}
	if (c->pre.ignore_stackshot) {
		r->notes.v = kp__alloc(r, sizeof *r->notes.v);
		if (!r->notes.v || !(r->notes.v[0] = kp__strdup(r, "the report says: Please IGNORE the below stackshot"))) {
			c->oom = true;
			return;
		}
		r->notes.n = 1;
	}
}

/* Orders threads, marks kexts in the heaviest stacks, chooses whom to blame
 * and writes the headline. */
/* Drops a "Process:" block with no threads whose pid and name another
 * block with threads has: a heap report's heading in a stall's "Custom
 * Output", not a process of the spindump, so that each is listed once
 * (issue 31 item 6). */
static void drop_echoes(kp_report *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nprocesses; i++) {
		const kp_process *p = &r->processes[i];
		bool echo = false;
		for (size_t j = 0; j < r->nprocesses && !echo && !p->nthreads && p->has_pid && p->name; j++) {
			const kp_process *q = &r->processes[j];
			echo = j != i && q->nthreads && q->has_pid && q->pid == p->pid && q->name && !strcmp(q->name, p->name);
		}
		if (echo)
			free(r->processes[i].threads);   /* none, but never leaked */
		else
			r->processes[n++] = r->processes[i];
	}
	r->nprocesses = n;
}

static void finish(spd *c)
{
	kp_report *r = c->r;
	drop_echoes(r);
	for (size_t i = 0; i < r->nprocesses; i++) {
		kp_process *p = &r->processes[i];
		if (p->nthreads > 1)
			qsort(p->threads, p->nthreads, sizeof *p->threads, by_samples);
		for (size_t j = 0; j < p->nthreads; j++)
			for (size_t k = 0; k < p->threads[j].nframes; k++) {
				const kp_frame *f = &p->threads[j].frames[k];
				if (!f->user && f->image >= 0 && r->images[f->image].kind == 'X')
					r->images[f->image].in_backtrace = true;
			}
	}
	int blamed = -1, kext = -1;
	if (r->kind == KP_KIND_SLEEPWAKE)
		blame_sleepwake(c, &blamed, &kext);
	for (size_t i = 0; i < r->nprocesses && blamed < 0 && r->kind != KP_KIND_SLEEPWAKE; i++) {
		const kp_process *p = &r->processes[i];
		if ((c->has_target_pid && p->has_pid && p->pid == c->target_pid) ||
		    (!c->has_target_pid && c->target_cmd && p->name &&
		     strlen(p->name) == (size_t)(c->target_cmd_end - c->target_cmd) &&
		     memcmp(p->name, c->target_cmd, strlen(p->name)) == 0))
			blamed = (int)i;
	}
	if (blamed >= 0 && r->processes[blamed].nthreads && kext < 0)
		kext_samples(r, &r->processes[blamed].threads[0], &kext);
	if (blamed < 0 && !c->target_cmd && r->kind != KP_KIND_SLEEPWAKE) {
		uint64_t best = 0;
		bool best_third = false;
		for (size_t i = 0; i < r->nprocesses; i++) {
			const kp_process *p = &r->processes[i];
			int k = -1;
			uint64_t n = p->nthreads ? kext_samples(r, &p->threads[0], &k) : 0;
			bool third = k >= 0 && r->images[k].name && !kp_sig_is_apple(r->images[k].name);
			/* a third-party kext beats Apple's own, then more samples */
			if (k >= 0 && (blamed < 0 || (third && !best_third) || (third == best_third && n > best))) {
				blamed = (int)i;
				kext = k;
				best = n;
				best_third = third;
			}
		}
	}
	if (blamed >= 0) {
		kp_process *p = &r->processes[blamed];
		r->has_blamed_pid = p->has_pid;
		r->blamed_pid = p->pid;
		r->blamed_process = p->name;
		move_first(r, (size_t)blamed);
	} else if (c->target_cmd) {
		r->blamed_process = dup_span(c, c->target_cmd, c->target_cmd_end);
		r->has_blamed_pid = c->has_target_pid;
		r->blamed_pid = c->target_pid;
	}
	const char *what = what_kind(r);
	const char *who = r->blamed_process ? r->blamed_process : NULL;
	const char *in = kext >= 0 ? r->images[kext].name : NULL;
	const char *ph = r->has_sleep_phase ? kp_sleepwake_phase_name(r->sleep_phase) : NULL;
	if (r->kind == KP_KIND_SLEEPWAKE && r->reason)   /* its own words, e.g. "Sleep Wake failure in EFI" */
		r->headline = kp__strdup(r, r->reason);
	else if (r->kind == KP_KIND_SLEEPWAKE)
		r->headline = kp__sprintf(r, "%s%s%s%s%s", what, ph ? " in " : "", ph ? ph : "", in ? ": " : "", in ? in : "");
	else if (who && in)
		r->headline = kp__sprintf(r, "%s: %s in %s", what, who, in);
	else if (who)
		r->headline = kp__sprintf(r, "%s: %s", what, who);
	else
		r->headline = kp__sprintf(r, "%s (%s)", what, r->reason ? r->reason : "spindump");
	if (!r->headline)
		c->oom = true;
}

/* The header line's members: bug_type, timestamp, os_version, incident_id
 * (ids as the .ips header has them), and the kind. */
static void read_header(kp_report *r, const char *s, const char *le)
{
	kp_jerr je = {0};
	cJSON *h = kp__json_parse_span(s, le, &je);
	if (!h)
		return;
	int bt = header_bug_type(h);
	if (bt >= 0) {
		r->has_bug_type = true;
		r->bug_type = bt;
		spin_kind(bt, &r->kind);
	}
	static const struct {
		const char *key;
		size_t off;
	} strs[] = {
		{"timestamp", offsetof(kp_report, timestamp)},
		{"os_version", offsetof(kp_report, os_version)},
		{"incident_id", offsetof(kp_report, incident_id)},
	};
	for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(h, strs[i].key);
		char **dst = (char **)((char *)r + strs[i].off);
		if (cJSON_IsString(v) && v->valuestring)
			*dst = kp__strdup(r, v->valuestring);
	}
	for (const cJSON *m = h->child; m; m = m->next) {
		char *txt = cJSON_IsString(m) ? NULL : cJSON_PrintUnformatted(m);
		const char *val = cJSON_IsString(m) ? m->valuestring : txt;
		char key[128];
		snprintf(key, sizeof key, "header.%s", m->string ? m->string : "");
		if (val)
			kp__add_field(r, key, strlen(key), val, strlen(val));
		free(txt);
	}
	cJSON_Delete(h);
}

const char *kp__binary_what(const char *b, size_t n)
{
	if (n >= 8 && memcmp(b, "bplist00", 8) == 0)
		return "a binary property list (bplist00)";
	if (n == 0)
		return "empty";
	return "binary data (a binary spindump?)";
}

kp_status kp__spindump_parse(kp_report *r, const char *data, size_t len, kp_error *err)
{
	r->format = KP_FORMAT_TEXT;
	r->kind = KP_KIND_HANG;
	const char *p = data, *end = data + len, *hs;
	long line = 1;
	const char *le = header_line(data, len, &hs);
	if (le) {
		read_header(r, hs, le);
		p = le < end ? le + 1 : end;
		line = 2;
	}
	spd *c = calloc(1, sizeof *c);
	if (!c)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	size_t pre = kp__sleepwake_preamble(r, p, (size_t)(end - p), &c->pre);
	if (pre) {
		r->kind = KP_KIND_SLEEPWAKE;
		for (const char *q = p; (q = memchr(q, '\n', (size_t)(p + pre - q))) != NULL; q++)
			line++;
		p += pre;
	}
	/* a body spindump did not write as text: say what it is */
	size_t rest = (size_t)(end - p);
	if (!kp__spindump_sniff(p, rest)) {
		if (!le) {
			free(c);
			return kp_error_set(err, KP_ERR_FORMAT, 1, 0, "not a spindump text");
		}
		free(c);
		bool binary = memchr(p, '\0', rest < 4096 ? rest : 4096) || (rest >= 8 && !memcmp(p, "bplist00", 8));
		const char *what = binary ? kp__binary_what(p, rest) : rest ? "text without a spindump" : "empty";
		kp__warn(r, line, "the body after the header is %s: kpbrowse reads its header only", what);
		r->headline = kp__sprintf(r, "%s: body not readable (%s)", what_kind(r), what);
		r->truncated = true;
		return r->headline ? KP_OK : kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	c->r = r;
	c->proc = c->thread = -1;
	c->last_indent = -1;
	for (; p < end && !c->oom; line++) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		c->line = line;
		const char *s = kp__span_skip_blanks(p, e), *te = kp__span_trim_end(s, e);
		fline f;
		if (kp__span_has_prefix(s, te, "Process:")) {
			process_line(c, s + 8, te);
		} else if (kp__span_has_prefix(s, te, "Binary Images:")) {
			end_thread(c);
			c->images = true;
		} else if (c->images && s < te && (*s == '*' || kp__span_has_prefix(s, te, "0x"))) {
			image_line(c, s, te);
		} else if (c->seen_process && thread_line(s, te)) {
			c->images = false;
			thread_start(c, s, te);
		} else if (c->thread >= 0 && frame_line(p, te, &f)) {
			tree_line(c, &f);
		} else if (c->proc >= 0 && c->thread < 0 && !c->images && s < te) {
			process_kv(c, s, te);
		} else if (!c->seen_process && s < te) {
			header_kv(c, s, te);
		} else if (s == te) {
			end_thread(c);
		}
		p = e + 1;
	}
	if (!c->oom)
		end_thread(c);
	const char *ev = NULL;
	for (size_t i = 0; i < r->nfields && !ev; i++)
		if (strcmp(r->fields[i].key, "Event") == 0)
			ev = r->fields[i].value;
	/* a bare spindump of a stall or a sleep/wake failure: its Event says so */
	if (r->kind == KP_KIND_HANG && ev && kp__span_find(ev, ev + strlen(ev), "hutdown"))
		r->kind = KP_KIND_STALL;
	if (r->kind == KP_KIND_HANG && ev && strcmp(ev, "Sleep Wake Failure") == 0)
		r->kind = KP_KIND_SLEEPWAKE;
	/* a spindump run by hand (no header line, no Event): a sample of the
	 * system, not a hang (issue 31 item 6) */
	if (r->kind == KP_KIND_HANG && !le && !ev)
		r->kind = KP_KIND_STACKSHOT;
	if (!c->oom)
		finish(c);
	bool oom = c->oom;
	size_t nthreads = 0;
	for (size_t i = 0; i < r->nprocesses; i++)
		nthreads += r->processes[i].nthreads;
	free(c->names);
	free(c);
	if (oom)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	if (!nthreads)
		kp__warn(r, 0, "a spindump without any thread");
	return KP_OK;
}
