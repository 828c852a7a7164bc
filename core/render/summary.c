/* summary.c: what a report says, said once (kp_summary.h).  A new fact
 * goes into kp_summary_build at its place in the order; every renderer for
 * people shows it from there. */
#include "kp_summary.h"
#include "kp_triage.h"
#include "kp_utf8.h"
#include "kp_signature.h"
#include "kp_strbuf.h"
#include "kp_waitchain.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bld {
	kp_summary *s;
	bool oom;
} bld;

/* Adds a line whose value is v (taken; NULL: out of memory). */
static kp_sum_line *add(bld *b, kp_sum_key key, unsigned flags, const char *label, char *v)
{
	if (b->oom || !v) {
		free(v);
		b->oom = true;
		return NULL;
	}
	kp_summary *s = b->s;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		kp_sum_line *nl = realloc(s->lines, cap * sizeof *nl);
		if (!nl) {
			free(v);
			b->oom = true;
			return NULL;
		}
		s->lines = nl;
		s->cap = cap;
	}
	kp_sum_line *l = &s->lines[s->n++];
	*l = (kp_sum_line){.key = key, .flags = flags, .label = label, .value = v};
	return l;
}

static char *dup(const char *v)
{
	size_t n = strlen(v) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, v, n);
	return d;
}

/* A field whose value is v, or "-" when the report does not state it. */
static kp_sum_line *str(bld *b, kp_sum_key key, unsigned flags, const char *label, const char *v)
{
	return add(b, key, flags, label, dup(v ? v : "-"));
}

static kp_sum_line *fmt(bld *b, kp_sum_key key, unsigned flags, const char *label, const char *f, ...)
	__attribute__((format(printf, 5, 6)));
static kp_sum_line *fmt(bld *b, kp_sum_key key, unsigned flags, const char *label, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int n = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	char *v = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (v) {
		va_start(ap, f);
		vsnprintf(v, (size_t)n + 1, f, ap);
		va_end(ap);
	}
	return add(b, key, flags, label, v);
}

/* The note after a name (process, thread, bundle id) that holds an
 * invisible or control character, else "": it is not the name it looks
 * like even shown escaped (a long name is cut on a narrow screen). */
static const char *hidden(const char *name)
{
	return name && kp_text_has_unsafe(name, strlen(name)) ? KP_SUM_HIDDEN_NOTE : "";
}

/* The kernel (or the kernelcache holding it) is no kext. */
static bool kernel_image(const kp_image *im)
{
	return im->kind == 'K' || im->kind == 'U' || (im->name && strcmp(im->name, "kernel") == 0);
}

static kp_thread_ref ref_of(const kp_report *r, const kp_process *p, const kp_thread *t)
{
	return (kp_thread_ref){(int)(p - r->processes), (int)(t - p->threads)};
}

