/* report_json_ref.h: the reference for test_report_json: the JSON writer
 * as it was before the buffered one (commit 6957b93's report_json.c, names
 * prefixed ref_): a cJSON tree per frame printed in cJSON_Print's layout
 * through fputc/fprintf, then made safe by the old fputs_safe.  Its output is
 * what `show --json` printed; the new writer must match it byte for byte.
 * A new key in the writer needs its twin here (or the test fails). */
#ifndef REPORT_JSON_REF_H
#define REPORT_JSON_REF_H

#include "kp_report_json.h"
#include "kp_utf8.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void ref_fputs_safe(FILE *fp, const char *json) __attribute__((unused));
static void ref_fputs_safe(FILE *fp, const char *json)
{
	const unsigned char *p = (const unsigned char *)json, *run = p;
	const unsigned char *end = p + strlen(json);
	while (p < end) {
		if (*p < 0x7F) {   /* cJSON has escaped the C0 controls already */
			p++;
			continue;
		}
		uint32_t cp;
		size_t n = kp_utf8_decode(p, (size_t)(end - p), &cp);
		bool bad = cp == 0xFFFD && n == 1;
		if (!bad && !kp_text_cp_unsafe(cp)) {
			p += n;
			continue;
		}
		fwrite(run, 1, (size_t)(p - run), fp);
		if (cp > 0xFFFF)   /* tag characters: a UTF-16 surrogate pair */
			fprintf(fp, "\\u%04x\\u%04x", (unsigned)(0xD800 + ((cp - 0x10000) >> 10)),
			        (unsigned)(0xDC00 + ((cp - 0x10000) & 0x3FF)));
		else
			fprintf(fp, "\\u%04x", (unsigned)cp);
		p += n;
		run = p;
	}
	fwrite(run, 1, (size_t)(p - run), fp);
}

static cJSON *ref_hex(uint64_t v) __attribute__((unused));
static cJSON *ref_hex(uint64_t v)
{
	char buf[24];
	snprintf(buf, sizeof buf, "0x%" PRIx64, v);
	return cJSON_CreateString(buf);
}

static void ref_put_str(cJSON *o, const char *k, const char *v)
{
	cJSON_AddItemToObject(o, k, v ? cJSON_CreateString(v) : cJSON_CreateNull());
}

static void ref_put_hex(cJSON *o, const char *k, bool has, uint64_t v)
{
	cJSON_AddItemToObject(o, k, has ? ref_hex(v) : cJSON_CreateNull());
}

/* Integers below 2^53 as numbers, larger ones as hex strings. */
static void ref_put_u64(cJSON *o, const char *k, bool has, uint64_t v)
{
	if (!has)
		cJSON_AddItemToObject(o, k, cJSON_CreateNull());
	else if (v < (1ull << 53))
		cJSON_AddItemToObject(o, k, cJSON_CreateNumber((double)v));
	else
		cJSON_AddItemToObject(o, k, ref_hex(v));
}

static void ref_put_i64(cJSON *o, const char *k, bool has, int64_t v)
{
	if (has && (v >= (1ll << 53) || v <= -(1ll << 53)))
		cJSON_AddItemToObject(o, k, ref_hex((uint64_t)v));
	else
		cJSON_AddItemToObject(o, k, has ? cJSON_CreateNumber((double)v) : cJSON_CreateNull());
}

static cJSON *ref_image_json(const kp_image *im)
{
	cJSON *o = cJSON_CreateObject();
	char kind[2] = {im->kind, 0};
	cJSON_AddNumberToObject(o, "index", im->index);
	ref_put_str(o, "uuid", im->uuid);
	ref_put_str(o, "name", im->name);
	ref_put_str(o, "version", im->version);
	ref_put_str(o, "kind", kind);
	ref_put_hex(o, "base", im->has_base, im->base);
	ref_put_hex(o, "start", im->has_start, im->start);
	ref_put_hex(o, "end", im->has_end, im->end);
	cJSON_AddBoolToObject(o, "in_backtrace", im->in_backtrace);
	cJSON_AddBoolToObject(o, "dependency", im->is_dependency);
	return o;
}

