/* report_json.c: the report model as JSON for scripts (show --json), through
 * the one JSON writer (kp_jw.h; contract: kp_report_json.h).  The report's
 * objects each have one function below (report, panicked, addresses, kext,
 * image, process, thread, frame, fields, warning): a new key goes into its
 * object's function. */
#include "kp_report_json.h"
#include "kp_triage.h"
#include "kp_signature.h"
#include "kp_utf8.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the report ----------------------------------------------------------- */

typedef struct rw {
	kp_jw *o;
	const kp_report *r;
	kp_report_json_frame_fn fn;
	void *ctx;
	const kp_process *p;   /* the process and thread being written */
	const kp_thread *t;
	const kp_strs *strs;   /* the string array being written */
	const kp_chain *chain; /* the wait chain being written */
	const char *names[16]; /* panic flag names */
	bool oom;
} rw;

/* "[" element 0 ", " element 1 ... "]", each written by elem(w, i). */
static void array_json(rw *w, size_t n, void (*elem)(rw *w, size_t i))
{
	kp_jw_arr(w->o);
	for (size_t i = 0; i < n && !w->oom; i++)
		elem(w, i);
	kp_jw_end(w->o);
}

/* K("name"): a literal key as the two arguments the m_* helpers take. */
#define K(lit) "" lit, sizeof(lit) - 1

static void m_str(kp_jw *o, const char *k, size_t kn, const char *v)
{
	kp_jw_key_plain(o, k, kn);
	kp_jw_str(o, v);
}

static void m_hex(kp_jw *o, const char *k, size_t kn, bool has, uint64_t v)
{
	kp_jw_key_plain(o, k, kn);
	if (has)
		kp_jw_hex(o, v);
	else
		kp_jw_null(o);
}

/* Integers below 2^53 as numbers, larger ones as hex strings. */
static void put_u64(kp_jw *o, bool has, uint64_t v)
{
	if (!has)
		kp_jw_null(o);
	else if (v < (1ull << 53))
		kp_jw_int(o, (int64_t)v);
	else
		kp_jw_hex(o, v);
}

static void m_u64(kp_jw *o, const char *k, size_t kn, bool has, uint64_t v)
{
	kp_jw_key_plain(o, k, kn);
	put_u64(o, has, v);
}

static void m_i64(kp_jw *o, const char *k, size_t kn, bool has, int64_t v)
{
	kp_jw_key_plain(o, k, kn);
	if (!has)
		kp_jw_null(o);
	else if (v >= (1ll << 53) || v <= -(1ll << 53))
		kp_jw_hex(o, (uint64_t)v);
	else
		kp_jw_int(o, v);
}

static void m_bool(kp_jw *o, const char *k, size_t kn, bool v)
{
	kp_jw_key_plain(o, k, kn);
	kp_jw_bool(o, v);
}

/* "invisible": true after a name that holds an invisible or control
 * character (kp_text_has_unsafe), so a script can tell a look-alike from
 * the name it imitates; absent otherwise, which keeps older output as it
 * was. */
static void m_invisible(kp_jw *o, const char *name)
{
	if (name && kp_text_has_unsafe(name, strlen(name)))
		m_bool(o, K("invisible"), true);
}

static void panicked_json(rw *w)
{
	const kp_report *r = w->r;
	kp_jw *o = w->o;
	kp_jw_obj(o);
	m_i64(o, K("pid"), r->has_panicked_pid, r->panicked_pid);
	m_str(o, K("process"), r->panicked_process);
	m_invisible(o, r->panicked_process);
	m_u64(o, K("thread_id"), r->has_panicked_thread_id, r->panicked_thread_id);
	m_hex(o, K("task"), r->has_panicked_task, r->panicked_task);
	kp_jw_end(o);
}

