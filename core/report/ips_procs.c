/* ips_procs.c: the processByPid member of an .ips body, read straight from
 * the text.  It is about 95% of a full report; going through cJSON would
 * cost a tree of ~12x its size and most of the parse time, so processes,
 * threads and frames are read with the json_scan skimmer and small readers
 * for the few value kinds they hold.  Integers are read as uint64 from their
 * digits; a value of an unexpected type is skipped, never guessed.
 *
 * Limits, so a hostile file of tiny members cannot make the model many times
 * its size (a real report has < 100 processes, < 10,000 threads and < 200
 * frames a thread): KP_IPS_MAX_PROCESSES, KP_IPS_MAX_THREADS in all, and
 * KP_IPS_MAX_FRAMES a thread; what is past them is dropped with a warning.
 *
 * With a kp__ips_defer (KP_PARSE_SKIM_FRAMES) a thread gets its id alone:
 * its object's span is kept, and kp__ips_frames decodes the members and
 * frames of the threads that need them once the panic text has named the
 * panicked one (the other members were an eighth of skimming a 1 MB report:
 * a dozen strings and numbers a thread, thousands of threads).  The
 * iterators step over a skipped value through the memo, so its bytes are
 * scanned once, by the recording skip. */
#include "json_scan.h"
#include "report_build.h"
#include "kp_utf8.h"
#include "kp_vec.h"

#include <stdlib.h>
#include <string.h>

static bool is_key(const kp_jmember *m, const char *k, size_t n)
{
	return m->keylen == n && memcmp(m->key, k, n) == 0;
}
#define KEY(m, lit) is_key((m), lit, sizeof(lit) - 1)

static unsigned read_hex4(const char *p, const char *end)
{
	unsigned v = 0;
	if (end - p < 4)
		return 0xFFFFFFFFu;
	for (int i = 0; i < 4; i++) {
		int h = kp_hex_digit((unsigned char)p[i]);
		if (h < 0)
			return 0xFFFFFFFFu;
		v = v << 4 | (unsigned)h;
	}
	return v;
}

/* A JSON string value [s, end) (quotes included) decoded into the arena;
 * NULL when it is not a string.  \u0000 becomes U+FFFD so C strings stay
 * whole; lone surrogates likewise. */
static char *read_string(kp_report *r, const char *s, const char *end)
{
	if (end - s < 2 || *s != '"' || end[-1] != '"')
		return NULL;
	s++, end--;
	/* every escape shrinks or keeps the length, except \u0000 -> 3 bytes (6 in) */
	char *out = kp__alloc(r, (size_t)(end - s) + 1), *o = out;
	if (!out)
		return NULL;
	while (s < end) {
		const char *bs = memchr(s, '\\', (size_t)(end - s));
		size_t run = bs ? (size_t)(bs - s) : (size_t)(end - s);
		memcpy(o, s, run);
		o += run;
		s += run;
		if (!bs || s + 1 >= end)
			break;
		char c = s[1];
		s += 2;
		switch (c) {
		case 'n': *o++ = '\n'; break;
		case 't': *o++ = '\t'; break;
		case 'r': *o++ = '\r'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'u': {
			unsigned cp = read_hex4(s, end);
			if (cp == 0xFFFFFFFFu)
				break;
			s += 4;
			if (cp >= 0xD800 && cp <= 0xDBFF && end - s >= 6 && s[0] == '\\' && s[1] == 'u') {
				unsigned lo = read_hex4(s + 2, end);
				if (lo >= 0xDC00 && lo <= 0xDFFF) {
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
					s += 6;
				}
			}
			if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF))
				cp = 0xFFFD;
			o += kp_utf8_encode(cp, o);
			break;
		}
		default: *o++ = c; break;   /* \" \\ \/ and lenient others */
		}
	}
	*o = '\0';
	return out;
}

