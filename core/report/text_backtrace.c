/* text_backtrace.c: backtrace blocks, their frames (PAC stripped), the
 * panicked process and its threads, and the mapping of frames to kext and
 * kernel images (part of kp__text_parse; shared state: text_parse.h). */
#include "kp_vec.h"
#include "text_parse.h"

#include <stdlib.h>
#include <string.h>

/* A kext entry without an end address claims a frame above its start only
 * when the gap is below this (see map_frame). */
#define NOEND_MAX_GAP ((uint64_t)16 << 20)
/* x86_64 KDK kernels link __TEXT at this address; "Kernel slide" is
 * relative to it. */
#define X86_KERNEL_LINK_BASE 0xffffff8000200000ull
/* arm64 PAC: bits above a 47-bit VA carry the signature.  On the m1pro
 * corpus report, lr 0xfdc0fe00148e2af8 has bit 55 set; OR-ing this mask
 * gives 0xfffffe00148e2af8, inside EndpointSecurity's listed range, which
 * is also the value its stripped lr: list shows.  Kernel addresses on
 * Apple silicon are all >= 0xfffffe0000000000, so 47 bits never clips one. */
#define PAC_MASK (~((1ull << 47) - 1))

/* ---- backtraces ---- */

static kp_thread *block_thread(tp *c)
{
	kp_report *r = c->r;
	if (c->thread >= 0)
		return &r->processes[c->proc].threads[c->thread];
	if (c->proc < 0) {
		if (!kp__add_process(r)) {
			c->oom = true;
			return NULL;
		}
		c->proc = (int)r->nprocesses - 1;
	}
	kp_process *p = &r->processes[c->proc];
	kp_thread *t = kp__add_thread(r, p);
	if (!t) {
		c->oom = true;
		return NULL;
	}
	t->cpu = c->block_cpu;
	c->thread = (int)p->nthreads - 1;
	if (c->block_named && c->named_thread < 0)
		c->named_thread = c->thread;
	return t;
}

static kp_frame *add_frame(tp *c, uint64_t ra, const char *sym, size_t symlen)
{
	if (!c->build_threads)
		return NULL;
	kp_thread *t = block_thread(c);
	kp_frame *f = t ? kp__add_frame(c->r, t) : NULL;
	if (!f) {
		c->oom = true;
		return NULL;
	}
	f->address = ra;
	f->has_address = true;
	if (sym && symlen && !(f->symbol = kp__strndup(c->r, sym, symlen)))
		c->oom = true;
	return f;
}

void kp__text_start_block(tp *c, enum sect s, int cpu, bool named)
{
	c->sect = s;
	c->thread = -1;
	c->block_cpu = cpu;
	c->block_named = named;
	c->saw_bt = true;
}

/* "0xFP : 0xRA", then maybe "(args)", "module : _sym + 0xNN" or a glued
 * "Backtrace terminated-invalid frame pointer 0x0".  The symbol is kept
 * without its " + 0xNN", which goes to symbol_offset; module mach_kernel
 * marks the frame the kernel's (report_kernel), any other module names the
 * frame's image. */
bool kp__text_x86_frame(tp *c, const char *t)
{
	uint64_t fp, ra;
	const char *p;
	if (!hex_at(t, &fp, &p))
		return false;
	p = skip_ws(p);
	if (*p != ':')
		return false;
	if (!hex_at(skip_ws(p + 1), &ra, &p))
		return false;
	p = skip_ws(p);
	if (*p == '(') {
		const char *q = strchr(p, ')');
		p = q ? skip_ws(q + 1) : p + strlen(p);
	}
	const char *sym = NULL, *plus = NULL;
	size_t symlen = 0;
	const char *sp = p;
	while (*sp && *sp != ' ' && *sp != '\t')
		sp++;
	if (sp > p && strncmp(sp, " : ", 3) == 0) {
		sym = skip_ws(sp + 3);
		plus = strstr(sym, " + 0x");
		symlen = plus ? (size_t)(plus - sym) : strlen(sym);
	}
	kp_frame *f = add_frame(c, ra, sym, symlen);
	if (f && sym) {
		uint64_t off;
		if (plus && hex_at(plus + 3, &off, NULL)) {
			f->symbol_offset = off;
			f->has_symbol_offset = true;
		}
		f->report_kernel = sp - p == 11 && strncmp(p, "mach_kernel", 11) == 0;
		struct tp_mod *m = f->report_kernel ? NULL
		                   : kp_vec_push((void **)&c->mods, &c->nmods, &c->mods_cap, sizeof *c->mods);
		if (m) {   /* a kext the frame names (keepsyms=1): its image, even unlisted */
			kp_thread *t = &c->r->processes[c->proc].threads[c->thread];
			*m = (struct tp_mod){(size_t)c->thread, t->nframes - 1, kp__strndup(c->r, p, (size_t)(sp - p))};
			c->oom |= !m->name;
		} else if (!f->report_kernel) {
			c->oom = true;
		}
	}
	c->x86_frames = true;
	return true;
}

