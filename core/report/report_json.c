/* report_json.c: the report model as JSON for scripts (show --json), and the
 * buffered writer behind it (contract: kp_report_json.h).
 *
 * Speed: everything goes through one buffer; a string's runs of bytes that
 * need no escape (printable ASCII, valid and safe UTF-8) are copied at once;
 * numbers are formatted by hand.  Only a frame callback's additions are
 * cJSON, one frame at a time.  The report's objects each have one function
 * below (report, panicked, addresses, kext, image, process, thread, frame,
 * fields, warning): a new key goes into its object's function. */
#include "kp_report_json.h"
#include "kp_triage.h"
#include "kp_signature.h"
#include "kp_utf8.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the writer ----------------------------------------------------------- */

void kp_report_json_init(kp_report_json_out *o, FILE *fp)
{
	o->fp = fp;
	o->n = 0;
	o->failed = false;
}

static void out_drain(kp_report_json_out *o)
{
	if (o->n && !o->failed && fwrite(o->buf, 1, o->n, o->fp) != o->n)
		o->failed = true;
	o->n = 0;
}

bool kp_report_json_flush(kp_report_json_out *o)
{
	out_drain(o);
	return !o->failed;
}

void kp_report_json_raw(kp_report_json_out *o, const char *s, size_t n)
{
	if (n <= sizeof o->buf - o->n) {
		memcpy(o->buf + o->n, s, n);
		o->n += n;
		return;
	}
	out_drain(o);
	if (n >= sizeof o->buf) {   /* a long run: straight to the FILE */
		if (!o->failed && fwrite(s, 1, n, o->fp) != n)
			o->failed = true;
		return;
	}
	memcpy(o->buf, s, n);
	o->n = n;
}

static inline void out_byte(kp_report_json_out *o, char c)
{
	if (o->n == sizeof o->buf)
		out_drain(o);
	o->buf[o->n++] = c;
}

/* Room for n more bytes (n far below the buffer size). */
static inline char *out_room(kp_report_json_out *o, size_t n)
{
	if (sizeof o->buf - o->n < n)
		out_drain(o);
	return o->buf + o->n;
}

static void out_tabs(kp_report_json_out *o, int depth)
{
	static const char tabs[] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
	while (depth > 0) {
		int k = depth < 16 ? depth : 16;
		kp_report_json_raw(o, tabs, (size_t)k);
		depth -= k;
	}
}

static const char hexdig[] = "0123456789abcdef";

/* \uXXXX for a code point up to U+FFFF. */
static void out_u16(kp_report_json_out *o, unsigned v)
{
	char *p = out_room(o, 6);
	p[0] = '\\';
	p[1] = 'u';
	p[2] = hexdig[v >> 12 & 15];
	p[3] = hexdig[v >> 8 & 15];
	p[4] = hexdig[v >> 4 & 15];
	p[5] = hexdig[v & 15];
	o->n += 6;
}

/* 1 for the bytes a JSON string carries as they are: printable ASCII but
 * the quote and the backslash.  Bytes from 0x80 are decoded and judged by
 * the one text-safety rule. */
static const unsigned char plain[256] = {
	['\x20'] = 1, 1, 0 /* '"' */, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['\x30'] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['\x40'] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['\x50'] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0 /* '\\' */, 1, 1, 1,
	['\x60'] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['\x70'] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0 /* DEL */,
};

/* The body of a string (no quotes): cJSON's escapes, then the safety rule. */
static void out_escaped(kp_report_json_out *o, const unsigned char *p, const unsigned char *end)
{
	const unsigned char *run = p;
	while (p < end) {
		unsigned char c = *p;
		if (plain[c]) {
			p++;
			continue;
		}
		size_t len = 1;
		uint32_t cp = c;
		if (c >= 0x80) {
			len = kp_utf8_decode(p, (size_t)(end - p), &cp);
			if (!(cp == 0xFFFD && len == 1) && !kp_text_cp_unsafe(cp)) {
				p += len;   /* valid and safe: stays in the run */
				continue;
			}
		}
		kp_report_json_raw(o, (const char *)run, (size_t)(p - run));
		if (c == '"' || c == '\\') {
			char *q = out_room(o, 2);
			q[0] = '\\';
			q[1] = (char)c;
			o->n += 2;
		} else if (c >= 8 && c <= 13 && c != 11) {
			char *q = out_room(o, 2);
			q[0] = '\\';
			q[1] = "btn\0fr"[c - 8];
			o->n += 2;
		} else if (cp > 0xFFFF) {   /* tags, format controls: a UTF-16 surrogate pair */
			out_u16(o, 0xD800 + ((cp - 0x10000) >> 10));
			out_u16(o, 0xDC00 + ((cp - 0x10000) & 0x3FF));
		} else {
			out_u16(o, cp);   /* C0, DEL, unsafe code points; U+FFFD for a bad byte */
		}
		p += len;
		run = p;
	}
	kp_report_json_raw(o, (const char *)run, (size_t)(p - run));
}

