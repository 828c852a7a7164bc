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

void *kp__vec_push(void **arr, size_t *n, size_t *cap, size_t sz)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		if (ncap > SIZE_MAX / sz)
			return NULL;
		void *p = realloc(*arr, ncap * sz);
		if (!p)
			return NULL;
		*arr = p;
		*cap = ncap;
	}
	void *e = (char *)*arr + *n * sz;
	memset(e, 0, sz);
	(*n)++;
	return e;
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
	kp_image *im = kp__vec_push((void **)&r->images, &r->nimages, &r->images_cap, sizeof *im);
	if (im) {
		im->index = (int)(r->nimages - 1);
		im->kind = '?';
	}
	return im;
}

kp_process *kp__add_process(kp_report *r)
{
	return kp__vec_push((void **)&r->processes, &r->nprocesses, &r->processes_cap, sizeof(kp_process));
}

kp_thread *kp__add_thread(kp_report *r, kp_process *p)
{
	(void)r;
	kp_thread *t = kp__vec_push((void **)&p->threads, &p->nthreads, &p->threads_cap, sizeof *t);
	if (t)
		t->cpu = -1;
	return t;
}

kp_frame *kp__add_frame(kp_report *r, kp_thread *t)
{
	(void)r;
	kp_frame *f = kp__vec_push((void **)&t->frames, &t->nframes, &t->frames_cap, sizeof *f);
	if (f)
		f->image = -1;
	return f;
}

kp_kext *kp__add_kext(kp_report *r)
{
	return kp__vec_push((void **)&r->kexts, &r->nkexts, &r->kexts_cap, sizeof(kp_kext));
}

bool kp__add_field(kp_report *r, const char *key, size_t keylen, const char *value, size_t vlen)
{
	kp_field *f = kp__vec_push((void **)&r->fields, &r->nfields, &r->fields_cap, sizeof *f);
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
	kp_warning *w = kp__vec_push((void **)&r->warnings, &r->nwarnings, &r->warnings_cap, sizeof *w);
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

void kp__derive_arch(kp_report *r)
{
	const char *kv = r->kernel_version;
	if (!kv)
		return;
	const char *rel = strstr(kv, "RELEASE_");
	if (!rel)
		rel = strstr(kv, "DEVELOPMENT_");
	if (!rel)
		rel = strstr(kv, "DEBUG_");
	if (r->arch == KP_ARCH_UNKNOWN) {
		if (strstr(kv, "ARM64") || strstr(kv, "arm64"))
			r->arch = KP_ARCH_ARM64;
		else if (strstr(kv, "X86_64") || strstr(kv, "x86_64"))
			r->arch = KP_ARCH_X86_64;
		else if (strstr(kv, "I386") || strstr(kv, "i386"))
			r->arch = KP_ARCH_I386;
	}
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

bool kp__parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	int base = 10;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == n)
		return false;
	for (; i < n; i++) {
		int d;
		unsigned char c = (unsigned char)s[i];
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return false;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return false;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	*out = v;
	return true;
}

bool kp_parse_u64(const char *s, size_t n, uint64_t *out)
{
	return kp__parse_u64(s, n, out);
}

bool kp_uuid_canon(const char *src, size_t len, char out[37])
{
	static const char hex[] = "0123456789ABCDEF";
	int nd = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)src[i];
		int v;
		if (c == '-')
			continue;
		if (c >= '0' && c <= '9')
			v = c - '0';
		else if (c >= 'a' && c <= 'f')
			v = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v = c - 'A' + 10;
		else
			return false;
		if (nd == 32)
			return false;
		int pos = nd + (nd >= 8) + (nd >= 12) + (nd >= 16) + (nd >= 20);
		out[pos] = hex[v];
		nd++;
	}
	if (nd != 32)
		return false;
	out[8] = out[13] = out[18] = out[23] = '-';
	out[36] = '\0';
	return true;
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

const char *kp_arch_name(kp_arch a)
{
	switch (a) {
	case KP_ARCH_ARM64: return "arm64";
	case KP_ARCH_X86_64: return "x86_64";
	case KP_ARCH_I386: return "i386";
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