static cJSON *ref_frame_json(const kp_report *r, const kp_frame *f)
{
	cJSON *o = cJSON_CreateObject();
	const kp_image *im = f->image >= 0 && (size_t)f->image < r->nimages ? &r->images[f->image] : NULL;
	if (im)
		cJSON_AddNumberToObject(o, "image", f->image);
	else
		cJSON_AddNullToObject(o, "image");
	ref_put_str(o, "image_uuid", im ? im->uuid : NULL);
	ref_put_str(o, "image_name", im ? im->name : NULL);
	ref_put_hex(o, "offset", f->has_offset, f->offset);
	ref_put_hex(o, "address", f->has_address, f->address);
	ref_put_str(o, "report_symbol", f->symbol);
	cJSON_AddBoolToObject(o, "user", f->user);
	if (f->has_samples)
		ref_put_u64(o, "samples", true, f->samples);
	return o;
}

static cJSON *ref_strs(const kp_strs *v)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < v->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v->v[i]));
	return a;
}

/* issue 14's thread members */
static void ref_thread_wait(const kp_report *r, const kp_thread *t, cJSON *to)
{
	cJSON *q = cJSON_AddObjectToObject(to, "qos");
	ref_put_str(q, "effective", t->qos_effective);
	ref_put_str(q, "requested", t->qos_requested);
	ref_put_str(q, "override", t->qos_override);
	cJSON_AddItemToObject(to, "sched_flags", ref_strs(&t->sched_flags));
	ref_put_str(to, "dispatch_queue", t->dispatch_queue);
	ref_put_str(to, "notice", t->notice);
	ref_put_str(to, "waits_on", t->waits_on);
	ref_put_str(to, "turnstile", t->turnstile);
	if (t->has_blocked_tid || t->has_blocked_pid) {
		const kp_process *bp = t->blocked_proc >= 0 ? &r->processes[t->blocked_proc] : NULL;
		cJSON *b = cJSON_AddObjectToObject(to, "blocked_by");
		ref_put_u64(b, "thread_id", t->has_blocked_tid, t->blocked_tid);
		ref_put_i64(b, "pid", (bp && bp->has_pid) || t->has_blocked_pid,
		            bp && bp->has_pid ? bp->pid : t->blocked_pid);
		ref_put_i64(b, "hops", t->has_hops, t->hops);
	} else {
		cJSON_AddNullToObject(to, "blocked_by");
	}
	if (t->has_continuation)
		cJSON_AddItemToObject(to, "continuation", ref_frame_json(r, &t->continuation));
	else
		cJSON_AddNullToObject(to, "continuation");
	if (t->has_wait_event)
		cJSON_AddItemToObject(to, "wait_event", ref_frame_json(r, &t->wait_event));
	else
		cJSON_AddNullToObject(to, "wait_event");
}