/* Digits of an unsigned integer value (no sign, fraction or exponent). */
static bool read_u64(const char *s, const char *end, uint64_t *out)
{
	size_t n = 0;
	while (s + n < end && s[n] >= '0' && s[n] <= '9')
		n++;
	if (n == 0 || (s + n < end && (s[n] == '.' || s[n] == 'e' || s[n] == 'E')))
		return false;
	return kp_parse_u64(s, n, out);
}

/* ["A","B"] -> "A B"; a plain string as itself. */
static char *read_joined(kp_report *r, const char *s, const char *end)
{
	if (s < end && *s == '"')
		return read_string(r, s, end);
	kp_jiter it;
	kp_jerr e;
	if (!kp_json_arr_begin(&it, s, end, &e))
		return NULL;
	char *out = kp__alloc(r, (size_t)(end - s) + 1), *o = out;
	if (!out)
		return NULL;
	*o = '\0';
	const char *p, *ve;
	while (kp_json_arr_next(&it, &p, &ve, &e)) {
		char *str = read_string(r, p, ve);
		if (str) {
			size_t n = strlen(str);
			if (o != out)
				*o++ = ' ';
			memcpy(o, str, n);   /* decoded is never longer than its source */
			o += n;
			*o = '\0';
		}
	}
	return out;
}

/* ["A","B"] -> {"A","B"}; elements that are not strings are skipped. */
static kp_status read_strs(kp_report *r, const char *s, const char *end, kp_strs *out)
{
	kp_jiter it;
	kp_jerr e;
	if (!kp_json_arr_begin(&it, s, end, &e))
		return KP_OK;
	/* a repeated member appends: the array holds exactly out->n so far
	 * (a fresh cap of 0 wrote past it, issue 32 item 0) */
	size_t cap = out->n;
	const char *p, *ve;
	while (kp_json_arr_next(&it, &p, &ve, &e)) {
		char *str = read_string(r, p, ve);
		if (!str)
			continue;
		if (out->n == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			char **nv = kp__alloc(r, ncap * sizeof *nv);
			if (!nv)
				return KP_ERR_NOMEM;
			if (out->n)
				memcpy(nv, out->v, out->n * sizeof *nv);
			out->v = nv;   /* the old array stays in the arena */
			cap = ncap;
		}
		out->v[out->n++] = str;
	}
	return KP_OK;
}

/* A JSON number with fraction or exponent (userTimeTask), read with strtod
 * from a bounded copy. */
static bool read_double(const char *s, const char *end, double *out)
{
	char buf[64];
	size_t n = (size_t)(end - s);
	if (n == 0 || n >= sizeof buf || !(*s == '-' || (*s >= '0' && *s <= '9')))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	char *e;
	*out = strtod(buf, &e);
	return e != buf;
}

static bool read_int(const char *s, const char *end, int *out)
{
	uint64_t v;
	if (!read_u64(s, end, &v) || v > 0x7fffffff)
		return false;
	*out = (int)v;
	return true;
}

/* [image, offset, ...] at [p, ve): false unless it starts with two integers. */
static bool read_pair(const char *p, const char *ve, uint64_t *idx, uint64_t *off)
{
	const char *q = kp_json_ws(p + 1, ve);
	if (*p != '[' || !read_u64(q, ve, idx))
		return false;
	while (q < ve && *q >= '0' && *q <= '9')
		q++;
	q = kp_json_ws(q, ve);
	return q < ve && *q == ',' && read_u64(kp_json_ws(q + 1, ve), ve, off);
}

/* A frame at image idx + off: the address is the image's base + offset
 * (every image kind: K/U/T kernel, P/S/C user).  nimg: the images the
 * body listed (r->nimages when processByPid is read; a deferred frame is
 * decoded after the panic text may have added some). */