void kp_report_json_string(kp_report_json_out *o, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	out_byte(o, '"');
	out_escaped(o, p, p + n);
	out_byte(o, '"');
}

void kp_report_json_str(kp_report_json_out *o, const char *s)
{
	if (s)
		kp_report_json_string(o, s, strlen(s));
	else
		kp_report_json_raw(o, "null", 4);
}

void kp_report_json_int(kp_report_json_out *o, int64_t v)
{
	char tmp[24], *e = tmp + sizeof tmp, *p = e;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	kp_report_json_raw(o, p, (size_t)(e - p));
}

/* "0x..." without quotes. */
static size_t hex_digits(char *buf, uint64_t v)
{
	char tmp[16];
	size_t n = 0;
	do {
		tmp[n++] = hexdig[v & 15];
		v >>= 4;
	} while (v);
	buf[0] = '0';
	buf[1] = 'x';
	for (size_t i = 0; i < n; i++)
		buf[2 + i] = tmp[n - 1 - i];
	return n + 2;
}

void kp_report_json_hexstr(kp_report_json_out *o, uint64_t v)
{
	char *p = out_room(o, 20);
	p[0] = '"';
	size_t n = hex_digits(p + 1, v);
	p[n + 1] = '"';
	o->n += n + 2;
}

void kp_report_json_bool(kp_report_json_out *o, bool v)
{
	if (v)
		kp_report_json_raw(o, "true", 4);
	else
		kp_report_json_raw(o, "false", 5);
}

void kp_report_json_null(kp_report_json_out *o)
{
	kp_report_json_raw(o, "null", 4);
}

kp_report_json_obj kp_report_json_begin(kp_report_json_out *o, int depth)
{
	kp_report_json_raw(o, "{\n", 2);
	return (kp_report_json_obj){.out = o, .depth = depth, .any = false};
}

void kp_report_json_key(kp_report_json_obj *ob, const char *key)
{
	kp_report_json_out *o = ob->out;
	size_t n = 0, d = (size_t)(ob->depth + 1);
	while (n < 64 && plain[(unsigned char)key[n]])
		n++;
	if (key[n] == '\0' && d <= 64) {   /* a short plain key: at once */
		char *p = out_room(o, 2 + d + n + 4);
		if (ob->any) {
			*p++ = ',';
			*p++ = '\n';
		}
		memset(p, '\t', d);
		p += d;
		*p++ = '"';
		memcpy(p, key, n);
		memcpy(p + n, "\":\t", 3);
		o->n = (size_t)(p + n + 3 - o->buf);
	} else {
		if (ob->any)
			kp_report_json_raw(o, ",\n", 2);
		out_tabs(o, (int)d);
		kp_report_json_str(o, key);
		kp_report_json_raw(o, ":\t", 2);
	}
	ob->any = true;
}

void kp_report_json_end(kp_report_json_obj *ob)
{
	if (ob->any)
		out_byte(ob->out, '\n');
	out_tabs(ob->out, ob->depth);
	out_byte(ob->out, '}');
}

/* A cJSON number as cJSON_Print writes the integers and as the writer has
 * always written the rest (%1.17g; never produced by the report's keys). */
static void out_number(kp_report_json_out *o, double d)
{
	if (d != d || d - d != 0) {
		kp_report_json_null(o);
	} else if (d > -1e15 && d < 1e15 && d == (double)(long long)d) {
		kp_report_json_int(o, (long long)d);
	} else {
		char buf[32];
		int n = snprintf(buf, sizeof buf, "%1.17g", d);
		kp_report_json_raw(o, buf, n > 0 ? (size_t)n : 0);
	}
}

/* v with its closing brace depth tabs deep.  cJSON_Print puts an array's
 * elements one level deeper (deepen); the report writer has always kept
 * them at the array's level, and a frame callback's additions follow it. */
