/* macho_prelink.c: the older, prelinked kernelcache (Intel Macs before macOS
 * 11, iOS before 14): each embedded kext becomes a slice of its own, found
 * by its UUID like a fileset entry (macho.c).
 *
 * The layout, as xnu's OSKext and kext_tools' kclist read it:
 * - the file is the kernel, an MH_EXECUTE: it stays the file's own slice
 *   (fileset_id "com.apple.kernel", as in a fileset).
 * - __PRELINK_INFO,__info holds the kernel's own XML (plist_prelink.h): a
 *   _PrelinkInfoDictionary array with one dictionary per kext.  A kext with
 *   code has _PrelinkExecutableLoadAddr (its Mach header's vmaddr, where the
 *   kernel runs it) and usually _PrelinkExecutableSourceAddr (where its
 *   bytes lie in the cache's address space, inside __PRELINK_TEXT; equal to
 *   the load address on Intel) and _PrelinkExecutableSize; a codeless kext
 *   has none of them and is skipped.
 * - the kext's header is found by mapping its source address through the
 *   kernel's segments (vmaddr, fileoff), as kclist does; its segments' bytes
 *   lie at vmaddr - load + source, mapped the same way.
 * - the file offsets in the kext's own load commands come in two frames:
 *   moved to count from the kernelcache's start (the prelinker rewrites
 *   them; split kexts of iOS 12 whose segments are spread over
 *   __PLK_TEXT_EXEC, __PLK_DATA_CONST... only make sense this way), or
 *   left counting from the kext's header (the kext copied whole).  Both are
 *   tried, that order; a frame is taken only when every section it places
 *   in the file is where the section's address, mapped as above, says.
 *
 * A kext whose entry or header lies (outside the file, a size that
 * overflows, sections that are not where their addresses say, a broken
 * Mach-O) is left out and named by kp_macho_warning; a plist that stops
 * reading leaves out the kexts from there on, named the same way; the
 * kernel stays. */
#include "kp_vec.h"
#include "macho_model.h"
#include "plist_prelink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MH_EXECUTE 0x2u

/* addr's file offset (from the slice's data) through s's file-backed
 * segments; false when no segment holds bytes for it. */
static bool vm2file(const struct mslice *s, uint64_t addr, uint64_t *off)
{
	for (size_t i = 0; i < s->nsegs; i++) {
		const struct mseg *g = &s->segs[i];
		uint64_t backed = g->filesize < g->vmsize ? g->filesize : g->vmsize;
		if (backed && addr >= g->vmaddr && addr - g->vmaddr < backed) {
			*off = g->fileoff + (addr - g->vmaddr);
			return true;
		}
	}
	return false;
}

struct prelink {
	kp_macho *m;
	size_t kernel;   /* index of the kernel's slice */
	size_t cap;
	bool nomem;
};

static void left_out(kp_macho *m, const char *name, const char *why)
{
	if (!m->warning[0])
		snprintf(m->warning, sizeof m->warning, "prelinked kext %.80s left out: %.140s", name, why);
}

/* Whether every section of e with bytes lies where its address says:
 * e's addresses are the kext's (load), its bytes lie at address - load +
 * source in the kernel k.  Sections whose address maps nowhere are not
 * counted (nothing to compare). */
static bool sections_agree(const struct mslice *k, const struct mslice *e, uint64_t load,
                           uint64_t source)
{
	for (size_t i = 0; i < e->nsects; i++) {
		const struct msect *x = &e->sects[i];
		uint64_t off;
		if (!x->data || !vm2file(k, x->addr - load + source, &off))
			continue;
		if ((const unsigned char *)k->pub.data + off != x->data)
			return false;
	}
	return true;
}