static void set_frame(const kp_report *r, size_t nimg, kp_frame *f, uint64_t idx, uint64_t off, bool user)
{
	f->image = -1;
	f->user = user;
	f->has_offset = true;
	f->offset = off;
	if (idx < nimg) {
		const kp_image *im = &r->images[idx];
		f->image = (int)idx;
		if (im->has_base && im->base) {
			f->has_address = true;
			f->address = im->base + off;
		}
	}
}

/* [[image, offset, ...], ...]; elements that are not two integers are skipped. */
static kp_status read_frames(kp_report *r, size_t nimg, kp_thread *t, const char *s, const char *end,
                             bool user)
{
	kp_jiter it;
	kp_jerr e;
	if (!kp_json_arr_begin(&it, s, end, &e))
		return KP_OK;
	const char *p, *ve;
	while (kp_json_arr_next(&it, &p, &ve, &e)) {
		uint64_t idx, off;
		if (!read_pair(p, ve, &idx, &off))
			continue;
		/* The [idx, 0] frame into the absolute image ends many backtraces. */
		if (idx < nimg && r->images[idx].kind == 'A' && off == 0)
			continue;
		if (t->nframes >= KP_IPS_MAX_FRAMES) {
			kp__warn(r, 0, "a thread with more than %zu frames: the rest are dropped",
			         KP_IPS_MAX_FRAMES);
			break;
		}
		kp_frame *f = kp__add_frame(r, t);
		if (!f)
			return KP_ERR_NOMEM;
		set_frame(r, nimg, f, idx, off, user);
	}
	return KP_OK;
}

/* continuation / waitEvent: one [image, offset] outside the frames; user
 * when its image is a process or shared-cache one. */
static bool read_one_frame(const kp_report *r, const char *s, const char *end, kp_frame *f)
{
	uint64_t idx, off;
	if (!read_pair(s, end, &idx, &off))
		return false;
	char kind = idx < r->nimages ? r->images[idx].kind : '?';
	set_frame(r, r->nimages, f, idx, off, kind == 'P' || kind == 'S' || kind == 'C');
	return true;
}

static size_t count_threads(const kp_report *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nprocesses; i++)
		n += r->processes[i].nthreads;
	return n;
}

/* The members of thread t's object [val, end) into t: its id always, and
 * its frame arrays' spans into *kf.. (read after the other members:
 * kernelFrames come first); the rest unless ids_only. */
static kp_status read_members(kp_report *r, kp_thread *t, const char *val, const char *end, kp_jmemo *memo,
                              bool ids_only, const char **kf, const char **kfe, const char **uf,
                              const char **ufe)
{
	kp_jiter it;
	kp_jmember m;
	kp_jerr e;
	if (!kp_json_obj_begin(&it, val, end, &e))
		return KP_OK;
	it.memo = memo;
	uint64_t id;
	while (kp_json_obj_next(&it, &m, &e)) {
		if (KEY(&m, "id")) {
			if (read_u64(m.val, m.val_end, &id))
				t->has_id = true, t->id = id;
		} else if (KEY(&m, "kernelFrames")) {
			*kf = m.val, *kfe = m.val_end;
		} else if (KEY(&m, "userFrames")) {
			*uf = m.val, *ufe = m.val_end;
		} else if (ids_only) {
			continue;
		} else if (KEY(&m, "name")) {
			t->name = read_string(r, m.val, m.val_end);
		} else if (KEY(&m, "state")) {
			t->state = read_joined(r, m.val, m.val_end);
		} else if (KEY(&m, "snapshotFlags")) {
			t->flags = read_joined(r, m.val, m.val_end);
		} else if (KEY(&m, "schedPriority")) {
			t->has_sched_priority = read_int(m.val, m.val_end, &t->sched_priority);
		} else if (KEY(&m, "basePriority")) {
			t->has_base_priority = read_int(m.val, m.val_end, &t->base_priority);
		} else if (KEY(&m, "qosEffective")) {
			t->qos_effective = read_string(r, m.val, m.val_end);
		} else if (KEY(&m, "qosRequested")) {
			t->qos_requested = read_string(r, m.val, m.val_end);
		} else if (KEY(&m, "qosOverride")) {
			t->qos_override = read_string(r, m.val, m.val_end);
		} else if (KEY(&m, "schedFlags")) {
			if (read_strs(r, m.val, m.val_end, &t->sched_flags) != KP_OK)
				return KP_ERR_NOMEM;
		} else if (KEY(&m, "dispatch_queue_label")) {
			t->dispatch_queue = read_string(r, m.val, m.val_end);
		} else if (KEY(&m, "notice")) {
			t->notice = read_string(r, m.val, m.val_end);
		} else if (KEY(&m, "continuation")) {
			t->has_continuation = read_one_frame(r, m.val, m.val_end, &t->continuation);
		} else if (KEY(&m, "waitEvent")) {
			t->has_wait_event = read_one_frame(r, m.val, m.val_end, &t->wait_event);
		}
	}
	return KP_OK;
}