static void out_value(kp_report_json_out *o, const cJSON *v, int depth, bool deepen)
{
	if (cJSON_IsObject(v)) {
		kp_report_json_obj ob = kp_report_json_begin(o, depth);
		for (const cJSON *c = v->child; c; c = c->next) {
			kp_report_json_key(&ob, c->string ? c->string : "");
			out_value(o, c, depth + 1, deepen);
		}
		kp_report_json_end(&ob);
	} else if (cJSON_IsArray(v)) {
		out_byte(o, '[');
		for (const cJSON *c = v->child; c; c = c->next) {
			out_value(o, c, depth + deepen, deepen);
			if (c->next)
				kp_report_json_raw(o, ", ", 2);
		}
		out_byte(o, ']');
	} else if (cJSON_IsString(v) || cJSON_IsRaw(v)) {
		kp_report_json_str(o, v->valuestring ? v->valuestring : "");
	} else if (cJSON_IsNumber(v)) {
		out_number(o, v->valuedouble);
	} else if (cJSON_IsTrue(v)) {
		kp_report_json_bool(o, true);
	} else if (cJSON_IsFalse(v)) {
		kp_report_json_bool(o, false);
	} else {
		kp_report_json_null(o);
	}
}

void kp_report_json_value(kp_report_json_out *o, const cJSON *v, int depth)
{
	out_value(o, v, depth, true);
}

/* Copies JSON text, escaping nothing outside strings (cJSON_Print's output
 * has no raw controls) and making each string's body safe. */
bool kp_report_json_fputs_safe(FILE *fp, const char *json)
{
	kp_report_json_out *o = malloc(sizeof *o);
	if (!o)
		return false;
	kp_report_json_init(o, fp);
	const unsigned char *p = (const unsigned char *)json, *run = p;
	const unsigned char *end = p + strlen(json);
	while (p < end) {
		if (*p < 0x7F) {   /* cJSON has escaped the quotes and C0 controls already */
			p++;
			continue;
		}
		const unsigned char *q = p;   /* a stretch of bytes from DEL up */
		while (q < end && *q >= 0x7F)
			q++;
		kp_report_json_raw(o, (const char *)run, (size_t)(p - run));
		out_escaped(o, p, q);
		p = run = q;
	}
	kp_report_json_raw(o, (const char *)run, (size_t)(p - run));
	bool ok = kp_report_json_flush(o);
	free(o);
	return ok;
}

cJSON *kp_report_json_hex(uint64_t v)
{
	char buf[24];
	buf[hex_digits(buf, v)] = '\0';
	return cJSON_CreateString(buf);
}

/* ---- the report ----------------------------------------------------------- */

typedef struct jw {
	kp_report_json_out *o;
	const kp_report *r;
	kp_report_json_frame_fn fn;
	void *ctx;
	const kp_process *p;   /* the process and thread being written */
	const kp_thread *t;
	const kp_strs *strs;   /* the string array being written */
	const kp_chain *chain; /* the wait chain being written */
	const char *names[16]; /* panic flag names */
	bool oom;
} jw;

/* "[" element 0 ", " element 1 ... "]", each written by elem(w, i, depth). */
static void array_json(jw *w, size_t n, void (*elem)(jw *w, size_t i, int depth), int depth)
{
	out_byte(w->o, '[');
	for (size_t i = 0; i < n && !w->oom; i++) {
		if (i)
			kp_report_json_raw(w->o, ", ", 2);
		elem(w, i, depth);
	}
	out_byte(w->o, ']');
}

/* K("name"): a literal key as the two arguments the m_* helpers take, the
 * quotes and the ":<TAB>" after it included, so it is copied at once. */
#define K(lit) "\"" lit "\":\t", sizeof("\"" lit "\":\t") - 1

static void lit_key(kp_report_json_obj *ob, const char *k, size_t n)
{
	kp_report_json_out *o = ob->out;
	size_t d = (size_t)(ob->depth + 1);
	if (d > 64) {   /* deeper than any report nests: the plain way */
		if (ob->any)
			kp_report_json_raw(o, ",\n", 2);
		out_tabs(o, (int)d);
		kp_report_json_raw(o, k, n);
	} else {
		char *p = out_room(o, n + d + 2);
		if (ob->any) {
			*p++ = ',';
			*p++ = '\n';
		}
		memset(p, '\t', d);
		memcpy(p + d, k, n);
		o->n = (size_t)(p + d + n - o->buf);
	}
	ob->any = true;
}