static void add_kext(void *ctx, const kp__prelink_kext *k)
{
	struct prelink *p = ctx;
	if (p->nomem || (!k->has_load && !k->has_source))
		return;   /* a codeless kext */
	kp_macho *m = p->m;
	const char *name = k->id ? k->id : "(one without CFBundleIdentifier)";
	uint64_t source = k->has_source ? k->source : k->load;
	uint64_t load = k->has_load ? k->load : k->source;
	const struct mslice *ks = &m->slices[p->kernel];
	char why[160];
	uint64_t hdr, end;
	if (!vm2file(ks, source, &hdr)) {
		snprintf(why, sizeof why, "its header is outside the file (address 0x%llx)",
		         (unsigned long long)source);
		left_out(m, name, why);
		return;
	}
	if (k->has_size && k->size > UINT64_MAX - source) {
		snprintf(why, sizeof why, "its size 0x%llx overflows from address 0x%llx",
		         (unsigned long long)k->size, (unsigned long long)source);
		left_out(m, name, why);
		return;
	}
	if (k->has_size && k->size && !vm2file(ks, source + k->size - 1, &end)) {
		snprintf(why, sizeof why, "its size 0x%llx runs outside the file",
		         (unsigned long long)k->size);
		left_out(m, name, why);
		return;
	}
	/* the two frames of its file offsets: the kernelcache's, the kext's */
	const unsigned char *d = ks->pub.data;
	size_t size = ks->pub.size, base = ks->base;
	struct mslice e;
	kp_error perr, first;
	bool placed_wrong = false;
	for (int frame = 0; frame < 2; frame++) {
		memset(&e, 0, sizeof e);
		kp_status st = frame == 0 ? kp__macho_parse_slice(&e, d, size, base, hdr, &perr)
		                          : kp__macho_parse_slice(&e, d + hdr, size - (size_t)hdr,
		                                                  base + (size_t)hdr, 0, &perr);
		if (st == KP_ERR_NOMEM) {
			kp__macho_slice_free(&e);
			p->nomem = true;
			return;
		}
		if (st == KP_OK && e.pub.filetype == MH_FILESET)
			st = kp_error_set(&perr, KP_ERR_FORMAT, 0, (long)(base + hdr), "a fileset inside a prelinked kernelcache");
		if (st == KP_OK && !sections_agree(ks, &e, load, source)) {
			placed_wrong = true;
			st = KP_ERR_FORMAT;
		}
		if (st == KP_OK)
			break;
		if (frame == 0)
			first = perr;
		kp__macho_slice_free(&e);
		if (frame == 1) {
			if (placed_wrong)
				snprintf(why, sizeof why, "its sections are not where their addresses say (header at byte %llu)",
				         (unsigned long long)(base + hdr));
			else
				snprintf(why, sizeof why, "%.100s (at byte %ld)", first.msg, first.byte);
			left_out(m, name, why);
			return;
		}
	}
	e.own_id = k->id ? strdup(k->id) : NULL;
	if ((k->id && !e.own_id) ||
	    !kp_vec_reserve((void **)&m->slices, &p->cap, m->nslices + 1, sizeof e)) {
		kp__macho_slice_free(&e);
		p->nomem = true;
		return;
	}
	e.pub.fileset_id = e.own_id ? e.own_id : "";
	m->slices[m->nslices++] = e;
}

kp_status kp__macho_add_prelinked(kp_macho *m)
{
	size_t top = m->nslices;
	struct prelink p = {.m = m, .cap = m->nslices};
	for (size_t i = 0; i < top && !p.nomem; i++) {
		struct mslice *s = &m->slices[i];
		const unsigned char *info;
		uint64_t info_size;
		if (s->pub.fileset_id || s->pub.filetype != MH_EXECUTE ||
		    !kp_macho_section(&s->pub, "__PRELINK_INFO", "__info", &info, &info_size, NULL) ||
		    !info || !info_size)
			continue;
		s->pub.fileset_id = "com.apple.kernel";
		p.kernel = i;
		kp_error err;
		kp_status st = kp__prelink_info_each(info, (size_t)info_size, add_kext, &p, &err);
		if (st == KP_ERR_NOMEM)
			p.nomem = true;
		else if (st != KP_OK && !m->warning[0])
			snprintf(m->warning, sizeof m->warning, "prelinked kexts left out: %.200s", err.msg);
	}
	return p.nomem ? KP_ERR_NOMEM : KP_OK;
}