static kp_status read_thread(kp_report *r, kp_process *p, const kp_jmember *tm, kp_jmemo *memo,
                             kp__ips_defer *defer)
{
	kp_jiter it;
	kp_jerr e;
	if (!kp_json_obj_begin(&it, tm->val, tm->val_end, &e))
		return KP_OK;
	kp_thread *t = kp__add_thread(r, p);
	if (!t)
		return KP_ERR_NOMEM;
	uint64_t id;
	if (kp_parse_u64(tm->key, tm->keylen, &id))
		t->has_id = true, t->id = id;
	const char *kf = NULL, *kfe = NULL, *uf = NULL, *ufe = NULL;
	/* skimming: the id alone, the rest once the panicked thread is known */
	kp_status st = read_members(r, t, tm->val, tm->val_end, memo, defer != NULL, &kf, &kfe, &uf, &ufe);
	if (st != KP_OK)
		return st;
	if (defer) {
		kp__ips_deferred *d = kp_vec_push((void **)&defer->v, &defer->n, &defer->cap, sizeof *d);
		if (!d)
			return KP_ERR_NOMEM;
		*d = (kp__ips_deferred){r->nprocesses - 1, p->nthreads - 1, tm->val, tm->val_end, kf, kfe, uf, ufe};
		return KP_OK;
	}
	st = kf ? read_frames(r, r->nimages, t, kf, kfe, false) : KP_OK;
	if (st == KP_OK && uf)
		st = read_frames(r, r->nimages, t, uf, ufe, true);
	return st;
}

kp_status kp__ips_frames(kp_report *r, kp__ips_defer *defer, bool all)
{
	for (size_t i = 0; i < defer->n; i++) {
		const kp__ips_deferred *d = &defer->v[i];
		kp_thread *t = &r->processes[d->proc].threads[d->thread];
		if (!all && !(r->has_panicked_thread_id && t->has_id && t->id == r->panicked_thread_id))
			continue;
		const char *kf = NULL, *kfe = NULL, *uf = NULL, *ufe = NULL;
		kp_status st = read_members(r, t, d->val, d->val_end, defer->memo, false, &kf, &kfe, &uf, &ufe);
		if (st == KP_OK && d->kf)
			st = read_frames(r, defer->nimages, t, d->kf, d->kfe, false);
		if (st == KP_OK && d->uf)
			st = read_frames(r, defer->nimages, t, d->uf, d->ufe, true);
		if (st != KP_OK)
			return st;
	}
	if (!all)
		r->frames_skipped = true;
	return KP_OK;
}

/* *nthreads: the threads of every process so far (KP_IPS_MAX_THREADS is
 * for the whole report), kept by the caller: summing them again for each
 * process made a report of 7,000 processes cost 50 M instructions. */