static void m_str(kp_report_json_obj *ob, const char *k, size_t kn, const char *v)
{
	lit_key(ob, k, kn);
	kp_report_json_str(ob->out, v);
}

static void m_hex(kp_report_json_obj *ob, const char *k, size_t kn, bool has, uint64_t v)
{
	lit_key(ob, k, kn);
	if (has)
		kp_report_json_hexstr(ob->out, v);
	else
		kp_report_json_null(ob->out);
}

/* Integers below 2^53 as numbers, larger ones as hex strings. */
static void m_u64(kp_report_json_obj *ob, const char *k, size_t kn, bool has, uint64_t v)
{
	lit_key(ob, k, kn);
	if (!has)
		kp_report_json_null(ob->out);
	else if (v < (1ull << 53))
		kp_report_json_int(ob->out, (int64_t)v);
	else
		kp_report_json_hexstr(ob->out, v);
}

static void m_i64(kp_report_json_obj *ob, const char *k, size_t kn, bool has, int64_t v)
{
	lit_key(ob, k, kn);
	if (!has)
		kp_report_json_null(ob->out);
	else if (v >= (1ll << 53) || v <= -(1ll << 53))
		kp_report_json_hexstr(ob->out, (uint64_t)v);
	else
		kp_report_json_int(ob->out, v);
}

static void m_bool(kp_report_json_obj *ob, const char *k, size_t kn, bool v)
{
	lit_key(ob, k, kn);
	kp_report_json_bool(ob->out, v);
}

/* "invisible": true after a name that holds an invisible or control
 * character (kp_text_has_unsafe), so a script can tell a look-alike from
 * the name it imitates; absent otherwise, which keeps older output as it
 * was. */
static void m_invisible(kp_report_json_obj *ob, const char *name)
{
	if (name && kp_text_has_unsafe(name, strlen(name)))
		m_bool(ob, K("invisible"), true);
}

static void panicked_json(jw *w, int depth)
{
	const kp_report *r = w->r;
	kp_report_json_obj ob = kp_report_json_begin(w->o, depth);
	m_i64(&ob, K("pid"), r->has_panicked_pid, r->panicked_pid);
	m_str(&ob, K("process"), r->panicked_process);
	m_invisible(&ob, r->panicked_process);
	m_u64(&ob, K("thread_id"), r->has_panicked_thread_id, r->panicked_thread_id);
	m_hex(&ob, K("task"), r->has_panicked_task, r->panicked_task);
	kp_report_json_end(&ob);
}

static void addresses_json(jw *w, int depth)
{
	const kp_report *r = w->r;
	unsigned f = r->addr_flags;
	kp_report_json_obj ob = kp_report_json_begin(w->o, depth);
	m_hex(&ob, K("kernel_slide"), f & KP_HAS_KERNEL_SLIDE, r->kernel_slide);
	m_hex(&ob, K("kernel_text_base"), f & KP_HAS_KERNEL_TEXT_BASE, r->kernel_text_base);
	m_hex(&ob, K("kernel_text_exec_base"), f & KP_HAS_KERNEL_TEXT_EXEC_BASE, r->kernel_text_exec_base);
	m_hex(&ob, K("kernel_text_exec_slide"), f & KP_HAS_KERNEL_TEXT_EXEC_SLIDE,
	      r->kernel_text_exec_slide);
	m_hex(&ob, K("kernelcache_base"), f & KP_HAS_KERNELCACHE_BASE, r->kernelcache_base);
	m_hex(&ob, K("kernelcache_slide"), f & KP_HAS_KERNELCACHE_SLIDE, r->kernelcache_slide);
	kp_report_json_end(&ob);
}

static void kext_json(jw *w, size_t i, int depth)
{
	const kp_kext *k = &w->r->kexts[i];
	kp_report_json_obj ob = kp_report_json_begin(w->o, depth);
	m_str(&ob, K("name"), k->name);
	m_invisible(&ob, k->name);
	m_str(&ob, K("version"), k->version);
	m_str(&ob, K("uuid"), k->uuid);
	m_hex(&ob, K("address"), k->has_address, k->address);
	m_hex(&ob, K("loaded_at"), k->has_loaded_at, k->loaded_at);
	kp_report_json_end(&ob);
}