/* Headline to File: what every report says. */
static void header(bld *b, const kp_report *r)
{
	char title[KP_HEADLINE_DISPLAY_SIZE];   /* the titled headline; the whole panic string follows the summary */
	kp_headline_display(r->headline, title, sizeof title);
	str(b, KP_SUM_HEADLINE, 0, "Headline:", title[0] ? title : NULL);
	str(b, KP_SUM_KIND, 0, "Kind:", kp_kind_name(r->kind));
	kp_triage t;   /* the class, and the line of the report that decided it */
	kp_triage_classify(r, &t);
	if (t.evidence[0])
		fmt(b, KP_SUM_CLASS, 0, "Class:", "%s: %s", kp_class_name(t.cls), t.evidence);
	else
		str(b, KP_SUM_CLASS, 0, "Class:", kp_class_name(t.cls));
	/* as the report wrote it; a time it gave without a zone is said to be
	 * the Mac's own clock, never taken for UTC */
	kp_timestamp ts;
	if (kp_timestamp_parse(r->timestamp, &ts) && !ts.zoned)
		fmt(b, KP_SUM_DATE, 0, "Date:", "%s (the Mac's local time)", r->timestamp);
	else
		str(b, KP_SUM_DATE, 0, "Date:", r->timestamp);
	char os[128];   /* as its maker names it today: "iOS", not "iPhone OS" */
	kp_os_label(r->os_version, os, sizeof os);
	str(b, KP_SUM_OS, 0, "OS version:", r->os_version ? os : NULL);
	str(b, KP_SUM_PRODUCT, 0, "Product:", r->product);
	str(b, KP_SUM_ARCH, 0, "Architecture:", r->arch == KP_ARCH_UNKNOWN ? NULL : kp_arch_name(r->arch));

	const kp_process *pp = NULL;
	const kp_thread *pt = kp_report_panicked_thread(r, &pp);
	bool linked = pt && pp;
	char pid[32] = "";
	if (r->has_panicked_pid)
		snprintf(pid, sizeof pid, "pid %" PRId64 "%s", r->panicked_pid, r->panicked_process ? " " : "");
	kp_sum_line *l = fmt(b, KP_SUM_PANICKED_TASK, linked ? KP_SUM_LINK_PROCESS : 0, "Panicked task:", "%s%s%s", pid,
	                     r->panicked_process ? r->panicked_process : pid[0] ? "" : "-", hidden(r->panicked_process));
	if (l && linked)
		l->ref = ref_of(r, pp, pt);

	kp_sb sb = {0};
	char part[64] = "";
	if (r->has_panicked_thread_id)
		snprintf(part, sizeof part, "tid %" PRIu64, r->panicked_thread_id);
	else if (pt && pt->has_id)
		snprintf(part, sizeof part, "tid %" PRIu64, pt->id);
	else if (pt && pt->cpu >= 0)
		snprintf(part, sizeof part, "CPU %d", pt->cpu);
	kp_sb_str(&sb, part);
	if (pt) {
		snprintf(part, sizeof part, "%s%zu frame%s", sb.n ? ", " : "", pt->nframes, pt->nframes == 1 ? "" : "s");
		kp_sb_str(&sb, part);
		if (pt->name) {
			kp_sb_str(&sb, ", ");
			kp_sb_str(&sb, pt->name);
			kp_sb_str(&sb, hidden(pt->name));
		}
	}
	if (!sb.n)
		kp_sb_str(&sb, "-");
	l = add(b, KP_SUM_PANICKED_THREAD, linked ? KP_SUM_LINK_THREAD : 0, "Panicked thread:", kp_sb_take(&sb));
	if (l && linked)
		l->ref = ref_of(r, pp, pt);
	str(b, KP_SUM_KERNEL_VERSION, 0, "Kernel version:", r->kernel_version);
	str(b, KP_SUM_KERNEL_UUID, 0, "Kernel UUID:", r->kernel_uuid);
	if (r->last_started_kext)
		/* the report's line: the bundle id, a tab, the version, the address */
		fmt(b, KP_SUM_LAST_STARTED, 0, "Last started:", "%s%s", r->last_started_kext,
		    kp_text_has_unsafe(r->last_started_kext, strcspn(r->last_started_kext, " \t"))
		        ? KP_SUM_HIDDEN_NOTE : "");
	if (r->has_bug_type)
		fmt(b, KP_SUM_FORMAT, 0, "Format:", "%s (bug_type %d)", kp_format_name(r->format), r->bug_type);
	else
		str(b, KP_SUM_FORMAT, 0, "Format:", kp_format_name(r->format));
	str(b, KP_SUM_FILE, 0, "File:", r->path);
}

/* Counts and the kexts in the backtrace (the screen has them in its
 * Processes heading and its Images tab). */