static kp_status read_process(kp_report *r, const kp_jmember *pm, kp_jmemo *memo, size_t *nthreads,
                              kp__ips_defer *defer)
{
	kp_jiter it;
	kp_jmember m;
	kp_jerr e;
	if (!kp_json_obj_begin(&it, pm->val, pm->val_end, &e))
		return KP_OK;   /* not an object: skip it */
	it.memo = memo;
	kp_process *p = kp__add_process(r);
	if (!p)
		return KP_ERR_NOMEM;
	size_t pi = r->nprocesses - 1;
	uint64_t pid;
	if (kp_parse_u64(pm->key, pm->keylen, &pid) && pid <= INT64_MAX)
		p->has_pid = true, p->pid = (int64_t)pid;
	while (kp_json_obj_next(&it, &m, &e)) {
		p = &r->processes[pi];
		if (KEY(&m, "pid")) {
			if (read_u64(m.val, m.val_end, &pid) && pid <= INT64_MAX)
				p->has_pid = true, p->pid = (int64_t)pid;
		} else if (KEY(&m, "procname")) {
			p->name = read_string(r, m.val, m.val_end);
		} else if (KEY(&m, "flags") || KEY(&m, "waitInfo") || KEY(&m, "turnstileInfo")) {
			kp_strs *dst = KEY(&m, "flags") ? &p->flags
			               : KEY(&m, "waitInfo") ? &p->wait_info : &p->turnstile_info;
			if (read_strs(r, m.val, m.val_end, dst) != KP_OK)
				return KP_ERR_NOMEM;
		} else if (KEY(&m, "frontmost")) {
			p->frontmost = m.val_end - m.val == 4 && memcmp(m.val, "true", 4) == 0;
		} else if (KEY(&m, "residentMemoryBytes")) {
			p->has_resident_bytes = read_u64(m.val, m.val_end, &p->resident_bytes);
		} else if (KEY(&m, "userTimeTask")) {
			p->has_user_time = read_double(m.val, m.val_end, &p->user_time);
		} else if (KEY(&m, "systemTimeTask")) {
			p->has_system_time = read_double(m.val, m.val_end, &p->system_time);
		} else if (KEY(&m, "suspendCount")) {
			p->has_suspend_count = read_int(m.val, m.val_end, &p->suspend_count);
		} else if (KEY(&m, "threadById")) {
			kp_jiter ti;
			kp_jmember tm;
			if (!kp_json_obj_begin(&ti, m.val, m.val_end, &e))
				continue;
			ti.memo = memo;
			while (kp_json_obj_next(&ti, &tm, &e)) {
				if ((*nthreads)++ >= KP_IPS_MAX_THREADS) {
					kp__warn(r, 0, "more than %zu threads: the rest are dropped",
					         KP_IPS_MAX_THREADS);
					break;
				}
				kp_status st = read_thread(r, p, &tm, memo, defer);
				if (st != KP_OK)
					return st;
			}
		}
	}
	return KP_OK;
}

kp_status kp__ips_processes(kp_report *r, const char *val, const char *end, kp_jmemo *memo,
                           kp__ips_defer *defer, bool *cut)
{
	kp_jiter it;
	kp_jmember pm;
	kp_jerr e = {0};
	if (!kp_json_obj_begin(&it, val, end, &e)) {
		kp__warn(r, 0, "processByPid is not an object");
		return KP_OK;
	}
	it.memo = memo;
	if (defer)
		defer->nimages = r->nimages, defer->memo = memo;
	size_t nthreads = count_threads(r);
	while (kp_json_obj_next(&it, &pm, &e)) {
		if (r->nprocesses >= KP_IPS_MAX_PROCESSES) {
			kp__warn(r, 0, "more than %zu processes: the rest are dropped",
			         KP_IPS_MAX_PROCESSES);
			break;
		}
		kp_status st = read_process(r, &pm, memo, &nthreads, defer);
		if (st != KP_OK)
			return st;
	}
	if (e.msg)
		*cut = true;
	return KP_OK;
}