static void image_json(jw *w, size_t i, int depth)
{
	const kp_image *im = &w->r->images[i];
	char kind[2] = {im->kind, 0};
	kp_report_json_obj ob = kp_report_json_begin(w->o, depth);
	m_i64(&ob, K("index"), true, im->index);
	m_str(&ob, K("uuid"), im->uuid);
	m_str(&ob, K("name"), im->name);
	m_invisible(&ob, im->name);
	m_str(&ob, K("version"), im->version);
	m_str(&ob, K("kind"), kind);
	m_hex(&ob, K("base"), im->has_base, im->base);
	m_hex(&ob, K("start"), im->has_start, im->start);
	m_hex(&ob, K("end"), im->has_end, im->end);
	m_bool(&ob, K("in_backtrace"), im->in_backtrace);
	m_bool(&ob, K("dependency"), im->is_dependency);
	kp_report_json_end(&ob);
}

/* Frame k of the current thread, then what the callback adds. */
/* A frame's own members; the caller ends the object. */
static kp_report_json_obj frame_begin(jw *w, const kp_frame *f, int depth)
{
	const kp_report *r = w->r;
	const kp_image *im = f->image >= 0 && (size_t)f->image < r->nimages ? &r->images[f->image] : NULL;
	kp_report_json_obj ob = kp_report_json_begin(w->o, depth);
	m_i64(&ob, K("image"), im != NULL, f->image);
	m_str(&ob, K("image_uuid"), im ? im->uuid : NULL);
	m_str(&ob, K("image_name"), im ? im->name : NULL);
	m_hex(&ob, K("offset"), f->has_offset, f->offset);
	m_hex(&ob, K("address"), f->has_address, f->address);
	m_str(&ob, K("report_symbol"), f->symbol);
	m_bool(&ob, K("user"), f->user);
	if (f->has_samples)   /* spindump frames only (issue 24) */
		m_u64(&ob, K("samples"), true, f->samples);
	return ob;
}

static void frame_json(jw *w, size_t k, int depth)
{
	const kp_report *r = w->r;
	const kp_process *p = w->p;
	const kp_thread *t = w->t;
	kp_report_json_obj ob = frame_begin(w, &t->frames[k], depth);
	if (w->fn) {
		cJSON *extra = cJSON_CreateObject();
		if (!extra) {
			w->oom = true;
		} else {
			w->fn(w->ctx, r, p, t, k, extra);
			for (const cJSON *c = extra->child; c; c = c->next) {
				kp_report_json_key(&ob, c->string ? c->string : "");
				out_value(w->o, c, depth + 1, false);
			}
			cJSON_Delete(extra);
		}
	}
	kp_report_json_end(&ob);
}

static void str_elem(jw *w, size_t i, int depth)
{
	(void)depth;
	kp_report_json_str(w->o, w->strs->v[i]);
}

static void name_elem(jw *w, size_t i, int depth)
{
	(void)depth;
	kp_report_json_str(w->o, w->names[i]);
}

static void strs_json(jw *w, kp_report_json_obj *ob, const char *k, size_t kn, const kp_strs *v)
{
	lit_key(ob, k, kn);
	w->strs = v;
	array_json(w, v->n, str_elem, ob->depth + 1);
}

/* Issue 14's thread members: what explains a hang. */
/* A frame object outside frames (continuation, wait_event), or null. */
static void frame_or_null(jw *w, const kp_frame *f, int depth)
{
	if (f) {
		kp_report_json_obj c = frame_begin(w, f, depth);
		kp_report_json_end(&c);
	} else {
		kp_report_json_null(w->o);
	}
}