static void addresses_json(rw *w)
{
	const kp_report *r = w->r;
	kp_jw *o = w->o;
	unsigned f = r->addr_flags;
	kp_jw_obj(o);
	m_hex(o, K("kernel_slide"), f & KP_HAS_KERNEL_SLIDE, r->kernel_slide);
	m_hex(o, K("kernel_text_base"), f & KP_HAS_KERNEL_TEXT_BASE, r->kernel_text_base);
	m_hex(o, K("kernel_text_exec_base"), f & KP_HAS_KERNEL_TEXT_EXEC_BASE, r->kernel_text_exec_base);
	m_hex(o, K("kernel_text_exec_slide"), f & KP_HAS_KERNEL_TEXT_EXEC_SLIDE, r->kernel_text_exec_slide);
	m_hex(o, K("kernelcache_base"), f & KP_HAS_KERNELCACHE_BASE, r->kernelcache_base);
	m_hex(o, K("kernelcache_slide"), f & KP_HAS_KERNELCACHE_SLIDE, r->kernelcache_slide);
	kp_jw_end(o);
}

static void kext_json(rw *w, size_t i)
{
	const kp_kext *k = &w->r->kexts[i];
	kp_jw *o = w->o;
	kp_jw_obj(o);
	m_str(o, K("name"), k->name);
	m_invisible(o, k->name);
	m_str(o, K("version"), k->version);
	m_str(o, K("uuid"), k->uuid);
	m_hex(o, K("address"), k->has_address, k->address);
	m_hex(o, K("loaded_at"), k->has_loaded_at, k->loaded_at);
	kp_jw_end(o);
}

static void image_json(rw *w, size_t i)
{
	const kp_image *im = &w->r->images[i];
	kp_jw *o = w->o;
	char kind[2] = {im->kind, 0};
	kp_jw_obj(o);
	m_i64(o, K("index"), true, im->index);
	m_str(o, K("uuid"), im->uuid);
	m_str(o, K("name"), im->name);
	m_invisible(o, im->name);
	m_str(o, K("version"), im->version);
	m_str(o, K("kind"), kind);
	m_hex(o, K("base"), im->has_base, im->base);
	m_hex(o, K("start"), im->has_start, im->start);
	m_hex(o, K("end"), im->has_end, im->end);
	m_bool(o, K("in_backtrace"), im->in_backtrace);
	m_bool(o, K("dependency"), im->is_dependency);
	kp_jw_end(o);
}

/* A frame's object opened and its own members written; the caller ends it. */
static void frame_begin(rw *w, const kp_frame *f)
{
	const kp_report *r = w->r;
	kp_jw *o = w->o;
	const kp_image *im = f->image >= 0 && (size_t)f->image < r->nimages ? &r->images[f->image] : NULL;
	kp_jw_obj(o);
	m_i64(o, K("image"), im != NULL, f->image);
	m_str(o, K("image_uuid"), im ? im->uuid : NULL);
	m_str(o, K("image_name"), im ? im->name : NULL);
	m_hex(o, K("offset"), f->has_offset, f->offset);
	m_hex(o, K("address"), f->has_address, f->address);
	m_str(o, K("report_symbol"), f->symbol);
	m_bool(o, K("user"), f->user);
	if (f->has_samples)   /* spindump frames only (issue 24) */
		m_u64(o, K("samples"), true, f->samples);
}

/* Frame k of the current thread, then what the callback adds. */
static void frame_json(rw *w, size_t k)
{
	frame_begin(w, &w->t->frames[k]);
	if (w->fn) {
		int level = w->o->level;
		w->fn(w->ctx, w->r, w->p, w->t, k, w->o);
		while (w->o->level > level)   /* a callback that left a container open */
			kp_jw_end(w->o);
	}
	kp_jw_end(w->o);
}

static void str_elem(rw *w, size_t i)
{
	kp_jw_str(w->o, w->strs->v[i]);
}

static void name_elem(rw *w, size_t i)
{
	kp_jw_str(w->o, w->names[i]);
}

static void strs_json(rw *w, const char *k, size_t kn, const kp_strs *v)
{
	kp_jw_key_plain(w->o, k, kn);
	w->strs = v;
	array_json(w, v->n, str_elem);
}

/* A frame object outside frames (continuation, wait_event), or null. */
static void frame_or_null(rw *w, const kp_frame *f)
{
	if (f) {
		frame_begin(w, f);
		kp_jw_end(w->o);
	} else {
		kp_jw_null(w->o);
	}
}