/* issue 14's report members */
static void ref_kind(const kp_report *r, cJSON *o)
{
	ref_put_str(o, "kind", kp_kind_name(r->kind));
	ref_put_str(o, "reason", r->reason);
	if (r->has_blamed_pid || r->blamed_process) {
		cJSON *b = cJSON_AddObjectToObject(o, "blamed");
		ref_put_i64(b, "pid", r->has_blamed_pid, r->blamed_pid);
		ref_put_str(b, "process", r->blamed_process);
	} else {
		cJSON_AddNullToObject(o, "blamed");
	}
	cJSON *fp = cJSON_AddArrayToObject(o, "frontmost_pids");
	for (size_t i = 0; i < r->nfrontmost; i++)
		cJSON_AddItemToArray(fp, cJSON_CreateNumber((double)r->frontmost_pids[i]));
	cJSON_AddItemToObject(o, "notes", ref_strs(&r->notes));
	if (r->duration || r->steps) {
		ref_put_str(o, "duration", r->duration);
		ref_put_str(o, "steps", r->steps);
	}
	if (r->sleep_failure_code) {
		ref_put_str(o, "failure_code", r->sleep_failure_code);
		ref_put_u64(o, "failure_phase", r->has_sleep_phase, r->sleep_phase);
		ref_put_str(o, "failure_phase_name", r->has_sleep_phase ? kp_sleepwake_phase_name(r->sleep_phase) : NULL);
	}
	const char *names[16];
	size_t nf = kp_report_panic_flag_names(r, names, 16);
	cJSON *pf = cJSON_AddArrayToObject(o, "panic_flags");
	for (size_t i = 0; i < nf && i < 16; i++)
		cJSON_AddItemToArray(pf, cJSON_CreateString(names[i]));
	cJSON *wc = cJSON_AddArrayToObject(o, "wait_chains");
	for (size_t i = 0; i < r->nchains; i++) {
		const kp_chain *c = &r->chains[i];
		cJSON *co = cJSON_CreateObject();
		cJSON *ids = cJSON_AddArrayToObject(co, "thread_ids");
		for (size_t k = 0; k < c->nlinks; k++) {
			const kp_thread *t = &r->processes[c->links[k].proc].threads[c->links[k].thread];
			if (!t->has_id)
				cJSON_AddItemToArray(ids, cJSON_CreateNull());
			else if (t->id < (1ull << 53))
				cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)t->id));
			else
				cJSON_AddItemToArray(ids, ref_hex(t->id));
		}
		cJSON_AddBoolToObject(co, "cycle", c->cycle);
		ref_put_i64(co, "end_pid", c->has_end_pid, c->end_pid);
		ref_put_u64(co, "same", true, c->nsame);
		cJSON_AddItemToArray(wc, co);
	}
	if (r->zone.name) {
		cJSON *z = cJSON_AddObjectToObject(o, "zone");
		ref_put_str(z, "name", r->zone.name);
		ref_put_u64(z, "elements", r->zone.has_elements, r->zone.elements);
		ref_put_u64(z, "bytes", r->zone.has_bytes, r->zone.bytes);
	} else {
		cJSON_AddNullToObject(o, "zone");
	}
}

/* Thread j of p; with stream its frames are a Raw marker "i j". */
static cJSON *ref_thread_json(const kp_report *r, const kp_process *p, size_t j,
                          kp_report_json_frame_fn fn, void *ctx, bool stream)
{
	const kp_thread *t = &p->threads[j];
	cJSON *to = cJSON_CreateObject();
	if (!to)
		return NULL;
	ref_put_u64(to, "id", t->has_id, t->id);
	ref_put_str(to, "name", t->name);
	ref_put_str(to, "state", t->state);
	cJSON_AddBoolToObject(to, "panicked", t->panicked);
	ref_put_i64(to, "cpu", t->cpu >= 0, t->cpu);
	ref_put_i64(to, "sched_priority", t->has_sched_priority, t->sched_priority);
	ref_put_i64(to, "base_priority", t->has_base_priority, t->base_priority);
	ref_put_str(to, "flags", t->flags);
	if (t->has_samples)
		ref_put_u64(to, "samples", true, t->samples);
	ref_thread_wait(r, t, to);
	if (stream) {
		char mark[48];
		snprintf(mark, sizeof mark, "%zu %zu", (size_t)(p - r->processes), j);
		cJSON_AddItemToObject(to, "frames", cJSON_CreateRaw(mark));
		return to;
	}
	cJSON *fs = cJSON_AddArrayToObject(to, "frames");
	for (size_t k = 0; k < t->nframes; k++) {
		cJSON *fo = ref_frame_json(r, &t->frames[k]);
		if (fn)
			fn(ctx, r, p, t, k, fo);
		cJSON_AddItemToArray(fs, fo);
	}
	return to;
}

/* The whole tree, or (stream) one whose threads arrays are Raw markers "i"
 * (process) for ref_write_stream to fill in. */
