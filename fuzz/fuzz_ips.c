/* fuzz_ips.c: kp_report_parse on JSON report forms (.ips, Intel JSON).
 * An input not starting with '{' gets one in front, so every run takes the
 * JSON path and seeds can be real reports as they are.  Each input is also
 * parsed as the index scans it (KP_PARSE_SKIM_FRAMES): the same status and
 * message, processes, threads and panicked thread's frames, or a trap. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		if (!a != !b || (a && a->nframes != b->nframes))
			__builtin_trap();
		for (size_t i = 0; a && i < a->nframes; i++)
			if (a->frames[i].image != b->frames[i].image || a->frames[i].offset != b->frames[i].offset ||
			    a->frames[i].address != b->frames[i].address || a->frames[i].user != b->frames[i].user)
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
		return 0;
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