/* Issue 14's thread members: what explains a hang. */
static void thread_wait_json(rw *w, const kp_thread *t)
{
	const kp_report *r = w->r;
	kp_jw *o = w->o;
	KP_JW_KEY(o, "qos");
	kp_jw_obj(o);
	m_str(o, K("effective"), t->qos_effective);
	m_str(o, K("requested"), t->qos_requested);
	m_str(o, K("override"), t->qos_override);
	kp_jw_end(o);
	strs_json(w, K("sched_flags"), &t->sched_flags);
	m_str(o, K("dispatch_queue"), t->dispatch_queue);
	m_str(o, K("notice"), t->notice);
	m_str(o, K("waits_on"), t->waits_on);
	m_str(o, K("turnstile"), t->turnstile);
	KP_JW_KEY(o, "blocked_by");
	if (t->has_blocked_tid || t->has_blocked_pid) {
		const kp_process *bp = t->blocked_proc >= 0 ? &r->processes[t->blocked_proc] : NULL;
		bool has_pid = (bp && bp->has_pid) || t->has_blocked_pid;
		kp_jw_obj(o);
		m_u64(o, K("thread_id"), t->has_blocked_tid, t->blocked_tid);
		m_i64(o, K("pid"), has_pid, bp && bp->has_pid ? bp->pid : t->blocked_pid);
		m_i64(o, K("hops"), t->has_hops, t->hops);
		kp_jw_end(o);
	} else {
		kp_jw_null(o);
	}
	KP_JW_KEY(o, "continuation");
	frame_or_null(w, t->has_continuation ? &t->continuation : NULL);
	KP_JW_KEY(o, "wait_event");
	frame_or_null(w, t->has_wait_event ? &t->wait_event : NULL);
}

static void thread_json(rw *w, size_t j)
{
	const kp_thread *t = w->t = &w->p->threads[j];
	kp_jw *o = w->o;
	kp_jw_obj(o);
	m_u64(o, K("id"), t->has_id, t->id);
	m_str(o, K("name"), t->name);
	m_invisible(o, t->name);
	m_str(o, K("state"), t->state);
	m_bool(o, K("panicked"), t->panicked);
	m_i64(o, K("cpu"), t->cpu >= 0, t->cpu);
	m_i64(o, K("sched_priority"), t->has_sched_priority, t->sched_priority);
	m_i64(o, K("base_priority"), t->has_base_priority, t->base_priority);
	m_str(o, K("flags"), t->flags);
	if (t->has_samples)   /* spindump threads only (issue 24) */
		m_u64(o, K("samples"), true, t->samples);
	thread_wait_json(w, t);
	KP_JW_KEY(o, "frames");
	array_json(w, t->nframes, frame_json);
	kp_jw_end(o);
}

static void process_json(rw *w, size_t i)
{
	const kp_process *p = w->p = &w->r->processes[i];
	kp_jw *o = w->o;
	kp_jw_obj(o);
	m_i64(o, K("pid"), p->has_pid, p->pid);
	m_str(o, K("name"), p->name);
	m_invisible(o, p->name);
	strs_json(w, K("flags"), &p->flags);
	strs_json(w, K("wait_info"), &p->wait_info);
	strs_json(w, K("turnstile_info"), &p->turnstile_info);
	KP_JW_KEY(o, "threads");
	array_json(w, p->nthreads, thread_json);
	kp_jw_end(o);
}

/* Unmodelled members: their kept text (the string itself, or compact JSON)
 * as a string, through the same escaping and safety rule as the rest. */
static void fields_json(rw *w)
{
	kp_jw_obj(w->o);
	for (size_t i = 0; i < w->r->nfields; i++) {
		kp_jw_key(w->o, w->r->fields[i].key);   /* the report's own: escaped */
		kp_jw_str(w->o, w->r->fields[i].value);
	}
	kp_jw_end(w->o);
}

/* A warning is one string, as show prints it: "message (line N)". */
static void warning_json(rw *w, size_t i)
{
	const kp_warning *wn = &w->r->warnings[i];
	if (wn->line <= 0) {
		kp_jw_str(w->o, wn->msg);
		return;
	}
	size_t n = strlen(wn->msg);
	char *s = malloc(n + 32);
	if (!s) {
		w->oom = true;
		return;
	}
	snprintf(s, n + 32, "%s (line %ld)", wn->msg, wn->line);
	kp_jw_str(w->o, s);
	free(s);
}

