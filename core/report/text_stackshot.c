/* text_stackshot.c: a stackshot saved as text by `/usr/libexec/stackshot -i`
 * on older systems (the text symstacks.rb reads), into the thread model
 * (contract: kp__text_stackshot_* in report_build.h).
 *
 * The grammar, one block per thread (blanks before a line are ignored):
 *   PID: 0                              starts a process
 *   Process: kernel_task                names it (alone, also starts one)
 *   Thread ID: 0x4e2                    starts a thread (hex or decimal)
 *   Thread state: 0x9 == TH_WAIT |TH_UNINT
 *   Thread wait_event: 0xffffff80...    also Thread continuation:, name:,
 *                                       priority:, base priority:
 *   Kernel stack:   / User stack:       then frame lines, innermost first:
 *     msleep (in mach_kernel) + 116 (0xffffff800056a2e4)
 *     0xffffff7f80e52a76 (0xffffff7f80e52a76)
 * A frame "(in mach_kernel)" is the kernel's by name (report_kernel); one
 * "(in BUNDLE)" belongs to an image named BUNDLE (kind 'X', no start);
 * a bare address belongs to no image.  Such a file has no load addresses:
 * kp_report_set_load places kexts afterwards.  Other lines are skipped; a
 * line that is no frame ends a stack.
 *
 * Known limits: "+ N" is read as decimal unless written 0x..; a thread line
 * before any PID/Process line goes to an unnamed process. */
#include "report_build.h"
#include "text_span.h"

#include <stdlib.h>
#include <string.h>

/* How far into the text the sniffer looks. */
#define SNIFF_BYTES 65536

bool kp__text_stackshot_sniff(const char *data, size_t len)
{
	const char *p = data, *end = data + (len < SNIFF_BYTES ? len : SNIFF_BYTES);
	bool pid = false, tid = false, stack = false;
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		const char *s = kp__span_skip_blanks(p, e);
		pid |= kp__span_has_prefix(s, e, "PID:");
		tid |= kp__span_has_prefix(s, e, "Thread ID:");
		stack |= kp__span_has_prefix(s, e, "Kernel stack:");
		if (pid && tid && stack)
			return true;
		p = e + 1;
	}
	return false;
}

typedef struct sp {
	kp_report *r;
	int proc, thread;      /* current, -1 when none */
	int stack;             /* 0 none, 1 kernel, 2 user */
	bool oom;
	bool cut;              /* the last line was in a stack but no frame */
	size_t nthreads;
} sp;

/* A number: 0x hex or decimal, then only blanks; false otherwise. */
static bool num(const char *s, const char *e, uint64_t *v)
{
	s = kp__span_skip_blanks(s, e);
	const char *q = s;
	while (q < e && *q != ' ' && *q != '\t')
		q++;
	return kp_parse_u64(s, (size_t)(q - s), v) && kp__span_skip_blanks(q, e) == e;
}

static char *dup_trim(sp *c, const char *s, const char *e)
{
	s = kp__span_skip_blanks(s, e);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	char *d = kp__strndup(c->r, s, (size_t)(e - s));
	if (!d)
		c->oom = true;
	return d;
}

static kp_process *cur_proc(sp *c)
{
	if (c->proc < 0) {
		if (!kp__add_process(c->r)) {
			c->oom = true;
			return NULL;
		}
		c->proc = (int)c->r->nprocesses - 1;
	}
	return &c->r->processes[c->proc];
}

static kp_thread *cur_thread(sp *c)
{
	if (c->thread < 0) {
		kp_process *p = cur_proc(c);
		if (!p)
			return NULL;
		if (!kp__add_thread(c->r, p)) {
			c->oom = true;
			return NULL;
		}
		c->thread = (int)p->nthreads - 1;
		c->nthreads++;
	}
	return &c->r->processes[c->proc].threads[c->thread];
}

/* A new process unless the current one was only just begun by the other
 * of its two lines (PID / Process), which fills in the same one. */
static kp_process *block_proc(sp *c, bool by_pid)
{
	if (c->proc >= 0) {
		kp_process *p = &c->r->processes[c->proc];
		if (!p->nthreads && (by_pid ? !p->has_pid : !p->name))
			return p;
	}
	c->proc = c->thread = -1;
	c->stack = 0;
	return cur_proc(c);
}