static void images(bld *b, const kp_report *r)
{
	size_t nthreads = 0, nbt = 0;
	for (size_t i = 0; i < r->nprocesses; i++)
		nthreads += r->processes[i].nthreads;
	fmt(b, KP_SUM_COUNTS, KP_SUM_DETAIL, "Counts:", "%zu processes, %zu threads, %zu images", r->nprocesses,
	    nthreads, r->nimages);
	for (size_t i = 0; i < r->nimages; i++)
		nbt += r->images[i].in_backtrace && !kernel_image(&r->images[i]);
	str(b, KP_SUM_KEXTS, KP_SUM_DETAIL, "Kexts in backtrace:", nbt ? "" : "none");
	for (size_t i = 0; i < r->nimages; i++) {
		const kp_image *im = &r->images[i];
		if (!im->in_backtrace || kernel_image(im))
			continue;
		char range[64] = "", end[32] = "";
		if (im->has_end)
			snprintf(end, sizeof end, "->0x%" PRIx64, im->end);
		if (im->has_start)
			snprintf(range, sizeof range, " 0x%" PRIx64 "%s", im->start, end);
		else
			snprintf(range, sizeof range, "%s", end);
		fmt(b, KP_SUM_KEXT, KP_SUM_DETAIL | KP_SUM_ITEM, NULL, "%s%s%s%s %s%s%s", im->name ? im->name : "?",
		    im->version ? " (" : "", im->version ? im->version : "", im->version ? ")" : "",
		    im->uuid ? im->uuid : "(no UUID)", range, hidden(im->name));
	}
}

/* What a watchdog or stackshot says before any frame (and, for every
 * kind, the leak suspect and the panic flags). */
static void hang(bld *b, const kp_report *r)
{
	if (r->zone.name) {
		char el[48] = "", by[48] = "";
		if (r->zone.has_elements)
			snprintf(el, sizeof el, ", %" PRIu64 " elements", r->zone.elements);
		if (r->zone.has_bytes)
			snprintf(by, sizeof by, ", %" PRIu64 " bytes", r->zone.bytes);
		fmt(b, KP_SUM_ZONE, 0, "Leak suspect:", "zone %s%s%s", r->zone.name, el, by);
	}
	const char *flags[16];
	size_t nf = kp_report_panic_flag_names(r, flags, 16);
	if (nf) {
		kp_sb sb = {0};
		for (size_t i = 0; i < nf && i < 16; i++) {
			if (i)
				kp_sb_str(&sb, " ");
			kp_sb_str(&sb, flags[i]);
		}
		add(b, KP_SUM_PANIC_FLAGS, 0, "Panic flags:", kp_sb_take(&sb));
	}
	if (r->kind != KP_KIND_PANIC || r->reason)
		str(b, KP_SUM_REASON, 0, "Reason:", r->reason);
	if (r->sleep_failure_code) {
		str(b, KP_SUM_FAILURE_CODE, 0, "Failure code:", r->sleep_failure_code);
		const char *ph = r->has_sleep_phase ? kp_sleepwake_phase_name(r->sleep_phase) : NULL;
		if (r->has_sleep_phase)
			fmt(b, KP_SUM_PHASE, 0, "Phase:", "0x%02x %s", r->sleep_phase, ph ? ph : "(unknown)");
	}
	if (r->duration)
		str(b, KP_SUM_DURATION, 0, "Duration:", r->duration);
	if (r->steps)
		str(b, KP_SUM_STEPS, 0, "Steps:", r->steps);
	if (r->kind != KP_KIND_PANIC) {
		char pid[32] = "";
		if (r->has_blamed_pid)
			snprintf(pid, sizeof pid, "pid %" PRId64 "%s", r->blamed_pid, r->blamed_process ? " " : "");
		fmt(b, KP_SUM_BLAMED, 0, "Blamed:", "%s%s%s", pid,
		    r->blamed_process ? r->blamed_process : pid[0] ? "" : "nobody", hidden(r->blamed_process));
	}
	for (size_t i = 0; i < r->nfrontmost; i++) {   /* every one, a line each */
		kp_sb sb = {0};
		char pid[32];
		snprintf(pid, sizeof pid, "%" PRId64, r->frontmost_pids[i]);
		kp_sb_str(&sb, pid);
		for (size_t k = 0; k < r->nprocesses; k++)
			if (r->processes[k].has_pid && r->processes[k].pid == r->frontmost_pids[i] && r->processes[k].name) {
				kp_sb_str(&sb, " (");
				kp_sb_str(&sb, r->processes[k].name);
				kp_sb_str(&sb, ")");
				kp_sb_str(&sb, hidden(r->processes[k].name));
			}
		add(b, KP_SUM_FRONTMOST, 0, i ? "" : "Frontmost:", kp_sb_take(&sb));
	}
	const kp_process *bp = NULL;
	const kp_thread *bt = r->kind != KP_KIND_PANIC ? kp_report_blamed_thread(r, &bp) : NULL;
	if (bt && bp) {
		/* blaming no one, the thread shown is the frontmost process's:
		 * said so, never "Blamed: nobody" beside a "Blamed thread" */
		kp_sb sb = {0};
		kp_waitchain_thread(r, ref_of(r, bp, bt), &sb);
		kp_sb_str(&sb, ", ");
		kp_waitchain_state(bt, &sb);
		kp_sum_line *l = add(b, KP_SUM_BLAMED_THREAD, KP_SUM_LINK_THREAD,
		                     r->has_blamed_pid || r->blamed_process ? "Blamed thread:" : "Frontmost thread:",
		                     kp_sb_take(&sb));
		if (l)
			l->ref = ref_of(r, bp, bt);
	}
	for (size_t i = 0; r->kind != KP_KIND_PANIC && i < r->notes.n; i++)
		str(b, KP_SUM_NOTES, 0, i ? "" : "Notes:", r->notes.v[i]);
	if (!r->nchains)
		return;
	fmt(b, KP_SUM_CHAINS, KP_SUM_HEADING, NULL, "Wait chains (%zu)", r->nchains);
	for (size_t i = 0; i < r->nchains && !b->oom; i++) {
		const kp_chain *c = &r->chains[i];
		const kp_thread *t = &r->processes[c->links[0].proc].threads[c->links[0].thread];
		kp_sb sb = {0};
		kp_waitchain_format(r, c, &sb);
		if (c->nsame) {
			char more[80];
			snprintf(more, sizeof more, ", and %zu more thread%s waiting the same way", c->nsame,
			         c->nsame > 1 ? "s" : "");
			kp_sb_str(&sb, more);
		}
		kp_sum_line *l = add(b, KP_SUM_CHAIN, KP_SUM_ITEM | KP_SUM_LINK_THREAD, NULL, kp_sb_take(&sb));
		if (l)
			l->ref = c->links[0];
		if (t->waits_on && (l = fmt(b, KP_SUM_CHAIN_WAITS, KP_SUM_SUB | KP_SUM_LINK_THREAD, NULL, "waits on: %s",
		                            t->waits_on)))
			l->ref = c->links[0];
	}
}