static cJSON *ref_build(const kp_report *r, kp_report_json_frame_fn fn, void *ctx, bool stream)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	ref_put_str(o, "file", r->path);
	ref_put_str(o, "format", kp_format_name(r->format));
	ref_put_i64(o, "bug_type", r->has_bug_type, r->bug_type);
	ref_put_str(o, "timestamp", r->timestamp);
	ref_put_str(o, "os_version", r->os_version);
	ref_put_str(o, "incident_id", r->incident_id);
	ref_put_str(o, "product", r->product);
	ref_put_str(o, "build", r->build);
	ref_put_str(o, "kernel_version", r->kernel_version);
	ref_put_str(o, "kernel_uuid", r->kernel_uuid);
	ref_put_str(o, "arch", r->arch == KP_ARCH_UNKNOWN ? NULL : kp_arch_name(r->arch));
	ref_put_str(o, "soc", r->soc);
	ref_put_str(o, "headline", r->headline);
	ref_put_str(o, "panic_string", r->panic_string);
	ref_kind(r, o);

	cJSON *pk = cJSON_AddObjectToObject(o, "panicked");
	ref_put_i64(pk, "pid", r->has_panicked_pid, r->panicked_pid);
	ref_put_str(pk, "process", r->panicked_process);
	ref_put_u64(pk, "thread_id", r->has_panicked_thread_id, r->panicked_thread_id);
	ref_put_hex(pk, "task", r->has_panicked_task, r->panicked_task);

	cJSON *ad = cJSON_AddObjectToObject(o, "addresses");
	ref_put_hex(ad, "kernel_slide", r->addr_flags & KP_HAS_KERNEL_SLIDE, r->kernel_slide);
	ref_put_hex(ad, "kernel_text_base", r->addr_flags & KP_HAS_KERNEL_TEXT_BASE, r->kernel_text_base);
	ref_put_hex(ad, "kernel_text_exec_base", r->addr_flags & KP_HAS_KERNEL_TEXT_EXEC_BASE,
	        r->kernel_text_exec_base);
	ref_put_hex(ad, "kernel_text_exec_slide", r->addr_flags & KP_HAS_KERNEL_TEXT_EXEC_SLIDE,
	        r->kernel_text_exec_slide);
	ref_put_hex(ad, "kernelcache_base", r->addr_flags & KP_HAS_KERNELCACHE_BASE, r->kernelcache_base);
	ref_put_hex(ad, "kernelcache_slide", r->addr_flags & KP_HAS_KERNELCACHE_SLIDE,
	        r->kernelcache_slide);

	ref_put_str(o, "last_started_kext", r->last_started_kext);
	ref_put_str(o, "last_unloaded_kext", r->last_unloaded_kext);
	cJSON_AddBoolToObject(o, "kexts_skipped", r->kexts_skipped);
	cJSON *kx = cJSON_AddArrayToObject(o, "loaded_kexts");
	for (size_t i = 0; i < r->nkexts; i++) {
		cJSON *k = cJSON_CreateObject();
		ref_put_str(k, "name", r->kexts[i].name);
		ref_put_str(k, "version", r->kexts[i].version);
		ref_put_str(k, "uuid", r->kexts[i].uuid);
		ref_put_hex(k, "address", r->kexts[i].has_address, r->kexts[i].address);
		cJSON_AddItemToArray(kx, k);
	}

	cJSON *ims = cJSON_AddArrayToObject(o, "images");
	for (size_t i = 0; i < r->nimages; i++)
		cJSON_AddItemToArray(ims, ref_image_json(&r->images[i]));

	cJSON *ps = cJSON_AddArrayToObject(o, "processes");
	for (size_t i = 0; i < r->nprocesses; i++) {
		const kp_process *p = &r->processes[i];
		cJSON *po = cJSON_CreateObject();
		ref_put_i64(po, "pid", p->has_pid, p->pid);
		ref_put_str(po, "name", p->name);
		cJSON_AddItemToObject(po, "flags", ref_strs(&p->flags));
		cJSON_AddItemToObject(po, "wait_info", ref_strs(&p->wait_info));
		cJSON_AddItemToObject(po, "turnstile_info", ref_strs(&p->turnstile_info));
		if (stream) {
			/* ref_write_stream builds each thread when it gets there */
			char mark[24];
			snprintf(mark, sizeof mark, "%zu", i);
			cJSON_AddItemToObject(po, "threads", cJSON_CreateRaw(mark));
		} else {
			cJSON *ts = cJSON_AddArrayToObject(po, "threads");
			for (size_t j = 0; j < p->nthreads; j++)
				cJSON_AddItemToArray(ts, ref_thread_json(r, p, j, fn, ctx, false));
		}
		cJSON_AddItemToArray(ps, po);
	}

	if (r->nextlogs) {
		cJSON *xa = cJSON_AddArrayToObject(o, "extensible_paniclog");
		for (size_t i = 0; i < r->nextlogs; i++) {
			const kp_extlog *x = &r->extlogs[i];
			cJSON *xo = cJSON_CreateObject();
			ref_put_str(xo, "owner_uuid", x->owner_uuid);
			ref_put_str(xo, "owner", kp_report_owner_name(r, x->owner_uuid));
			ref_put_str(xo, "data_id", x->data_id);
			ref_put_u64(xo, "size", true, x->len);
			char *txt = malloc(x->len * 2 + 1);
			if (x->text) {
				memcpy(txt, x->data, x->len);
				txt[x->len] = '\0';
			}
			ref_put_str(xo, "text", x->text ? txt : NULL);
			for (size_t k = 0; k < x->len; k++)
				snprintf(txt + 2 * k, 3, "%02x", x->data[k]);
			txt[x->len * 2] = '\0';
			ref_put_str(xo, "hex", txt);
			free(txt);
			cJSON_AddItemToArray(xa, xo);
		}
	}
	cJSON *fl = cJSON_AddObjectToObject(o, "fields");
	for (size_t i = 0; i < r->nfields; i++)
		cJSON_AddItemToObject(fl, r->fields[i].key, cJSON_CreateString(r->fields[i].value));
	cJSON_AddBoolToObject(o, "truncated", r->truncated);
	cJSON *ws = cJSON_AddArrayToObject(o, "warnings");
	for (size_t i = 0; i < r->nwarnings; i++) {
		char buf[4096];
		if (r->warnings[i].line > 0)
			snprintf(buf, sizeof buf, "%s (line %ld)", r->warnings[i].msg, r->warnings[i].line);
		else
			snprintf(buf, sizeof buf, "%s", r->warnings[i].msg);
		cJSON_AddItemToArray(ws, cJSON_CreateString(buf));
	}
	return o;
}