/* The image named s[0..n) (kind 'X' a kext, 'K' the kernel), added once. */
static int image_named(sp *c, const char *s, size_t n, char kind)
{
	kp_report *r = c->r;
	int k = kp__image_by_name(r, s, n);
	if (k >= 0)
		return k;
	kp_image *im = kp__add_image(r);
	if (!im || !(im->name = kp__strndup(r, s, n))) {
		c->oom = true;
		return -1;
	}
	im->kind = kind;
	return im->index;
}

/* "SYM (in MODULE) + N (0xADDR)", "0xADDR (0xADDR)" or "0xADDR". */
static bool frame_line(sp *c, const char *s, const char *e)
{
	uint64_t addr;
	const char *sym = NULL, *sym_end = NULL, *mod = NULL, *mod_end = NULL;
	bool has_off = false;
	uint64_t off = 0;
	const char *close = e;
	if (close > s && close[-1] == ')') {
		const char *open = close - 1;
		while (open > s && open[-1] != '(')
			open--;
		if (open == s || !num(open, close - 1, &addr))
			return false;
		const char *head_end = open - 1;
		while (head_end > s && (head_end[-1] == ' ' || head_end[-1] == '\t'))
			head_end--;
		uint64_t same;
		if (head_end > s && !num(s, head_end, &same)) {
			/* SYM (in MODULE) [+ N] */
			const char *in = NULL;
			for (const char *q = s; q + 5 <= head_end; q++)
				if (memcmp(q, " (in ", 5) == 0)
					in = q;
			if (!in)
				return false;
			sym = s, sym_end = in;
			mod = in + 5;
			mod_end = memchr(mod, ')', (size_t)(head_end - mod));
			if (!mod_end)
				return false;
			const char *t = kp__span_skip_blanks(mod_end + 1, head_end);
			if (t < head_end) {
				if (*t != '+' || !num(t + 1, head_end, &off))
					return false;
				has_off = true;
			}
		}
	} else if (!num(s, e, &addr)) {
		return false;
	}
	kp_thread *t = cur_thread(c);
	kp_frame *f = t ? kp__add_frame(c->r, t) : NULL;
	if (!f) {
		c->oom = true;
		return true;
	}
	f->address = addr;
	f->has_address = true;
	f->user = c->stack == 2;
	if (sym) {
		f->symbol = dup_trim(c, sym, sym_end);
		f->has_symbol_offset = has_off;
		f->symbol_offset = off;
		size_t mn = (size_t)(mod_end - mod);
		/* frames do not move with images: f stays valid */
		if (mn == 11 && memcmp(mod, "mach_kernel", 11) == 0) {
			f->report_kernel = true;
			f->image = image_named(c, "kernel", 6, 'K');   /* by name only: no offset */
		} else if (mn && !f->user) {
			f->image = image_named(c, mod, mn, 'X');
			f->report_image = f->image >= 0;
		}
	}
	return true;
}

/* "0x9 == TH_WAIT |TH_UNINT" -> "TH_WAIT TH_UNINT"; other forms verbatim. */
static char *state_of(sp *c, const char *s, const char *e)
{
	const char *eq = NULL;
	for (const char *q = s; q + 2 <= e; q++)
		if (q[0] == '=' && q[1] == '=') {
			eq = q + 2;
			break;
		}
	if (!eq)
		return dup_trim(c, s, e);
	char *d = kp__alloc(c->r, (size_t)(e - eq) + 1);
	if (!d) {
		c->oom = true;
		return NULL;
	}
	char *w = d;
	for (const char *q = eq; q < e; q++) {
		bool sep = *q == ' ' || *q == '\t' || *q == '|';
		if (!sep)
			*w++ = *q;
		else if (w > d && w[-1] != ' ')
			*w++ = ' ';
	}
	while (w > d && w[-1] == ' ')
		w--;
	*w = '\0';
	return d;
}