bool kp__text_ppc_frames(tp *c, const char *t)
{
	const char *p = skip_ws(t);
	if (!*p)
		return false;
	/* all words first: a line that only starts with an address is no frame line */
	for (const char *q = p; *q; q = skip_ws(q)) {
		uint64_t v;
		const char *e;
		if (strncmp(q, "0x", 2) != 0 || !hex_at(q, &v, &e) || (*e && *e != ' ' && *e != '\t'))
			return false;
		q = e;
	}
	uint64_t a;
	const char *e = p;
	while (*p && hex_at(p, &a, &e)) {
		if (a)
			add_frame(c, a, NULL, 0);
		p = skip_ws(e);
	}
	c->ppc_frames = true;
	return true;
}

bool kp__text_arm_frame(tp *c, const char *t)
{
	const char *p = after(t, "lr:");
	uint64_t lr;
	if (!p)
		return false;
	if (hex_at(skip_ws(p), &lr, NULL)) {
		lr = (lr & (1ull << 55)) ? (lr | PAC_MASK) : (lr & ~PAC_MASK);
		add_frame(c, lr, NULL, 0);
		c->arm_frames = true;
	}
	return true;
}

static int kernel_image(tp *c)
{
	kp_report *r = c->r;
	int k = r->kernel_uuid ? kp__image_by_uuid(r, r->kernel_uuid) : -1;
	for (size_t i = 0; k < 0 && !r->kernel_uuid && i < r->nimages; i++)
		if (r->images[i].kind == 'K')
			k = (int)i;
	if (k < 0) {
		kp_image *im = kp__add_image(r);
		if (!im) {
			c->oom = true;
			return -1;
		}
		im->kind = 'K';
		im->uuid = r->kernel_uuid;
		k = im->index;
	}
	if (!r->images[k].name && !(r->images[k].name = kp__strdup(r, "kernel")))
		c->oom = true;
	return k;
}

typedef struct span {
	uint64_t start;
	int idx;
} span;

static int span_cmp(const void *a, const void *b)
{
	uint64_t x = ((const span *)a)->start, y = ((const span *)b)->start;
	return x < y ? -1 : x > y;
}

/* The image claiming ra: a listed range start <= ra <= end (looking back a
 * few starts, for overlaps); else, for an in-backtrace kext listed with a
 * start only (10.4, up to 10.15 for dependencies), the nearest start below
 * ra when no other listed image starts in between, the gap is under
 * NOEND_MAX_GAP and the kernel (kbase) does not sit between them.  xnu lists
 * a kext "in backtrace" because a frame lies in it, and kexts were loaded
 * contiguously, so this places 10.4's AirPort frames; on x86_64 <= 10.15
 * the kernel lies above the kexts, hence the kbase guard. */
static int map_kext(const kp_report *r, const span *sp, size_t ns, uint64_t ra, bool has_kbase,
                    uint64_t kbase)
{
	size_t lo = 0, hi = ns;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sp[mid].start <= ra)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	for (size_t k = lo, n = 0; k > 0 && n < 8; k--, n++) {
		const kp_image *im = &r->images[sp[k - 1].idx];
		if (im->has_end && ra <= im->end)
			return im->index;
	}
	const kp_image *im = &r->images[sp[lo - 1].idx];
	if (!im->has_end && im->in_backtrace && ra - im->start < NOEND_MAX_GAP &&
	    !(has_kbase && im->start < kbase && ra >= kbase))
		return im->index;
	return -1;
}