static void thread_wait_json(jw *w, kp_report_json_obj *ob, const kp_thread *t, int depth)
{
	const kp_report *r = w->r;
	lit_key(ob, K("qos"));
	kp_report_json_obj q = kp_report_json_begin(w->o, depth + 1);
	m_str(&q, K("effective"), t->qos_effective);
	m_str(&q, K("requested"), t->qos_requested);
	m_str(&q, K("override"), t->qos_override);
	kp_report_json_end(&q);
	strs_json(w, ob, K("sched_flags"), &t->sched_flags);
	m_str(ob, K("dispatch_queue"), t->dispatch_queue);
	m_str(ob, K("notice"), t->notice);
	m_str(ob, K("waits_on"), t->waits_on);
	m_str(ob, K("turnstile"), t->turnstile);
	lit_key(ob, K("blocked_by"));
	if (t->has_blocked_tid || t->has_blocked_pid) {
		const kp_process *bp = t->blocked_proc >= 0 ? &r->processes[t->blocked_proc] : NULL;
		bool has_pid = (bp && bp->has_pid) || t->has_blocked_pid;
		kp_report_json_obj b = kp_report_json_begin(w->o, depth + 1);
		m_u64(&b, K("thread_id"), t->has_blocked_tid, t->blocked_tid);
		m_i64(&b, K("pid"), has_pid, bp && bp->has_pid ? bp->pid : t->blocked_pid);
		m_i64(&b, K("hops"), t->has_hops, t->hops);
		kp_report_json_end(&b);
	} else {
		kp_report_json_null(w->o);
	}
	lit_key(ob, K("continuation"));
	frame_or_null(w, t->has_continuation ? &t->continuation : NULL, depth + 1);
	lit_key(ob, K("wait_event"));
	frame_or_null(w, t->has_wait_event ? &t->wait_event : NULL, depth + 1);
}

static void thread_json(jw *w, size_t j, int depth)
{
	const kp_thread *t = w->t = &w->p->threads[j];
	kp_report_json_obj ob = kp_report_json_begin(w->o, depth);
	m_u64(&ob, K("id"), t->has_id, t->id);
	m_str(&ob, K("name"), t->name);
	m_invisible(&ob, t->name);
	m_str(&ob, K("state"), t->state);
	m_bool(&ob, K("panicked"), t->panicked);
	m_i64(&ob, K("cpu"), t->cpu >= 0, t->cpu);
	m_i64(&ob, K("sched_priority"), t->has_sched_priority, t->sched_priority);
	m_i64(&ob, K("base_priority"), t->has_base_priority, t->base_priority);
	m_str(&ob, K("flags"), t->flags);
	if (t->has_samples)   /* spindump threads only (issue 24) */
		m_u64(&ob, K("samples"), true, t->samples);
	thread_wait_json(w, &ob, t, depth);
	lit_key(&ob, K("frames"));
	array_json(w, t->nframes, frame_json, depth + 1);
	kp_report_json_end(&ob);
}

static void process_json(jw *w, size_t i, int depth)
{
	const kp_process *p = w->p = &w->r->processes[i];
	kp_report_json_obj ob = kp_report_json_begin(w->o, depth);
	m_i64(&ob, K("pid"), p->has_pid, p->pid);
	m_str(&ob, K("name"), p->name);
	m_invisible(&ob, p->name);
	strs_json(w, &ob, K("flags"), &p->flags);
	strs_json(w, &ob, K("wait_info"), &p->wait_info);
	strs_json(w, &ob, K("turnstile_info"), &p->turnstile_info);
	lit_key(&ob, K("threads"));
	array_json(w, p->nthreads, thread_json, depth + 1);
	kp_report_json_end(&ob);
}

/* Unmodelled members: their kept text (the string itself, or compact JSON)
 * as a string, through the same escaping and safety rule as the rest. */
static void fields_json(jw *w, int depth)
{
	kp_report_json_obj ob = kp_report_json_begin(w->o, depth);
	for (size_t i = 0; i < w->r->nfields; i++) {
		kp_report_json_key(&ob, w->r->fields[i].key);
		kp_report_json_str(w->o, w->r->fields[i].value);
	}
	kp_report_json_end(&ob);
}

/* A warning is one string, as show prints it: "message (line N)". */
static void warning_json(jw *w, size_t i, int depth)
{
	(void)depth;
	const kp_warning *wn = &w->r->warnings[i];
	if (wn->line <= 0) {
		kp_report_json_str(w->o, wn->msg);
		return;
	}
	size_t n = strlen(wn->msg);
	char *s = malloc(n + 32);
	if (!s) {
		w->oom = true;
		return;
	}
	snprintf(s, n + 32, "%s (line %ld)", wn->msg, wn->line);
	kp_report_json_str(w->o, s);
	free(s);
}

static void pid_elem(jw *w, size_t i, int depth)
{
	(void)depth;
	kp_report_json_int(w->o, w->r->frontmost_pids[i]);
}