kp_status kp_summary_build(const kp_report *r, kp_summary *out, kp_error *err)
{
	memset(out, 0, sizeof *out);
	bld b = {.s = out};
	header(&b, r);
	images(&b, r);
	hang(&b, r);
	if (b.oom) {
		kp_summary_free(out);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	return KP_OK;
}

void kp_summary_free(kp_summary *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->lines[i].value);
	free(s->lines);
	memset(s, 0, sizeof *s);
}

size_t kp_summary_frames(const kp_report *r, const kp_thread *t, size_t max, size_t *idx)
{
	size_t n = t->nframes < max ? t->nframes : max, c;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	if (max >= 2 && kp_sig_culprit_frame(r, t, &c) && c >= max)
		idx[max - 1] = c;   /* the first max - 1, a gap, the culprit */
	return n;
}

const char *kp_summary_image_label(const kp_report *r, int idx, size_t uuid_chars, char *buf, size_t size)
{
	if (idx < 0 || (size_t)idx >= r->nimages)
		return "?";
	const kp_image *im = &r->images[idx];
	if (im->name)
		return im->name;
	if (im->uuid)
		snprintf(buf, size, "%c:%.*s", im->kind, uuid_chars ? (int)uuid_chars : 36, im->uuid);
	else
		snprintf(buf, size, "image#%d", idx);
	return buf;
}