/* The frames that name their module get its image: the one listed by
 * that name, else one added as kind 'X' (named by the text only), after
 * the listed ones so that their order stays the report's. */
static void map_modules(tp *c)
{
	kp_report *r = c->r;
	for (size_t i = 0; i < c->nmods && !c->oom; i++) {
		const struct tp_mod *m = &c->mods[i];
		int k = kp__image_by_name(r, m->name, strlen(m->name));
		if (k < 0) {
			kp_image *im = kp__add_image(r);
			if (!im) {
				c->oom = true;
				return;
			}
			im->kind = 'X';
			im->name = m->name;
			k = im->index;
		}
		kp_frame *f = &r->processes[c->proc].threads[m->thread].frames[m->frame];
		f->image = k;
		f->report_image = true;
	}
}

void kp__text_map_frames(tp *c)
{
	kp_report *r = c->r;
	int k = kernel_image(c);
	if (c->proc < 0 || k < 0)
		return;
	map_modules(c);
	bool arm = r->arch == KP_ARCH_ARM64 || (r->arch == KP_ARCH_UNKNOWN && c->arm_frames);
	bool has_kbase = false;
	uint64_t kbase = 0;
	if (arm && (r->addr_flags & KP_HAS_KERNEL_TEXT_EXEC_BASE)) {
		has_kbase = true;
		kbase = r->kernel_text_exec_base;
	} else if (!arm && (r->addr_flags & KP_HAS_KERNEL_TEXT_BASE)) {
		has_kbase = true;
		kbase = r->kernel_text_base;
	} else if (!arm && (r->addr_flags & KP_HAS_KERNEL_SLIDE)) {
		has_kbase = true;
		kbase = X86_KERNEL_LINK_BASE + r->kernel_slide;
	}
	span *sp = malloc((r->nimages ? r->nimages : 1) * sizeof *sp);
	if (!sp) {
		c->oom = true;
		return;
	}
	size_t ns = 0;
	for (size_t i = 0; i < r->nimages; i++)
		if (r->images[i].has_start && (int)i != k)
			sp[ns++] = (span){ r->images[i].start, (int)i };
	qsort(sp, ns, sizeof *sp, span_cmp);
	kp_process *p = &r->processes[c->proc];
	for (size_t ti = 0; ti < p->nthreads; ti++) {
		kp_thread *t = &p->threads[ti];
		for (size_t fi = 0; fi < t->nframes; fi++) {
			kp_frame *f = &t->frames[fi];
			int im = map_kext(r, sp, ns, f->address, has_kbase, kbase);
			if (f->report_image && im != f->image) {   /* named by the frame: the name wins */
				const kp_image *named = &r->images[f->image];
				if (named->has_start && f->address >= named->start &&
				    (!named->has_end || f->address <= named->end)) {
					f->offset = f->address - named->start;
					f->has_offset = true;
				}
			} else if (im >= 0) {
				f->image = im;
				f->offset = f->address - r->images[im].start;
				f->has_offset = true;
			} else if (has_kbase && f->address >= kbase) {
				f->image = k;
				f->offset = f->address - kbase;
				f->has_offset = true;
			} else if (f->report_kernel) {
				f->image = k;   /* placed by name only: no offset */
			}
		}
	}
	free(sp);
}

void kp__text_finish_process(tp *c)
{
	kp_report *r = c->r;
	if (c->proc < 0)
		return;
	kp_process *p = &r->processes[c->proc];
	p->has_pid = r->has_panicked_pid;
	p->pid = r->panicked_pid;
	p->name = r->panicked_process;
	int pt = c->named_thread;
	for (size_t i = 0; pt < 0 && i < p->nthreads; i++)
		if (c->panic_cpu >= 0 && p->threads[i].cpu == c->panic_cpu)
			pt = (int)i;
	if (pt < 0 && p->nthreads)
		pt = 0;
	if (pt < 0)
		return;
	kp_thread *t = &p->threads[pt];
	t->panicked = true;
	if (r->has_panicked_thread_id && c->named_thread == pt) {
		t->id = r->panicked_thread_id;
		t->has_id = true;
	}
	for (size_t fi = 0; fi < t->nframes; fi++)
		if (t->frames[fi].image >= 0)
			r->images[t->frames[fi].image].in_backtrace = true;
}