static void tid_elem(jw *w, size_t i, int depth)
{
	(void)depth;
	const kp_chain *c = w->chain;
	const kp_thread *t = &w->r->processes[c->links[i].proc].threads[c->links[i].thread];
	if (t->has_id && t->id < (1ull << 53))
		kp_report_json_int(w->o, (int64_t)t->id);
	else if (t->has_id)
		kp_report_json_hexstr(w->o, t->id);
	else
		kp_report_json_null(w->o);
}

static void chain_json(jw *w, size_t i, int depth)
{
	const kp_chain *c = &w->r->chains[i];
	kp_report_json_obj ob = kp_report_json_begin(w->o, depth);
	lit_key(&ob, K("thread_ids"));
	w->chain = c;
	array_json(w, c->nlinks, tid_elem, depth + 1);
	m_bool(&ob, K("cycle"), c->cycle);
	m_i64(&ob, K("end_pid"), c->has_end_pid, c->end_pid);
	m_u64(&ob, K("same"), true, c->nsame);
	kp_report_json_end(&ob);
}

/* Issue 14's report members: what kind of report, whom it blames, why. */
static void kind_json(jw *w, kp_report_json_obj *ob, int depth)
{
	const kp_report *r = w->r;
	m_str(ob, K("kind"), kp_kind_name(r->kind));
	m_str(ob, K("reason"), r->reason);
	lit_key(ob, K("blamed"));
	if (r->has_blamed_pid || r->blamed_process) {
		kp_report_json_obj b = kp_report_json_begin(w->o, depth + 1);
		m_i64(&b, K("pid"), r->has_blamed_pid, r->blamed_pid);
		m_str(&b, K("process"), r->blamed_process);
		m_invisible(&b, r->blamed_process);
		kp_report_json_end(&b);
	} else {
		kp_report_json_null(w->o);
	}
	lit_key(ob, K("frontmost_pids"));
	array_json(w, r->nfrontmost, pid_elem, depth + 1);
	strs_json(w, ob, K("notes"), &r->notes);
	if (r->duration || r->steps) {   /* spindump reports only (issue 24) */
		m_str(ob, K("duration"), r->duration);
		m_str(ob, K("steps"), r->steps);
	}
	if (r->sleep_failure_code) {   /* Sleep Wake Failure only (issue 24) */
		m_str(ob, K("failure_code"), r->sleep_failure_code);
		m_u64(ob, K("failure_phase"), r->has_sleep_phase, r->sleep_phase);
		m_str(ob, K("failure_phase_name"), r->has_sleep_phase ? kp_sleepwake_phase_name(r->sleep_phase) : NULL);
	}
	size_t nf = kp_report_panic_flag_names(r, w->names, sizeof w->names / sizeof w->names[0]);
	lit_key(ob, K("panic_flags"));
	array_json(w, nf < 16 ? nf : 16, name_elem, depth + 1);
	lit_key(ob, K("wait_chains"));
	array_json(w, r->nchains, chain_json, depth + 1);
	lit_key(ob, K("zone"));
	if (r->zone.name) {
		kp_report_json_obj z = kp_report_json_begin(w->o, depth + 1);
		m_str(&z, K("name"), r->zone.name);
		m_u64(&z, K("elements"), r->zone.has_elements, r->zone.elements);
		m_u64(&z, K("bytes"), r->zone.has_bytes, r->zone.bytes);
		kp_report_json_end(&z);
	} else {
		kp_report_json_null(w->o);
	}
}

/* An ExtensiblePanicLog entry: its owner, and its bytes as text (when
 * they are) and always as lower-case hex. */
static void extlog_json(jw *w, size_t i, int depth)
{
	const kp_extlog *x = &w->r->extlogs[i];
	kp_report_json_obj ob = kp_report_json_begin(w->o, depth);
	m_str(&ob, K("owner_uuid"), x->owner_uuid);
	m_str(&ob, K("owner"), kp_report_owner_name(w->r, x->owner_uuid));
	m_str(&ob, K("data_id"), x->data_id);
	m_u64(&ob, K("size"), true, x->len);
	char *txt = x->text ? malloc(x->len + 1) : NULL;
	if (txt) {
		memcpy(txt, x->data, x->len);
		txt[x->len] = '\0';
	}
	m_str(&ob, K("text"), txt);
	free(txt);
	char *hex = malloc(x->len * 2 + 1);
	if (!hex) {
		w->oom = true;
	} else {
		for (size_t k = 0; k < x->len; k++)
			snprintf(hex + 2 * k, 3, "%02x", x->data[k]);
		hex[x->len * 2] = '\0';
		m_str(&ob, K("hex"), hex);
		free(hex);
	}
	kp_report_json_end(&ob);
}