/* ---- streaming: cJSON_Print's layout, one frame tree at a time ---------- */

typedef struct ref_jw {
	FILE *fp;
	const kp_report *r;
	kp_report_json_frame_fn fn;
	void *ctx;
	bool ok;
} ref_jw;

static void ref_jw_indent(ref_jw *w, int depth)
{
	for (int i = 0; i < depth; i++)
		fputc('\t', w->fp);
}

static void ref_jw_string(ref_jw *w, const char *str)
{
	size_t n = strlen(str);
	char *buf = malloc(n * 6 + 3), *o = buf;
	if (!buf) {
		w->ok = false;
		return;
	}
	*o++ = '"';
	for (const unsigned char *p = (const unsigned char *)str; *p; p++) {
		unsigned char c = *p;
		if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
		} else if (c < 0x20) {
			static const char short_esc[] = "btn\0fr";   /* 8..13, \0: none (11) */
			*o++ = '\\';
			if (c >= 8 && c <= 13 && short_esc[c - 8]) {
				*o++ = short_esc[c - 8];
			} else {
				snprintf(o, 6, "u%04x", c);
				o += 5;
			}
		} else {
			*o++ = (char)c;
		}
	}
	*o++ = '"';
	*o = '\0';
	ref_fputs_safe(w->fp, buf);
	free(buf);
}