static void pid_elem(rw *w, size_t i)
{
	kp_jw_int(w->o, w->r->frontmost_pids[i]);
}

static void tid_elem(rw *w, size_t i)
{
	const kp_chain *c = w->chain;
	const kp_thread *t = &w->r->processes[c->links[i].proc].threads[c->links[i].thread];
	put_u64(w->o, t->has_id, t->id);
}

static void chain_json(rw *w, size_t i)
{
	const kp_chain *c = &w->r->chains[i];
	kp_jw *o = w->o;
	kp_jw_obj(o);
	KP_JW_KEY(o, "thread_ids");
	w->chain = c;
	array_json(w, c->nlinks, tid_elem);
	m_bool(o, K("cycle"), c->cycle);
	m_i64(o, K("end_pid"), c->has_end_pid, c->end_pid);
	m_u64(o, K("same"), true, c->nsame);
	kp_jw_end(o);
}

/* Issue 14's report members: what kind of report, whom it blames, why. */
static void kind_json(rw *w)
{
	const kp_report *r = w->r;
	kp_jw *o = w->o;
	m_str(o, K("kind"), kp_kind_name(r->kind));
	m_str(o, K("reason"), r->reason);
	KP_JW_KEY(o, "blamed");
	if (r->has_blamed_pid || r->blamed_process) {
		kp_jw_obj(o);
		m_i64(o, K("pid"), r->has_blamed_pid, r->blamed_pid);
		m_str(o, K("process"), r->blamed_process);
		m_invisible(o, r->blamed_process);
		kp_jw_end(o);
	} else {
		kp_jw_null(o);
	}
	KP_JW_KEY(o, "frontmost_pids");
	array_json(w, r->nfrontmost, pid_elem);
	strs_json(w, K("notes"), &r->notes);
	if (r->duration || r->steps) {   /* spindump reports only (issue 24) */
		m_str(o, K("duration"), r->duration);
		m_str(o, K("steps"), r->steps);
	}
	if (r->sleep_failure_code) {   /* Sleep Wake Failure only (issue 24) */
		m_str(o, K("failure_code"), r->sleep_failure_code);
		m_u64(o, K("failure_phase"), r->has_sleep_phase, r->sleep_phase);
		m_str(o, K("failure_phase_name"), r->has_sleep_phase ? kp_sleepwake_phase_name(r->sleep_phase) : NULL);
	}
	size_t nf = kp_report_panic_flag_names(r, w->names, sizeof w->names / sizeof w->names[0]);
	KP_JW_KEY(o, "panic_flags");
	array_json(w, nf < 16 ? nf : 16, name_elem);
	KP_JW_KEY(o, "wait_chains");
	array_json(w, r->nchains, chain_json);
	KP_JW_KEY(o, "zone");
	if (r->zone.name) {
		kp_jw_obj(o);
		m_str(o, K("name"), r->zone.name);
		m_u64(o, K("elements"), r->zone.has_elements, r->zone.elements);
		m_u64(o, K("bytes"), r->zone.has_bytes, r->zone.bytes);
		kp_jw_end(o);
	} else {
		kp_jw_null(o);
	}
}

/* An ExtensiblePanicLog entry: its owner, and its bytes as text (when
 * they are) and always as lower-case hex. */
static void extlog_json(rw *w, size_t i)
{
	const kp_extlog *x = &w->r->extlogs[i];
	kp_jw *o = w->o;
	kp_jw_obj(o);
	m_str(o, K("owner_uuid"), x->owner_uuid);
	m_str(o, K("owner"), kp_report_owner_name(w->r, x->owner_uuid));
	m_str(o, K("data_id"), x->data_id);
	m_u64(o, K("size"), true, x->len);
	char *txt = x->text ? malloc(x->len + 1) : NULL;
	if (txt) {
		memcpy(txt, x->data, x->len);
		txt[x->len] = '\0';
	}
	m_str(o, K("text"), txt);
	free(txt);
	char *hex = malloc(x->len * 2 + 1);
	if (!hex) {
		w->oom = true;
	} else {
		for (size_t k = 0; k < x->len; k++)
			snprintf(hex + 2 * k, 3, "%02x", x->data[k]);
		hex[x->len * 2] = '\0';
		m_str(o, K("hex"), hex);
		free(hex);
	}
	kp_jw_end(o);
}