static void thread_field(sp *c, const char *key, const char *v, const char *e)
{
	kp_thread *t = cur_thread(c);
	uint64_t n;
	if (!t)
		return;
	if (strcmp(key, "state") == 0) {
		t->state = state_of(c, v, e);
	} else if (strcmp(key, "wait_event") == 0 || strcmp(key, "continuation") == 0) {
		bool we = key[0] == 'w';
		kp_frame *f = we ? &t->wait_event : &t->continuation;
		if (num(v, e, &n) && n) {
			memset(f, 0, sizeof *f);
			f->image = -1;
			f->address = n;
			f->has_address = true;
			if (we)
				t->has_wait_event = true;
			else
				t->has_continuation = true;
		}
	} else if (strcmp(key, "name") == 0) {
		t->name = dup_trim(c, v, e);
	} else if (strcmp(key, "priority") == 0 || strcmp(key, "sched priority") == 0) {
		if (num(v, e, &n) && n <= 1000) {
			t->sched_priority = (int)n;
			t->has_sched_priority = true;
		}
	} else if (strcmp(key, "base priority") == 0) {
		if (num(v, e, &n) && n <= 1000) {
			t->base_priority = (int)n;
			t->has_base_priority = true;
		}
	}
}

static void one_line(sp *c, const char *s, const char *e, long lineno)
{
	while (e > s && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
		e--;
	s = kp__span_skip_blanks(s, e);
	if (s == e)
		return;
	c->cut = c->stack != 0;
	if (c->stack && frame_line(c, s, e)) {
		c->cut = false;
		return;
	}
	c->stack = 0;
	uint64_t n;
	if (kp__span_has_prefix(s, e, "PID:")) {
		kp_process *p = block_proc(c, true);
		if (p && num(s + 4, e, &n) && n <= INT64_MAX) {
			p->pid = (int64_t)n;
			p->has_pid = true;
		} else if (p) {
			kp__warn(c->r, lineno, "PID line without a number");
		}
	} else if (kp__span_has_prefix(s, e, "Process:")) {
		kp_process *p = block_proc(c, false);
		if (p)
			p->name = dup_trim(c, s + 8, e);
	} else if (kp__span_has_prefix(s, e, "Thread ID:")) {
		cur_proc(c);
		c->thread = -1;
		kp_thread *t = cur_thread(c);
		if (t && num(s + 10, e, &n)) {
			t->id = n;
			t->has_id = true;
		} else if (t) {
			kp__warn(c->r, lineno, "Thread ID line without a number");
		}
	} else if (kp__span_has_prefix(s, e, "Thread ")) {
		const char *colon = memchr(s, ':', (size_t)(e - s));
		char key[24];
		size_t kn = colon ? (size_t)(colon - (s + 7)) : 0;
		if (colon && kn < sizeof key && c->proc >= 0 && c->thread >= 0) {
			memcpy(key, s + 7, kn);
			key[kn] = '\0';
			thread_field(c, key, colon + 1, e);
		}
	} else if (kp__span_has_prefix(s, e, "Kernel stack:") || kp__span_has_prefix(s, e, "User stack:")) {
		if (c->thread >= 0)
			c->stack = s[0] == 'K' ? 1 : 2;
	}
}

kp_status kp__text_stackshot_parse(kp_report *r, const char *text, size_t len, kp_error *err)
{
	sp c = { .r = r, .proc = -1, .thread = -1 };
	long lineno = 1;
	const char *p = text, *end = text + len;
	while (p < end && !c.oom) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		if (memchr(p, '\0', (size_t)(e - p)))
			kp__warn(r, lineno, "NUL byte in a line: line skipped");
		else
			one_line(&c, p, e, lineno);
		p = e + 1;
		lineno++;
	}
	if (c.oom)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	if (!c.nthreads)
		return kp_error_set(err, KP_ERR_FORMAT, 1, 0, "stackshot text without any thread (no \"Thread ID:\" line)");
	r->format = KP_FORMAT_TEXT;
	r->kind = KP_KIND_STACKSHOT;
	r->headline = kp__sprintf(r, "stackshot (text): %zu processes, %zu threads", r->nprocesses, c.nthreads);
	/* a last line without its newline that is no frame inside a stack:
	 * the file was cut in the middle of a frame */
	if (text[len - 1] != '\n' && c.cut) {
		r->truncated = true;
		kp__warn(r, lineno - 1, "report is truncated: the last frame line is cut off");
	}
	if (!r->headline)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	return KP_OK;
}
