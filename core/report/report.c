/* report.c: the model's allocation, lookup and naming helpers. */
#include "report_build.h"
#include "kp_arena.h"
#include "kp_vec.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

kp_report *kp__report_new(const char *path)
{
	kp_report *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->arena = kp_arena_new();
	if (!r->arena) {
		free(r);
		return NULL;
	}
	if (path && !(r->path = kp__strdup(r, path))) {
		kp_report_free(&r);
		return NULL;
	}
	return r;
}

void kp_report_free(kp_report **rp)
{
	if (!rp || !*rp)
		return;
	kp_report *r = *rp;
	for (size_t i = 0; i < r->nprocesses; i++) {
		kp_process *p = &r->processes[i];
		for (size_t j = 0; j < p->nthreads; j++)
			free(p->threads[j].frames);
		free(p->threads);
	}
	free(r->processes);
	free(r->images);
	free(r->kexts);
	free(r->warnings);
	free(r->fields);
	kp_arena_free(r->arena);
	free(r);
	*rp = NULL;
}

void *kp__alloc(kp_report *r, size_t n)
{
	return kp_arena_alloc(r->arena, n);
}

char *kp__strndup(kp_report *r, const char *s, size_t n)
{
	if (!s)
		return NULL;
	char *d = kp_arena_alloc(r->arena, n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

char *kp__strdup(kp_report *r, const char *s)
{
	return s ? kp__strndup(r, s, strlen(s)) : NULL;
}

char *kp__sprintf(kp_report *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	char *d = kp_arena_alloc(r->arena, (size_t)n + 1);
	if (d) {
		va_start(ap, fmt);
		vsnprintf(d, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	return d;
}

kp_image *kp__add_image(kp_report *r)
{
	kp_image *im = kp_vec_push((void **)&r->images, &r->nimages, &r->images_cap, sizeof *im);
	if (im) {
		im->index = (int)(r->nimages - 1);
		im->kind = '?';
	}
	return im;
}

kp_process *kp__add_process(kp_report *r)
{
	return kp_vec_push((void **)&r->processes, &r->nprocesses, &r->processes_cap, sizeof(kp_process));
}

kp_thread *kp__add_thread(kp_report *r, kp_process *p)
{
	(void)r;
	kp_thread *t = kp_vec_push((void **)&p->threads, &p->nthreads, &p->threads_cap, sizeof *t);
	if (t) {
		t->cpu = -1;
		t->blocked_proc = t->blocked_thread = -1;
	}
	return t;
}

kp_frame *kp__add_frame(kp_report *r, kp_thread *t)
{
	(void)r;
	kp_frame *f = kp_vec_push((void **)&t->frames, &t->nframes, &t->frames_cap, sizeof *f);
	if (f)
		f->image = -1;
	return f;
}

kp_kext *kp__add_kext(kp_report *r)
{
	return kp_vec_push((void **)&r->kexts, &r->nkexts, &r->kexts_cap, sizeof(kp_kext));
}

bool kp__add_field(kp_report *r, const char *key, size_t keylen, const char *value, size_t vlen)
{
	kp_field *f = kp_vec_push((void **)&r->fields, &r->nfields, &r->fields_cap, sizeof *f);
	if (!f)
		return false;
	f->key = kp__strndup(r, key, keylen);
	f->value = kp__strndup(r, value, vlen);
	return f->key && f->value;
}

/* A hostile report can hold millions of flawed members: past this many
 * warnings one last one says so and the rest are dropped. */
#define KP_MAX_WARNINGS 100

bool kp__warn(kp_report *r, long line, const char *fmt, ...)
{
	char buf[256];
	if (r->nwarnings > KP_MAX_WARNINGS)
		return true;
	if (r->nwarnings == KP_MAX_WARNINGS) {
		snprintf(buf, sizeof buf, "more than %d warnings: the rest are not shown",
		         KP_MAX_WARNINGS);
	} else {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(buf, sizeof buf, fmt, ap);
		va_end(ap);
	}
	kp_warning *w = kp_vec_push((void **)&r->warnings, &r->nwarnings, &r->warnings_cap, sizeof *w);
	if (!w)
		return false;
	w->line = line;
	w->msg = kp__strdup(r, buf);
	return w->msg != NULL;
}

int kp__image_by_uuid(const kp_report *r, const char *uuid)
{
	if (!uuid)
		return -1;
	for (size_t i = 0; i < r->nimages; i++)
		if (r->images[i].uuid && strcmp(r->images[i].uuid, uuid) == 0)
			return (int)i;
	return -1;
}

int kp__image_by_name(const kp_report *r, const char *name, size_t n)
{
	for (size_t i = 0; i < r->nimages; i++)
		if (r->images[i].name && strlen(r->images[i].name) == n && memcmp(r->images[i].name, name, n) == 0)
			return (int)i;
	return -1;
}

/* The arch the kernel-side addresses imply when no version line names it:
 * x86_64 kernels and kexts live at 0xffffff7f.. / 0xffffff80..; arm64 ones
 * at 0xfffffe.. (macOS) or 0xfffffff0.. (iOS, older macOS); addresses that
 * all fit 32 bits are an i386 kernel's. */
static void infer_arch(kp_report *r)
{
	size_t x86 = 0, arm = 0, small = 0, n = 0;
	for (size_t i = 0; i < r->nprocesses; i++)
		for (size_t j = 0; j < r->processes[i].nthreads; j++) {
			const kp_thread *t = &r->processes[i].threads[j];
			for (size_t k = 0; k < t->nframes; k++) {
				if (!t->frames[k].has_address || t->frames[k].user)
					continue;
				uint64_t a = t->frames[k].address, hi = a >> 32;
				n++;
				if (hi >= 0xffffff7fu && hi <= 0xffffff8fu)
					x86++;
				else if ((hi >= 0xfffffe00u && hi < 0xffffff00u) || hi >= 0xfffffff0u)
					arm++;
				else if (hi == 0 && a)
					small++;
			}
		}
	if (n && x86 * 2 > n)
		r->arch = KP_ARCH_X86_64;
	else if (n && arm * 2 > n)
		r->arch = KP_ARCH_ARM64;
	else if (n && small == n)
		r->arch = KP_ARCH_I386;
}

kp_arch kp__arch_of_version(const char *kv)
{
	if (!kv)
		return KP_ARCH_UNKNOWN;
	if (strstr(kv, "ARM64") || strstr(kv, "arm64"))
		return KP_ARCH_ARM64;
	if (strstr(kv, "X86_64") || strstr(kv, "x86_64"))
		return KP_ARCH_X86_64;
	if (strstr(kv, "I386") || strstr(kv, "i386"))
		return KP_ARCH_I386;
	if (strstr(kv, "RELEASE_PPC") || strstr(kv, "DEBUG_PPC") || strstr(kv, "DEVELOPMENT_PPC"))
		return KP_ARCH_PPC;
	return KP_ARCH_UNKNOWN;
}

void kp__derive_arch(kp_report *r)
{
	const char *kv = r->kernel_version;
	if (r->arch == KP_ARCH_UNKNOWN)
		r->arch = kp__arch_of_version(kv);
	if (r->arch == KP_ARCH_UNKNOWN)
		infer_arch(r);
	if (!kv)
		return;
	const char *rel = strstr(kv, "RELEASE_");
	if (!rel)
		rel = strstr(kv, "DEVELOPMENT_");
	if (!rel)
		rel = strstr(kv, "DEBUG_");
	if (!r->soc && rel) {
		const char *a = strstr(rel, "ARM64_");
		if (a) {
			a += 6;
			size_t n = 0;
			while (isalnum((unsigned char)a[n]))
				n++;
			if (n)
				r->soc = kp__strndup(r, a, n);
		}
	}
}

const char *kp_format_name(kp_format f)
{
	switch (f) {
	case KP_FORMAT_IPS: return "ips";
	case KP_FORMAT_INTEL_JSON: return "intel-json";
	case KP_FORMAT_TEXT: return "text";
	default: return "unknown";
	}
}

void kp_os_label(const char *os, char *out, size_t size)
{
	static const struct { const char *was, *is; } names[] = {
		{"Mac OS X ", "macOS"}, {"OS X ", "macOS"}, {"macOS ", "macOS"},
		{"iPhone OS ", "iOS"}, {"iOS ", "iOS"}, {"iPadOS ", "iPadOS"}, {"iPad OS ", "iPadOS"},
		{"Bridge OS ", "bridgeOS"}, {"bridgeOS ", "bridgeOS"}, {"Watch OS ", "watchOS"},
		{"watchOS ", "watchOS"}, {"tvOS ", "tvOS"}, {"Apple TVOS ", "tvOS"}, {"visionOS ", "visionOS"},
		{"xrOS ", "visionOS"},
	};
	if (!os || !*os) {
		snprintf(out, size, "-");
		return;
	}
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		size_t n = strlen(names[i].was);
		if (strncmp(os, names[i].was, n) != 0)
			continue;
		const char *v = os + n;
		bool mac = strcmp(names[i].is, "macOS") == 0;
		const char *is = names[i].is;
		/* the Mac's OS by the name Apple gives that release: Mac OS X to
		 * 10.7, OS X 10.8 to 10.11, macOS from 10.12 */
		int major = 0, minor = 0;
		if (mac && sscanf(v, "%d.%d", &major, &minor) == 2 && major == 10 && minor < 12)
			is = minor < 8 ? "Mac OS X" : "OS X";
		snprintf(out, size, "%s %s", is, v);
		return;
	}
	snprintf(out, size, "%s", os);
}

const char *kp_kind_name(kp_kind k)
{
	switch (k) {
	case KP_KIND_WATCHDOG: return "watchdog";
	case KP_KIND_STACKSHOT: return "stackshot";
	case KP_KIND_RESET: return "reset";
	case KP_KIND_HANG: return "hang";
	case KP_KIND_STALL: return "shutdown-stall";
	case KP_KIND_SLEEPWAKE: return "sleep-wake";
	default: return "panic";
	}
}

size_t kp_report_panic_flag_names(const kp_report *r, const char **names, size_t max)
{
	static const struct {
		const char *name;
		uint64_t arm, intel;   /* 0: not on that architecture */
	} bits[] = {
		{"nested_panic", 0x40, 0x01},
		{"companion_panic", 0x100, 0x02},
		{"stackshot_succeeded", 0x02, 0x04},
		{"stackshot_incomplete", 0x10, 0x40},
		{"stackshot_kernel_only", 0, 0x400},
		{"button_reset", 0x80, 0},
		{"stackshot_compressed", 0x800, 0x08},
		{"exclave_panic", 0x10000, 0},
		{"userspace_initiated", 0x20000, 0x10000},
	};
	size_t n = 0;
	if (!r->has_panic_flags || (r->arch != KP_ARCH_ARM64 && r->arch != KP_ARCH_X86_64))
		return 0;
	for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++) {
		uint64_t b = r->arch == KP_ARCH_ARM64 ? bits[i].arm : bits[i].intel;
		if (b && (r->panic_flags & b)) {
			if (n < max)
				names[n] = bits[i].name;
			n++;
		}
	}
	return n;
}

const kp_thread *kp_report_blamed_thread(const kp_report *r, const kp_process **proc)
{
	const kp_thread *t = kp_report_panicked_thread(r, proc);
	if (t || r->kind == KP_KIND_PANIC)
		return t;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < r->nprocesses; i++) {
			const kp_process *p = &r->processes[i];
			bool match = pass == 0 ? r->has_blamed_pid && p->has_pid && p->pid == r->blamed_pid
			                       : !r->has_blamed_pid && p->frontmost;
			if (match && p->nthreads) {
				if (proc)
					*proc = p;
				return &p->threads[0];
			}
		}
	return NULL;
}

const kp_thread *kp_report_thread_by_id(const kp_report *r, uint64_t tid, kp_thread_ref *ref)
{
	for (size_t i = 0; i < r->nprocesses; i++)
		for (size_t j = 0; j < r->processes[i].nthreads; j++)
			if (r->processes[i].threads[j].has_id && r->processes[i].threads[j].id == tid) {
				if (ref)
					*ref = (kp_thread_ref){(int)i, (int)j};
				return &r->processes[i].threads[j];
			}
	return NULL;
}

const char *kp_arch_name(kp_arch a)
{
	switch (a) {
	case KP_ARCH_ARM64: return "arm64";
	case KP_ARCH_X86_64: return "x86_64";
	case KP_ARCH_I386: return "i386";
	case KP_ARCH_PPC: return "ppc";
	default: return "unknown";
	}
}

const kp_thread *kp_report_panicked_thread(const kp_report *r, const kp_process **proc)
{
	for (size_t i = 0; i < r->nprocesses; i++)
		for (size_t j = 0; j < r->processes[i].nthreads; j++)
			if (r->processes[i].threads[j].panicked) {
				if (proc)
					*proc = &r->processes[i];
				return &r->processes[i].threads[j];
			}
	if (proc)
		*proc = NULL;
	return NULL;
}

/* A user_load image without an end claims a frame above its start only
 * within this gap (as text_backtrace.c's NOEND_MAX_GAP). */
#define LOAD_MAX_GAP ((uint64_t)16 << 20)

static void place_loaded(kp_report *r, kp_frame *f)
{
	if (!f->has_address || f->user || f->report_kernel)
		return;
	if (f->image >= 0 && (size_t)f->image < r->nimages) {
		const kp_image *im = &r->images[f->image];
		if (f->report_image) {   /* the text names its module: never another one */
			f->has_offset = im->has_start && f->address >= im->start;
			f->offset = f->has_offset ? f->address - im->start : 0;
			return;
		}
		if (f->has_offset && !im->user_load)
			return;   /* placed by the report itself */
	}
	int best = -1;
	for (size_t i = 0; i < r->nimages; i++) {
		const kp_image *im = &r->images[i];
		if (im->user_load && im->has_start && im->start <= f->address &&
		    f->address - im->start < LOAD_MAX_GAP && (best < 0 || im->start > r->images[best].start))
			best = (int)i;
	}
	if (best < 0) {
		if (f->image >= 0 && r->images[f->image].user_load) {
			f->image = -1;
			f->has_offset = false;
		}
		return;
	}
	f->image = best;
	f->offset = f->address - r->images[best].start;
	f->has_offset = true;
}

bool kp_report_set_load(kp_report *r, const char *bundle, uint64_t addr, const char *uuid)
{
	int k = -1;
	for (size_t i = 0; i < r->nimages && k < 0; i++)
		if (r->images[i].name && strcmp(r->images[i].name, bundle) == 0)
			k = (int)i;
	if (k < 0) {
		kp_image *im = kp__add_image(r);
		if (!im || !(im->name = kp__strdup(r, bundle)))
			return false;
		im->kind = 'X';
		k = im->index;
	}
	kp_image *im = &r->images[k];
	im->start = addr;
	im->has_start = true;
	im->user_load = true;
	if (uuid && !im->uuid && !(im->uuid = kp__strdup(r, uuid)))
		return false;
	for (size_t i = 0; i < r->nprocesses; i++)
		for (size_t j = 0; j < r->processes[i].nthreads; j++) {
			kp_thread *t = &r->processes[i].threads[j];
			for (size_t n = 0; n < t->nframes; n++)
				place_loaded(r, &t->frames[n]);
		}
	return true;
}