static void report_json(jw *w, int depth)
{
	const kp_report *r = w->r;
	kp_report_json_out *o = w->o;
	kp_report_json_obj ob = kp_report_json_begin(o, depth);
	m_str(&ob, K("file"), r->path);
	m_str(&ob, K("format"), kp_format_name(r->format));
	m_i64(&ob, K("bug_type"), r->has_bug_type, r->bug_type);
	/* one date form (ISO 8601, the report's own offset or none) and the
	 * text it was read from */
	char iso[32];
	m_str(&ob, K("timestamp"), kp_timestamp_iso(r->timestamp, iso, sizeof iso) ? iso : NULL);
	m_str(&ob, K("timestamp_raw"), r->timestamp);
	m_str(&ob, K("os_version"), r->os_version);
	char os[128];
	kp_os_label(r->os_version, os, sizeof os);
	m_str(&ob, K("os"), r->os_version ? os : NULL);
	m_str(&ob, K("incident_id"), r->incident_id);
	m_str(&ob, K("product"), r->product);
	m_str(&ob, K("build"), r->build);
	m_str(&ob, K("kernel_version"), r->kernel_version);
	m_str(&ob, K("kernel_uuid"), r->kernel_uuid);
	m_str(&ob, K("arch"), r->arch == KP_ARCH_UNKNOWN ? NULL : kp_arch_name(r->arch));
	m_str(&ob, K("soc"), r->soc);
	/* the title every view shows; the message as the report has it beside */
	char title[KP_HEADLINE_DISPLAY_SIZE];
	kp_headline_display(r->headline, title, sizeof title);
	m_str(&ob, K("headline"), r->headline ? title : NULL);
	m_str(&ob, K("headline_raw"), r->headline);
	/* the cause class (issue 34): its id, the line that decided as the
	 * report wrote it, and the field that line is in */
	kp_triage t;
	kp_triage_classify(r, &t);
	lit_key(&ob, K("class"));
	kp_report_json_obj cl = kp_report_json_begin(o, depth + 1);
	m_str(&cl, K("id"), kp_class_name(t.cls));
	m_str(&cl, K("evidence"), t.evidence[0] ? t.evidence : NULL);
	m_str(&cl, K("field"), t.field);
	kp_report_json_end(&cl);
	m_str(&ob, K("preamble"), r->preamble);
	m_str(&ob, K("panic_string"), r->panic_string);
	kind_json(w, &ob, depth);
	lit_key(&ob, K("panicked"));
	panicked_json(w, depth + 1);
	lit_key(&ob, K("addresses"));
	addresses_json(w, depth + 1);
	m_str(&ob, K("last_started_kext"), r->last_started_kext);
	m_str(&ob, K("last_unloaded_kext"), r->last_unloaded_kext);
	m_bool(&ob, K("kexts_skipped"), r->kexts_skipped);

	lit_key(&ob, K("loaded_kexts"));
	array_json(w, r->nkexts, kext_json, depth + 1);
	lit_key(&ob, K("images"));
	array_json(w, r->nimages, image_json, depth + 1);
	lit_key(&ob, K("processes"));
	array_json(w, r->nprocesses, process_json, depth + 1);

	if (r->nextlogs) {   /* .ips ExtensiblePanicLog (issue 24) */
		lit_key(&ob, K("extensible_paniclog"));
		array_json(w, r->nextlogs, extlog_json, depth + 1);
	}
	lit_key(&ob, K("fields"));
	fields_json(w, depth + 1);
	m_bool(&ob, K("truncated"), r->truncated);

	lit_key(&ob, K("warnings"));
	array_json(w, r->nwarnings, warning_json, depth + 1);
	kp_report_json_end(&ob);
}

bool kp_report_json_write(FILE *fp, const kp_report *r, kp_report_json_frame_fn fn, void *ctx,
                          int depth)
{
	kp_report_json_out *o = malloc(sizeof *o);
	if (!o)
		return false;
	kp_report_json_init(o, fp);
	jw w = {.o = o, .r = r, .fn = fn, .ctx = ctx};
	report_json(&w, depth);
	bool ok = kp_report_json_flush(o) && !w.oom && !ferror(fp);
	free(o);
	return ok;
}
