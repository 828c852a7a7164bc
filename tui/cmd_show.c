/* cmd_show.c: `kpbrowse show`: a summary of each report, or JSON. */
#include "kp_json.h"
#include "kp_report.h"
#include "kpt_cmd.h"
#include "kpt_sanitize.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct show_opts {
	bool json;
} show_opts;

static void field(const char *label, const char *value)
{
	printf("%-18s ", label);
	if (value)
		kpt_sanitize_write(stdout, value, strlen(value), 0);
	else
		fputs("-", stdout);
	putchar('\n');
}

static const char *image_label(const kp_report *r, int idx, char *buf, size_t size)
{
	if (idx < 0 || (size_t)idx >= r->nimages)
		return "?";
	const kp_image *im = &r->images[idx];
	if (im->name)
		return im->name;
	if (im->uuid) {
		snprintf(buf, size, "%c:%s", im->kind, im->uuid);
		return buf;
	}
	snprintf(buf, size, "image#%d", idx);
	return buf;
}

static void print_frames(const kp_report *r, const kp_thread *t)
{
	char buf[64];
	for (size_t i = 0; i < t->nframes; i++) {
		const kp_frame *f = &t->frames[i];
		printf("  %3zu  ", i);
		if (f->has_address)
			printf("0x%016" PRIx64 "  ", f->address);
		else
			printf("%-18s  ", "");
		if (f->image >= 0) {
			const char *l = image_label(r, f->image, buf, sizeof buf);
			kpt_sanitize_write(stdout, l, strlen(l), 0);
			if (f->has_offset)
				printf(" + 0x%" PRIx64, f->offset);
		} else {
			fputs("?", stdout);
		}
		if (f->symbol) {
			fputs("  [", stdout);
			kpt_sanitize_write(stdout, f->symbol, strlen(f->symbol), 0);
			fputs("]", stdout);
		}
		if (f->user)
			fputs("  (user)", stdout);
		putchar('\n');
	}
}

static void print_text(const kp_report *r)
{
	char buf[128];
	field("File:", r->path);
	snprintf(buf, sizeof buf, "%s%s", kp_format_name(r->format),
	         r->has_bug_type ? "" : "");
	if (r->has_bug_type)
		snprintf(buf, sizeof buf, "%s (bug_type %d)", kp_format_name(r->format), r->bug_type);
	field("Format:", buf);
	field("Date:", r->timestamp);
	field("OS version:", r->os_version);
	field("Product:", r->product);
	field("Kernel version:", r->kernel_version);
	field("Kernel UUID:", r->kernel_uuid);
	field("Architecture:", r->arch == KP_ARCH_UNKNOWN ? NULL : kp_arch_name(r->arch));
	field("Headline:", r->headline);

	printf("%-18s ", "Panicked task:");
	if (r->has_panicked_pid)
		printf("pid %" PRId64 " ", r->panicked_pid);
	if (r->panicked_process)
		kpt_sanitize_write(stdout, r->panicked_process, strlen(r->panicked_process), 0);
	if (!r->has_panicked_pid && !r->panicked_process)
		fputs("-", stdout);
	putchar('\n');
	const kp_process *pp;
	const kp_thread *pt = kp_report_panicked_thread(r, &pp);
	printf("%-18s ", "Panicked thread:");
	if (r->has_panicked_thread_id)
		printf("tid %" PRIu64 "\n", r->panicked_thread_id);
	else if (pt && pt->cpu >= 0)
		printf("CPU %d\n", pt->cpu);
	else
		puts("-");

	size_t nthreads = 0, nbt = 0;
	for (size_t i = 0; i < r->nprocesses; i++)
		nthreads += r->processes[i].nthreads;
	printf("%-18s %zu processes, %zu threads, %zu images\n", "Counts:", r->nprocesses, nthreads,
	       r->nimages);

	for (size_t i = 0; i < r->nimages; i++)
		nbt += r->images[i].in_backtrace;
	printf("Kexts in backtrace: %s\n", nbt ? "" : "none");
	for (size_t i = 0; i < r->nimages; i++) {
		const kp_image *im = &r->images[i];
		if (!im->in_backtrace)
			continue;
		fputs("  ", stdout);
		const char *n = im->name ? im->name : "?";
		kpt_sanitize_write(stdout, n, strlen(n), 0);
		if (im->version) {
			fputs(" (", stdout);
			kpt_sanitize_write(stdout, im->version, strlen(im->version), 0);
			fputs(")", stdout);
		}
		printf(" %s", im->uuid ? im->uuid : "(no UUID)");
		if (im->has_start)
			printf(" 0x%" PRIx64, im->start);
		if (im->has_end)
			printf("->0x%" PRIx64, im->end);
		putchar('\n');
	}

	if (pt) {
		printf("Panicked thread frames (%zu):\n", pt->nframes);
		print_frames(r, pt);
	} else {
		puts("Panicked thread frames: none in this report");
	}
	puts("Panic string:");
	if (r->panic_string) {
		const char *s = r->panic_string;
		while (*s) {
			const char *nl = strchr(s, '\n');
			size_t n = nl ? (size_t)(nl - s) : strlen(s);
			fputs("  ", stdout);
			kpt_sanitize_write(stdout, s, n, 0);
			putchar('\n');
			s += n + (nl != NULL);
		}
	}
	putchar('\n');
}

static const struct option show_options[] = {
	{"json", no_argument, NULL, 'j'},
	{"help", no_argument, NULL, 'h'},
	{0, 0, 0, 0},
};

int kpt_cmd_show(int argc, char **argv)
{
	show_opts o = {0};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "jh", show_options, NULL)) != -1) {
		switch (c) {
		case 'j': o.json = true; break;
		case 'h':
			puts("usage: kpbrowse show [--json] FILE...");
			return KPT_EXIT_OK;
		default: return KPT_EXIT_BAD;
		}
	}
	if (optind >= argc) {
		kpt_usage_error("show: no report given");
		return KPT_EXIT_BAD;
	}
	int status = KPT_EXIT_OK;
	int nfiles = argc - optind;
	cJSON *arr = o.json && nfiles > 1 ? cJSON_CreateArray() : NULL;
	for (int i = optind; i < argc; i++) {
		kp_report *r = NULL;
		kp_error err;
		if (kp_report_load(argv[i], &r, &err) != KP_OK) {
			kpt_report_error(argv[i], &err);
			status = KPT_EXIT_BAD;
			continue;
		}
		for (size_t w = 0; w < r->nwarnings; w++)
			kpt_report_warning(argv[i], r->warnings[w].msg, r->warnings[w].line);
		if (o.json) {
			cJSON *j = kp_json_report(r, NULL, NULL);
			if (arr) {
				cJSON_AddItemToArray(arr, j);
			} else if (j) {
				char *s = cJSON_Print(j);
				if (s)
					puts(s);
				cJSON_free(s);
				cJSON_Delete(j);
			}
		} else {
			print_text(r);
		}
		kp_report_free(&r);
	}
	if (arr) {
		char *s = cJSON_Print(arr);
		if (s)
			puts(s);
		cJSON_free(s);
		cJSON_Delete(arr);
	}
	return status;
}
