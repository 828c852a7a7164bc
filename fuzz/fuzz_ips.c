/* fuzz_ips.c: kp_report_parse on JSON report forms (.ips, Intel JSON).
 * An input not starting with '{' gets one in front, so every run takes the
 * JSON path and seeds can be real reports as they are.  Each input is also
 * parsed as the index scans it (KP_PARSE_SKIM_FRAMES): the same status and
 * message, processes, threads (ids), the panicked thread whole, images and
 * header fields, or a trap. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_same.h"
#include "kp_report_json.h"
#include "kp_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The report is also written as `show --json` writes it, to /dev/null. */
static FILE *devnull_ips(void)
{
	static FILE *fp;
	if (!fp)
		fp = fopen("/dev/null", "w");
	return fp;
}

/* What kp_report.h says a skim keeps as the whole parse makes it: the
 * header fields, the images (the kexts by count), each process's pid and
 * name, and each thread's id and panicked mark. */
static bool same_report(const kp_report *r, const kp_report *s)
{
	if (r->nimages != s->nimages || r->nkexts != s->nkexts || r->format != s->format ||
	    r->truncated != s->truncated || !kf_same_str(r->headline, s->headline) ||
	    !kf_same_str(r->kernel_version, s->kernel_version) || !kf_same_str(r->kernel_uuid, s->kernel_uuid) ||
	    !kf_same_str(r->soc, s->soc) || !kf_same_str(r->panicked_process, s->panicked_process) ||
	    r->has_panicked_pid != s->has_panicked_pid || r->panicked_pid != s->panicked_pid ||
	    r->addr_flags != s->addr_flags || r->kernelcache_slide != s->kernelcache_slide)
		return false;
	for (size_t i = 0; i < r->nimages; i++) {
		const kp_image *a = &r->images[i], *b = &s->images[i];
		if (a->kind != b->kind || a->has_base != b->has_base || a->base != b->base ||
		    a->has_start != b->has_start || a->start != b->start || a->in_backtrace != b->in_backtrace ||
		    !kf_same_str(a->uuid, b->uuid) || !kf_same_str(a->name, b->name))
			return false;
	}
	for (size_t i = 0; i < r->nprocesses; i++) {
		const kp_process *a = &r->processes[i], *b = &s->processes[i];
		if (a->has_pid != b->has_pid || a->pid != b->pid || !kf_same_str(a->name, b->name))
			return false;
		for (size_t j = 0; j < a->nthreads; j++)
			if (a->threads[j].has_id != b->threads[j].has_id || a->threads[j].id != b->threads[j].id ||
			    a->threads[j].panicked != b->threads[j].panicked)
				return false;
	}
	return true;
}

/* The panicked thread's members, which a skim decodes whole (not its wait
 * chain's: a skim makes none). */
static bool same_thread(const kp_thread *a, const kp_thread *b)
{
	if (!kf_same_str(a->name, b->name) || !kf_same_str(a->state, b->state) || !kf_same_str(a->flags, b->flags) ||
	    a->has_sched_priority != b->has_sched_priority || a->sched_priority != b->sched_priority ||
	    !kf_same_str(a->dispatch_queue, b->dispatch_queue) || a->has_continuation != b->has_continuation ||
	    (a->has_continuation && a->continuation.address != b->continuation.address))
		return false;
	for (size_t i = 0; i < a->nframes; i++) {
		const kp_frame *x = &a->frames[i], *y = &b->frames[i];
		if (x->image != y->image || x->offset != y->offset || x->has_offset != y->has_offset ||
		    x->address != y->address || x->has_address != y->has_address || x->user != y->user)
			return false;
	}
	return true;
}

/* The skimming parse must agree with the whole one on what it keeps. */
static void check_skim(const char *buf, size_t len, kp_status st, const kp_report *r, const kp_error *err)
{
	kp_report *s = NULL;
	kp_error serr;
	kp_status sst = kp_report_parse_flags(buf, len, "fuzz.ips", KP_PARSE_SKIM_FRAMES, &s, &serr);
	if (sst != st || (st != KP_OK && strcmp(serr.msg, err->msg) != 0))
		__builtin_trap();
	if (st == KP_OK) {
		if (s->nprocesses != r->nprocesses || s->kind != r->kind || s->arch != r->arch)
			__builtin_trap();
		for (size_t i = 0; i < r->nprocesses; i++)
			if (s->processes[i].nthreads != r->processes[i].nthreads)
				__builtin_trap();
		const kp_thread *a = kp_report_panicked_thread(r, NULL), *b = kp_report_panicked_thread(s, NULL);
		if (!a != !b || (a && (a->nframes != b->nframes || !same_thread(a, b))))
			__builtin_trap();
		if (!same_report(r, s))
			__builtin_trap();
	}
	kp_report_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A private copy without a terminating NUL: the parser must never
	 * read past len (ASan catches it). */
	size_t pre = size && data[0] == '{' ? 0 : 1, len = size + pre;
	char *buf = malloc(len);
	if (!buf)
		return false;
	buf[0] = '{';
	if (size)
		memcpy(buf + pre, data, size);
	kp_report *r = NULL;
	kp_error err;
	kp_status st = kp_report_parse(buf, len, "fuzz.ips", &r, &err);
	check_skim(buf, len, st, r, &err);
	if (st == KP_OK) {
		const kp_process *p;
		(void)kp_report_panicked_thread(r, &p);
		if (devnull_ips()) {
			kp_jw w;
			kp_jw_init(&w, devnull_ips());
			(void)kp_report_json_write(&w, r, NULL, NULL, 0);
			(void)kp_jw_flush(&w);
			kp_jw_free(&w);
		}
		(void)kp_arch_name(r->arch);
		(void)kp_format_name(r->format);
	}
	kp_report_free(&r);
	free(buf);
	return 0;
}