static void report_json(rw *w)
{
	const kp_report *r = w->r;
	kp_jw *o = w->o;
	kp_jw_obj(o);
	m_str(o, K("file"), r->path);
	m_str(o, K("format"), kp_format_name(r->format));
	m_i64(o, K("bug_type"), r->has_bug_type, r->bug_type);
	/* one date form (ISO 8601, the report's own offset or none) and the
	 * text it was read from */
	char iso[32];
	m_str(o, K("timestamp"), kp_timestamp_iso(r->timestamp, iso, sizeof iso) ? iso : NULL);
	m_str(o, K("timestamp_raw"), r->timestamp);
	m_str(o, K("os_version"), r->os_version);
	char os[128];
	kp_os_label(r->os_version, os, sizeof os);
	m_str(o, K("os"), r->os_version ? os : NULL);
	m_str(o, K("incident_id"), r->incident_id);
	m_str(o, K("product"), r->product);
	m_str(o, K("build"), r->build);
	m_str(o, K("kernel_version"), r->kernel_version);
	m_str(o, K("kernel_uuid"), r->kernel_uuid);
	m_str(o, K("arch"), r->arch == KP_ARCH_UNKNOWN ? NULL : kp_arch_name(r->arch));
	m_str(o, K("soc"), r->soc);
	/* the title every view shows; the message as the report has it beside */
	char title[KP_HEADLINE_DISPLAY_SIZE];
	kp_headline_display(r->headline, title, sizeof title);
	m_str(o, K("headline"), r->headline ? title : NULL);
	m_str(o, K("headline_raw"), r->headline);
	/* the cause class (issue 34): its id, the line that decided as the
	 * report wrote it, and the field that line is in */
	kp_triage t;
	kp_triage_classify(r, &t);
	KP_JW_KEY(o, "class");
	kp_jw_obj(o);
	m_str(o, K("id"), kp_class_name(t.cls));
	m_str(o, K("evidence"), t.evidence[0] ? t.evidence : NULL);
	m_str(o, K("field"), t.field);
	kp_jw_end(o);
	m_str(o, K("preamble"), r->preamble);
	m_str(o, K("panic_string"), r->panic_string);
	kind_json(w);
	KP_JW_KEY(o, "panicked");
	panicked_json(w);
	KP_JW_KEY(o, "addresses");
	addresses_json(w);
	m_str(o, K("last_started_kext"), r->last_started_kext);
	m_str(o, K("last_unloaded_kext"), r->last_unloaded_kext);
	m_bool(o, K("kexts_skipped"), r->kexts_skipped);

	KP_JW_KEY(o, "loaded_kexts");
	array_json(w, r->nkexts, kext_json);
	KP_JW_KEY(o, "images");
	array_json(w, r->nimages, image_json);
	KP_JW_KEY(o, "processes");
	array_json(w, r->nprocesses, process_json);

	if (r->nextlogs) {   /* .ips ExtensiblePanicLog (issue 24) */
		KP_JW_KEY(o, "extensible_paniclog");
		array_json(w, r->nextlogs, extlog_json);
	}
	KP_JW_KEY(o, "fields");
	fields_json(w);
	m_bool(o, K("truncated"), r->truncated);

	KP_JW_KEY(o, "warnings");
	array_json(w, r->nwarnings, warning_json);
	kp_jw_end(o);
}

bool kp_report_json_write(kp_jw *o, const kp_report *r, kp_report_json_frame_fn fn, void *ctx,
                          int depth)
{
	bool flat = o->flat;
	int tabs = o->tabs;
	o->flat = true;
	o->tabs = depth;
	rw w = {.o = o, .r = r, .fn = fn, .ctx = ctx};
	report_json(&w);
	o->flat = flat;
	o->tabs = tabs;
	return !w.oom && !o->failed;
}