/* A scalar as cJSON_Print writes it. */
static void ref_jw_leaf(ref_jw *w, const cJSON *item)
{
	if (cJSON_IsString(item) || cJSON_IsRaw(item)) {
		ref_jw_string(w, item->valuestring ? item->valuestring : "");
	} else if (cJSON_IsNumber(item)) {
		double d = item->valuedouble;
		if (d == (double)(long long)d && d > -1e15 && d < 1e15)
			fprintf(w->fp, "%lld", (long long)d);
		else if (d != d || d - d != 0)
			fputs("null", w->fp);
		else
			fprintf(w->fp, "%1.17g", d);
	} else if (cJSON_IsTrue(item)) {
		fputs("true", w->fp);
	} else if (cJSON_IsFalse(item)) {
		fputs("false", w->fp);
	} else {
		fputs("null", w->fp);
	}
}

static void ref_jw_value(ref_jw *w, const cJSON *item, int depth);

static void ref_jw_frames(ref_jw *w, const char *mark, int depth)
{
	size_t i, j;
	if (sscanf(mark, "%zu %zu", &i, &j) != 2 || i >= w->r->nprocesses ||
	    j >= w->r->processes[i].nthreads) {
		fputs("[]", w->fp);
		return;
	}
	const kp_process *p = &w->r->processes[i];
	const kp_thread *t = &p->threads[j];
	fputc('[', w->fp);
	for (size_t k = 0; k < t->nframes; k++) {
		cJSON *fo = ref_frame_json(w->r, &t->frames[k]);
		if (!fo) {
			w->ok = false;
			break;
		}
		if (w->fn)
			w->fn(w->ctx, w->r, p, t, k, fo);
		if (k)
			fputs(", ", w->fp);
		ref_jw_value(w, fo, depth);
		cJSON_Delete(fo);
	}
	fputc(']', w->fp);
}

static void ref_jw_threads(ref_jw *w, const char *mark, int depth)
{
	size_t i;
	if (sscanf(mark, "%zu", &i) != 1 || i >= w->r->nprocesses) {
		fputs("[]", w->fp);
		return;
	}
	const kp_process *p = &w->r->processes[i];
	fputc('[', w->fp);
	for (size_t j = 0; j < p->nthreads; j++) {
		cJSON *to = ref_thread_json(w->r, p, j, w->fn, w->ctx, true);
		if (!to) {
			w->ok = false;
			break;
		}
		if (j)
			fputs(", ", w->fp);
		ref_jw_value(w, to, depth);
		cJSON_Delete(to);
	}
	fputc(']', w->fp);
}

static void ref_jw_value(ref_jw *w, const cJSON *item, int depth)
{
	if (cJSON_IsObject(item)) {
		fputs("{\n", w->fp);
		for (const cJSON *c = item->child; c; c = c->next) {
			ref_jw_indent(w, depth + 1);
			ref_jw_string(w, c->string ? c->string : "");
			fputs(":\t", w->fp);
			if (cJSON_IsRaw(c) && c->string && strcmp(c->string, "frames") == 0)
				ref_jw_frames(w, c->valuestring, depth + 1);
			else if (cJSON_IsRaw(c) && c->string && strcmp(c->string, "threads") == 0)
				ref_jw_threads(w, c->valuestring, depth + 1);
			else
				ref_jw_value(w, c, depth + 1);
			fputs(c->next ? ",\n" : "\n", w->fp);
		}
		ref_jw_indent(w, depth);
		fputc('}', w->fp);
	} else if (cJSON_IsArray(item)) {
		fputc('[', w->fp);
		for (const cJSON *c = item->child; c; c = c->next) {
			ref_jw_value(w, c, depth);
			if (c->next)
				fputs(", ", w->fp);
		}
		fputc(']', w->fp);
	} else {
		ref_jw_leaf(w, item);
	}
}

static bool ref_write_stream(FILE *fp, const kp_report *r, kp_report_json_frame_fn fn, void *ctx, int depth) __attribute__((unused));
static bool ref_write_stream(FILE *fp, const kp_report *r, kp_report_json_frame_fn fn, void *ctx, int depth)
{
	cJSON *shell = ref_build(r, fn, ctx, true);
	if (!shell)
		return false;
	ref_jw w = {.fp = fp, .r = r, .fn = fn, .ctx = ctx, .ok = true};
	ref_jw_value(&w, shell, depth);
	cJSON_Delete(shell);
	return w.ok && !ferror(fp);
}

#endif
