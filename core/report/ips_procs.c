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
 * KP_IPS_MAX_FRAMES a thread; what is past them is dropped with a warning. */
#include "json_scan.h"
#include "report_build.h"
#include "kp_utf8.h"

#include <string.h>

#define KP_IPS_MAX_PROCESSES ((size_t)1 << 16)
#define KP_IPS_MAX_THREADS ((size_t)1 << 18)
#define KP_IPS_MAX_FRAMES ((size_t)1 << 22)

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
	if (!kp__json_arr_begin(&it, s, end, &e))
		return NULL;
	char *out = kp__alloc(r, (size_t)(end - s) + 1), *o = out;
	if (!out)
		return NULL;
	*o = '\0';
	const char *p, *ve;
	while (kp__json_arr_next(&it, &p, &ve, &e)) {
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

static bool read_int(const char *s, const char *end, int *out)
{
	uint64_t v;
	if (!read_u64(s, end, &v) || v > 0x7fffffff)
		return false;
	*out = (int)v;
	return true;
}

/* [[image, offset, ...], ...]; elements that are not two integers are skipped. */
static kp_status read_frames(kp_report *r, kp_thread *t, const char *s, const char *end, bool user)
{
	kp_jiter it;
	kp_jerr e;
	if (!kp__json_arr_begin(&it, s, end, &e))
		return KP_OK;
	const char *p, *ve;
	while (kp__json_arr_next(&it, &p, &ve, &e)) {
		uint64_t idx, off;
		const char *q = kp__json_ws(p + 1, ve);
		if (*p == '[' && read_u64(q, ve, &idx)) {
			while (q < ve && *q >= '0' && *q <= '9')
				q++;
			q = kp__json_ws(q, ve);
			if (q < ve && *q == ',' && read_u64(kp__json_ws(q + 1, ve), ve, &off)) {
				/* The [idx, 0] frame into the absolute image ends many backtraces. */
				bool absolute = idx < r->nimages && r->images[idx].kind == 'A' && off == 0;
				if (!absolute && t->nframes >= KP_IPS_MAX_FRAMES) {
					kp__warn(r, 0, "a thread with more than %zu frames: the rest are dropped",
					         KP_IPS_MAX_FRAMES);
					break;
				}
				if (!absolute) {
					kp_frame *f = kp__add_frame(r, t);
					if (!f)
						return KP_ERR_NOMEM;
					f->user = user;
					f->has_offset = true;
					f->offset = off;
					if (idx < r->nimages) {
						const kp_image *im = &r->images[idx];
						f->image = (int)idx;
						if (im->has_base && im->base) {
							f->has_address = true;
							f->address = im->base + off;
						}
					}
				}
			}
		}
	}
	return KP_OK;
}

static size_t count_threads(const kp_report *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nprocesses; i++)
		n += r->processes[i].nthreads;
	return n;
}

static kp_status read_thread(kp_report *r, kp_process *p, const kp_jmember *tm)
{
	kp_jiter it;
	kp_jmember m;
	kp_jerr e;
	if (!kp__json_obj_begin(&it, tm->val, tm->val_end, &e))
		return KP_OK;
	kp_thread *t = kp__add_thread(r, p);
	if (!t)
		return KP_ERR_NOMEM;
	uint64_t id;
	if (kp_parse_u64(tm->key, tm->keylen, &id))
		t->has_id = true, t->id = id;
	/* frames are read after the other members: kernelFrames come first */
	const char *kf = NULL, *kfe = NULL, *uf = NULL, *ufe = NULL;
	while (kp__json_obj_next(&it, &m, &e)) {
		if (KEY(&m, "id")) {
			if (read_u64(m.val, m.val_end, &id))
				t->has_id = true, t->id = id;
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
		} else if (KEY(&m, "kernelFrames")) {
			kf = m.val, kfe = m.val_end;
		} else if (KEY(&m, "userFrames")) {
			uf = m.val, ufe = m.val_end;
		}
	}
	kp_status st = kf ? read_frames(r, t, kf, kfe, false) : KP_OK;
	if (st == KP_OK && uf)
		st = read_frames(r, t, uf, ufe, true);
	return st;
}

static kp_status read_process(kp_report *r, const kp_jmember *pm)
{
	kp_jiter it;
	kp_jmember m;
	kp_jerr e;
	if (!kp__json_obj_begin(&it, pm->val, pm->val_end, &e))
		return KP_OK;   /* not an object: skip it */
	kp_process *p = kp__add_process(r);
	if (!p)
		return KP_ERR_NOMEM;
	size_t pi = r->nprocesses - 1;
	uint64_t pid;
	if (kp_parse_u64(pm->key, pm->keylen, &pid) && pid <= INT64_MAX)
		p->has_pid = true, p->pid = (int64_t)pid;
	while (kp__json_obj_next(&it, &m, &e)) {
		p = &r->processes[pi];
		if (KEY(&m, "pid")) {
			if (read_u64(m.val, m.val_end, &pid) && pid <= INT64_MAX)
				p->has_pid = true, p->pid = (int64_t)pid;
		} else if (KEY(&m, "procname")) {
			p->name = read_string(r, m.val, m.val_end);
		} else if (KEY(&m, "threadById")) {
			kp_jiter ti;
			kp_jmember tm;
			if (!kp__json_obj_begin(&ti, m.val, m.val_end, &e))
				continue;
			size_t nthreads = count_threads(r);
			while (kp__json_obj_next(&ti, &tm, &e)) {
				if (nthreads++ >= KP_IPS_MAX_THREADS) {
					kp__warn(r, 0, "more than %zu threads: the rest are dropped",
					         KP_IPS_MAX_THREADS);
					break;
				}
				kp_status st = read_thread(r, p, &tm);
				if (st != KP_OK)
					return st;
			}
		}
	}
	return KP_OK;
}

kp_status kp__ips_processes(kp_report *r, const char *val, const char *end, bool *cut)
{
	kp_jiter it;
	kp_jmember pm;
	kp_jerr e = {0};
	if (!kp__json_obj_begin(&it, val, end, &e)) {
		kp__warn(r, 0, "processByPid is not an object");
		return KP_OK;
	}
	while (kp__json_obj_next(&it, &pm, &e)) {
		if (r->nprocesses >= KP_IPS_MAX_PROCESSES) {
			kp__warn(r, 0, "more than %zu processes: the rest are dropped",
			         KP_IPS_MAX_PROCESSES);
			break;
		}
		kp_status st = read_process(r, &pm);
		if (st != KP_OK)
			return st;
	}
	if (e.msg)
		*cut = true;
	return KP_OK;
}
