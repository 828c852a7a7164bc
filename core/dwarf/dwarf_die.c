/* dwarf_die.c: the DIE trees kp_dwarf walks (a CU's subprogram index, a
 * subprogram's inlined subroutines, the DIEs names are resolved through)
 * read straight from .debug_info and .debug_abbrev, without libdwarf.
 * libdwarf's DIE and attribute calls allocate per DIE and per attribute and
 * were half of a symbol-cache build; this reader decodes what compilers and
 * dsymutil write (units of DWARF 2 to 5, compile and partial units, 32- and
 * 64-bit offsets, every standard DWARF 5 form) and answers 0 for anything
 * else (GNU and supplementary forms, DW_FORM_indirect, DW_AT_sibling in a
 * walk, strx or addrx without their base, a form an attribute does not
 * usually take, a walk past dwarf_walk.c's MAX_DEPTH, any read out of
 * bounds), so that dwarf.c reads that unit, function or DIE with libdwarf
 * and every answer and error stays what it was.  What is walked is dwarf_walk.c's, for this
 * reader and libdwarf's alike (test_dwarf_die checks that both give
 * byte-identical symbol caches on every fixture). */
#include "dwarf_model.h"

#include <stdlib.h>
#include <string.h>

#include "kp_rd.h"
#include "kp_vec.h"

enum {
	AT_sibling = 0x01, AT_name = 0x03, AT_stmt_list = 0x10, AT_low_pc = 0x11, AT_high_pc = 0x12,
	AT_comp_dir = 0x1b, AT_abstract_origin = 0x31, AT_specification = 0x47, AT_ranges = 0x55,
	AT_call_column = 0x57, AT_call_file = 0x58, AT_call_line = 0x59, AT_linkage_name = 0x6e,
	AT_str_offsets_base = 0x72, AT_addr_base = 0x73, AT_rnglists_base = 0x74,
	AT_MIPS_linkage_name = 0x2007,
};

enum {
	F_addr = 0x01, F_block2 = 0x03, F_block4 = 0x04, F_data2 = 0x05, F_data4 = 0x06,
	F_data8 = 0x07, F_string = 0x08, F_block = 0x09, F_block1 = 0x0a, F_data1 = 0x0b,
	F_flag = 0x0c, F_sdata = 0x0d, F_strp = 0x0e, F_udata = 0x0f, F_ref_addr = 0x10,
	F_ref1 = 0x11, F_ref2 = 0x12, F_ref4 = 0x13, F_ref8 = 0x14, F_ref_udata = 0x15,
	F_sec_offset = 0x17, F_exprloc = 0x18, F_flag_present = 0x19, F_strx = 0x1a,
	F_addrx = 0x1b, F_data16 = 0x1e, F_line_strp = 0x1f, F_ref_sig8 = 0x20,
	F_implicit_const = 0x21, F_loclistx = 0x22, F_rnglistx = 0x23, F_strx1 = 0x25,
	F_strx2 = 0x26, F_strx3 = 0x27, F_strx4 = 0x28, F_addrx1 = 0x29, F_addrx2 = 0x2a,
	F_addrx3 = 0x2b, F_addrx4 = 0x2c,
};

/* ---- abbreviation tables ------------------------------------------------- */

struct aspec {
	uint16_t at, form;
	int64_t implicit;
};

struct abbrev {
	uint64_t code;
	uint32_t tag, first, nattr;
	int32_t fixed; /* bytes of all attributes when every form has a fixed size, else -1 */
	bool children, sibling;
};

/* One table of .debug_abbrev, for units of one address size, offset size
 * and ref_addr size (fixed sizes depend on them). */
struct kp__abtab {
	uint64_t off;
	unsigned key;
	struct abbrev *v;
	size_t n;
	struct aspec *specs;
	bool dense; /* v[i].code == i + 1 for all i */
};

/* The size of form in a unit of key's sizes: >= 0 fixed, -1 variable,
 * -2 a form this reader does not read. */
static int form_size(unsigned form, unsigned asz, unsigned offsz, unsigned refaddr)
{
	switch (form) {
	case F_addr:
		return (int)asz;
	case F_data1: case F_ref1: case F_flag: case F_strx1: case F_addrx1:
		return 1;
	case F_data2: case F_ref2: case F_strx2: case F_addrx2:
		return 2;
	case F_strx3: case F_addrx3:
		return 3;
	case F_data4: case F_ref4: case F_strx4: case F_addrx4:
		return 4;
	case F_data8: case F_ref8: case F_ref_sig8:
		return 8;
	case F_data16:
		return 16;
	case F_strp: case F_sec_offset: case F_line_strp:
		return (int)offsz;
	case F_ref_addr:
		return (int)refaddr;
	case F_flag_present: case F_implicit_const:
		return 0;
	case F_string: case F_block: case F_block1: case F_block2: case F_block4: case F_sdata:
	case F_udata: case F_ref_udata: case F_exprloc: case F_strx: case F_addrx:
	case F_loclistx: case F_rnglistx:
		return -1;
	default:
		return -2;
	}
}

static void abtab_free(struct kp__abtab *t)
{
	free(t->v);
	free(t->specs);
}

/* Parses the table at off; false when malformed or out of memory (*nomem). */
static bool abtab_parse(const struct kp__dwarf_infosrc *src, struct kp__abtab *t, unsigned asz,
                        unsigned offsz, unsigned refaddr, bool *nomem)
{
	struct kp__rd r = {src->abbrev, t->off, src->abbrev_size, src->little, src->abbrev != NULL};
	size_t capv = 0, caps = 0, nspecs = 0;
	t->dense = true;
	if (t->off >= src->abbrev_size)
		return false;
	for (;;) {
		uint64_t code = kp__rd_uleb(&r);
		if (!r.ok)
			return false;
		if (code == 0)
			return true;
		struct abbrev a = {code, 0, (uint32_t)nspecs, 0, 0, false, false};
		uint64_t tag = kp__rd_uleb(&r);
		a.children = kp__rd_fixed(&r, 1) != 0;
		if (!r.ok || tag > UINT32_MAX)
			return false;
		a.tag = (uint32_t)tag;
		for (;;) {
			uint64_t at = kp__rd_uleb(&r), form = kp__rd_uleb(&r);
			int64_t implicit = form == F_implicit_const ? kp__rd_sleb(&r) : 0;
			if (!r.ok || at > 0xffff || form > 0xffff)
				return false;
			if (at == 0 && form == 0)
				break;
			int sz = form_size((unsigned)form, asz, offsz, refaddr);
			if (sz == -2)
				return false; /* cannot even be skipped */
			if (a.fixed >= 0)
				a.fixed = sz < 0 ? -1 : a.fixed + sz;
			a.sibling |= at == AT_sibling;
			if (nspecs >= UINT32_MAX ||
			    !kp_vec_reserve((void **)&t->specs, &caps, nspecs + 1, sizeof *t->specs)) {
				*nomem = true;
				return false;
			}
			t->specs[nspecs++] = (struct aspec){(uint16_t)at, (uint16_t)form, implicit};
			a.nattr++;
		}
		if (!kp_vec_reserve((void **)&t->v, &capv, t->n + 1, sizeof *t->v)) {
			*nomem = true;
			return false;
		}
		t->dense &= code == t->n + 1;
		t->v[t->n++] = a;
	}
}

/* The attribute specs of ab (NULL when it has none: specs may be NULL). */
static const struct aspec *specs_of(const struct kp__abtab *t, const struct abbrev *ab)
{
	return ab->nattr ? t->specs + ab->first : NULL;
}

static const struct abbrev *abbrev_find(const struct kp__abtab *t, uint64_t code)
{
	if (t->dense)
		return code && code <= t->n ? &t->v[code - 1] : NULL;
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].code == code)
			return &t->v[i];
	return NULL;
}

/* ---- units ------------------------------------------------------------------ */

struct unit {
	struct kp__dwarf_cache *c;
	const struct kp__dwarf_infosrc *src;
	struct cu *cu;
	const struct kp__abtab *ab;
	unsigned version, asz, offsz;
};

struct fval {
	uint64_t u;
	const char *s;
};

static bool addrx(const struct unit *u, uint64_t idx, uint64_t *out)
{
	const struct kp__dwarf_infosrc *s = u->src;
	return kp__dwarf_addrx(s->addr, s->addr_size, u->cu->u_addr_base, u->asz, s->little, idx, out);
}

static const char *strx(const struct unit *u, uint64_t idx)
{
	const struct kp__dwarf_infosrc *s = u->src;
	uint64_t base = u->cu->str_offsets_base;
	if (!s->str_offsets || base == UINT64_MAX || base > s->str_offsets_size ||
	    idx > s->str_offsets_size / u->offsz ||
	    s->str_offsets_size - base < (idx + 1) * u->offsz)
		return NULL;
	struct kp__rd r = {s->str_offsets, base + idx * u->offsz, s->str_offsets_size, s->little, true};
	uint64_t off = kp__rd_fixed(&r, u->offsz);
	return r.ok ? kp__rd_str_at(s->str, s->str_size, off) : NULL;
}

/* Reads one attribute value of form f: numbers and offsets in v->u
 * (references made .debug_info offsets, addrx resolved), strings in v->s.
 * false: out of bounds or a form this reader leaves to libdwarf. */
static bool read_val(const struct unit *u, struct kp__rd *r, const struct aspec *sp, struct fval *v)
{
	v->s = NULL;
	v->u = 0;
	const struct kp__dwarf_infosrc *s = u->src;
	switch (sp->form) {
	case F_addr:
		v->u = kp__rd_fixed(r, u->asz);
		break;
	case F_data1: case F_ref1: case F_flag:
		v->u = kp__rd_fixed(r, 1);
		break;
	case F_data2: case F_ref2:
		v->u = kp__rd_fixed(r, 2);
		break;
	case F_data4: case F_ref4:
		v->u = kp__rd_fixed(r, 4);
		break;
	case F_data8: case F_ref8: case F_ref_sig8:
		v->u = kp__rd_fixed(r, 8);
		break;
	case F_data16:
		kp__rd_skip(r, 16);
		break;
	case F_udata: case F_ref_udata: case F_loclistx: case F_rnglistx:
		v->u = kp__rd_uleb(r);
		break;
	case F_sdata:
		v->u = (uint64_t)kp__rd_sleb(r);
		break;
	case F_sec_offset:
		v->u = kp__rd_fixed(r, u->offsz);
		break;
	case F_ref_addr:
		v->u = kp__rd_fixed(r, u->version == 2 ? u->asz : u->offsz);
		break;
	case F_flag_present:
		v->u = 1;
		break;
	case F_implicit_const:
		v->u = (uint64_t)sp->implicit;
		break;
	case F_string:
		v->s = kp__rd_cstr(r);
		break;
	case F_strp:
		if (!(v->s = kp__rd_str_at(s->str, s->str_size, kp__rd_fixed(r, u->offsz))))
			return false;
		break;
	case F_line_strp:
		if (!(v->s = kp__rd_str_at(s->line_str, s->line_str_size, kp__rd_fixed(r, u->offsz))))
			return false;
		break;
	case F_strx: case F_strx1: case F_strx2: case F_strx3: case F_strx4: {
		uint64_t idx = sp->form == F_strx ? kp__rd_uleb(r)
		               : kp__rd_fixed(r, sp->form == F_strx3 ? 3 : sp->form == F_strx4 ? 4
		                                                     : sp->form - F_strx1 + 1);
		if (!r->ok || !(v->s = strx(u, idx)))
			return false;
		break;
	}
	case F_addrx: case F_addrx1: case F_addrx2: case F_addrx3: case F_addrx4: {
		uint64_t idx = sp->form == F_addrx ? kp__rd_uleb(r)
		               : kp__rd_fixed(r, sp->form == F_addrx3 ? 3 : sp->form == F_addrx4 ? 4
		                                                     : sp->form - F_addrx1 + 1);
		if (!r->ok || !addrx(u, idx, &v->u))
			return false;
		break;
	}
	case F_block1:
		kp__rd_skip(r, kp__rd_fixed(r, 1));
		break;
	case F_block2:
		kp__rd_skip(r, kp__rd_fixed(r, 2));
		break;
	case F_block4:
		kp__rd_skip(r, kp__rd_fixed(r, 4));
		break;
	case F_block: case F_exprloc:
		kp__rd_skip(r, kp__rd_uleb(r));
		break;
	default:
		return false;
	}
	return r->ok;
}

static bool skip_val(const struct unit *u, struct kp__rd *r, const struct aspec *sp)
{
	switch (sp->form) {
	case F_strx: case F_addrx: case F_udata: case F_ref_udata: case F_loclistx:
	case F_rnglistx: case F_sdata:
		kp__rd_uleb(r); /* an sleb has the same length */
		return r->ok;
	case F_string:
		return kp__rd_cstr(r) != NULL;
	case F_strp: case F_line_strp:
		kp__rd_skip(r, u->offsz);
		return r->ok;
	case F_strx1: case F_strx2: case F_strx3: case F_strx4:
		kp__rd_skip(r, sp->form == F_strx3 ? 3 : sp->form == F_strx4 ? 4 : sp->form - F_strx1 + 1);
		return r->ok;
	case F_addrx1: case F_addrx2: case F_addrx3: case F_addrx4:
		kp__rd_skip(r, sp->form == F_addrx3 ? 3 : sp->form == F_addrx4 ? 4 : sp->form - F_addrx1 + 1);
		return r->ok;
	default: {
		struct fval v;
		return read_val(u, r, sp, &v);
	}
	}
}

static bool is_addr_form(unsigned f)
{
	return f == F_addr || f == F_addrx || (f >= F_addrx1 && f <= F_addrx4);
}

static bool is_udata_form(unsigned f)
{
	return f == F_data1 || f == F_data2 || f == F_data4 || f == F_data8 || f == F_udata;
}

static bool is_local_ref(unsigned f)
{
	return f == F_ref1 || f == F_ref2 || f == F_ref4 || f == F_ref8 || f == F_ref_udata;
}

/* dwarf.c's read_attrs for the DIE whose attributes start at r. */
static bool read_attrs(const struct unit *u, struct kp__rd *r, const struct abbrev *ab,
                       struct dieattrs *a)
{
	memset(a, 0, sizeof *a);
	a->rnglists_base = a->addr_base = UINT64_MAX;
	const struct aspec *sp = specs_of(u->ab, ab);
	for (uint32_t i = 0; i < ab->nattr; i++, sp++) {
		struct fval v;
		unsigned f = sp->form;
		switch (sp->at) {
		case AT_low_pc:
			if (!is_addr_form(f) || !read_val(u, r, sp, &v))
				return false;
			a->has_lo = true;
			a->lo = v.u;
			break;
		case AT_high_pc:
			if ((!is_addr_form(f) && !is_udata_form(f)) || !read_val(u, r, sp, &v))
				return false;
			a->has_hi = true;
			a->hi_is_addr = is_addr_form(f);
			a->hi = v.u;
			break;
		case AT_stmt_list:
		case AT_ranges:
		case AT_rnglists_base:
		case AT_addr_base:
			if ((f != F_sec_offset && f != F_rnglistx) || !read_val(u, r, sp, &v))
				return false;
			if (sp->at == AT_stmt_list) {
				a->has_stmt_list = true;
				a->stmt_list = v.u;
			} else if (sp->at == AT_rnglists_base) {
				a->rnglists_base = v.u;
			} else if (sp->at == AT_addr_base) {
				a->addr_base = v.u;
			} else {
				a->has_ranges = true;
				a->ranges_off = v.u;
				a->ranges_form = f;
			}
			break;
		case AT_abstract_origin:
		case AT_specification:
			if (is_local_ref(f)) {
				if (!read_val(u, r, sp, &v) || v.u >= u->cu->uend - u->cu->hdr_off)
					return false;
				v.u += u->cu->hdr_off;
			} else if (f != F_ref_addr || !read_val(u, r, sp, &v) ||
			           v.u >= u->src->info_size) {
				return false;
			}
			if (sp->at == AT_abstract_origin) {
				a->has_origin = true;
				a->origin = v.u;
			} else {
				a->has_spec = true;
				a->spec = v.u;
			}
			break;
		case AT_linkage_name:
		case AT_MIPS_linkage_name:
		case AT_name:
		case AT_comp_dir:
			if (!read_val(u, r, sp, &v) || !v.s)
				return false;
			if (sp->at == AT_name)
				a->name = v.s;
			else if (sp->at == AT_comp_dir)
				a->comp_dir = v.s;
			else if (!a->linkage)
				a->linkage = v.s;
			break;
		case AT_call_file:
		case AT_call_line:
		case AT_call_column:
			if (!is_udata_form(f) || !read_val(u, r, sp, &v))
				return false;
			if (sp->at == AT_call_file) {
				a->call_file = v.u;
				a->has_call_file = true;
			} else if (sp->at == AT_call_line) {
				a->call_line = v.u;
			} else {
				a->call_column = v.u;
			}
			break;
		default:
			if (!skip_val(u, r, sp))
				return false;
			break;
		}
	}
	return true;
}

static bool skip_attrs(const struct unit *u, struct kp__rd *r, const struct abbrev *ab)
{
	if (ab->fixed >= 0) {
		kp__rd_skip(r, (uint64_t)ab->fixed);
		return r->ok;
	}
	const struct aspec *sp = specs_of(u->ab, ab);
	for (uint32_t i = 0; i < ab->nattr; i++, sp++)
		if (!skip_val(u, r, sp))
			return false;
	return true;
}

static struct cu *unit_of(struct kp__dwarf_cache *c, uint64_t off)
{
	size_t lo = 0, hi = c->ncus;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->cus[mid].hdr_off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &c->cus[lo - 1] : NULL;
}

/* The abbreviation table for cu (parsed on first use). */
static int abtab_for(struct kp__dwarf_cache *c, const struct kp__dwarf_infosrc *src,
                     struct cu *cu, uint64_t off, unsigned refaddr)
{
	unsigned key = cu->asz | (unsigned)cu->offsz << 8 | refaddr << 16;
	for (size_t i = c->nabtabs; i-- > 0;)
		if (c->abtabs[i].off == off && c->abtabs[i].key == key) {
			cu->abtab = (uint32_t)i;
			return 1;
		}
	if (c->nabtabs >= UINT32_MAX ||
	    !kp_vec_reserve((void **)&c->abtabs, &c->capabtabs, c->nabtabs + 1, sizeof *c->abtabs))
		return -2;
	struct kp__abtab *t = &c->abtabs[c->nabtabs];
	memset(t, 0, sizeof *t);
	t->off = off;
	t->key = key;
	bool nomem = false;
	if (!abtab_parse(src, t, cu->asz, cu->offsz, refaddr, &nomem)) {
		abtab_free(t);
		return nomem ? -2 : 0;
	}
	cu->abtab = (uint32_t)c->nabtabs++;
	return 1;
}

/* Reads cu's header, abbreviations and the bases its CU DIE names (first
 * use); 1 ready, 0 left to libdwarf, -2 out of memory. */
static int unit_open(struct kp__dwarf_cache *c, const struct kp__dwarf_infosrc *src,
                     struct cu *cu, struct unit *u)
{
	*u = (struct unit){c, src, cu, NULL, cu->version, 0, 0};
	if (cu->ustate < 0)
		return 0;
	if (cu->ustate == 0) {
		cu->ustate = -1;
		struct kp__rd r = {src->info, cu->hdr_off, src->info_size, src->little, src->info != NULL};
		uint64_t len = kp__rd_fixed(&r, 4);
		unsigned offsz = 4;
		if (len == 0xffffffff) {
			len = kp__rd_fixed(&r, 8);
			offsz = 8;
		}
		if (!r.ok || len > r.end - r.pos)
			return 0;
		cu->uend = r.pos + len;
		r.end = cu->uend;
		unsigned ver = (unsigned)kp__rd_fixed(&r, 2);
		uint64_t abbr = 0;
		unsigned asz = 0;
		if (ver >= 2 && ver <= 4) {
			abbr = kp__rd_fixed(&r, offsz);
			asz = (unsigned)kp__rd_fixed(&r, 1);
		} else if (ver == 5) {
			unsigned ut = (unsigned)kp__rd_fixed(&r, 1);
			asz = (unsigned)kp__rd_fixed(&r, 1);
			abbr = kp__rd_fixed(&r, offsz);
			if (ut != 1 && ut != 3) /* DW_UT_compile, DW_UT_partial */
				return 0;
		} else {
			return 0;
		}
		if (!r.ok || ver != cu->version || (asz != 4 && asz != 8) || r.pos != cu->die_off)
			return 0;
		cu->asz = (uint8_t)asz;
		cu->offsz = (uint8_t)offsz;
		int ar = abtab_for(c, src, cu, abbr, ver == 2 ? asz : offsz);
		if (ar != 1)
			return ar;
		/* the bases first: the CU DIE's own addrx and strx forms need them */
		cu->str_offsets_base = cu->u_addr_base = UINT64_MAX;
		u->ab = &c->abtabs[cu->abtab];
		u->asz = asz;
		u->offsz = offsz;
		const struct abbrev *ab = abbrev_find(u->ab, kp__rd_uleb(&r));
		if (!r.ok || !ab)
			return 0;
		const struct aspec *sp = specs_of(u->ab, ab);
		for (uint32_t i = 0; i < ab->nattr; i++, sp++) {
			bool base = sp->at == AT_str_offsets_base || sp->at == AT_addr_base;
			if (!base) {
				if (!skip_val(u, &r, sp))
					return 0;
				continue;
			}
			struct fval v;
			if (sp->form != F_sec_offset || !read_val(u, &r, sp, &v))
				return 0;
			if (sp->at == AT_str_offsets_base)
				cu->str_offsets_base = v.u;
			else
				cu->u_addr_base = v.u;
		}
		cu->ustate = 1;
	}
	u->ab = &c->abtabs[cu->abtab];
	u->asz = cu->asz;
	u->offsz = cu->offsz;
	return 1;
}

/* The abbreviation of the DIE at r (NULL with *null set for a null entry);
 * NULL alone when the code is unknown or the read fails. */
static const struct abbrev *die_head(const struct unit *u, struct kp__rd *r, bool *null)
{
	uint64_t code = kp__rd_uleb(r);
	*null = r->ok && code == 0;
	return r->ok && code ? abbrev_find(u->ab, code) : NULL;
}

/* ---- the walk's DIE reader ------------------------------------------------------ */

/* One stream through a unit in DIE preorder; a DIE's state says how far the
 * stream has read it. */
struct fast {
	struct unit u;
	struct kp__rd r;
};

enum { AT_ATTRS, AT_CHILDREN, PASSED };

static bool fast_fail(struct kp__dwarf_walk *w)
{
	if (w->st == KP_OK)
		w->st = KP_ERR_FORMAT;
	return false;
}

static bool skip_subtree(const struct unit *u, struct kp__rd *r)
{
	for (size_t depth = 1; depth;) {
		bool null;
		const struct abbrev *ab = die_head(u, r, &null);
		if (null) {
			depth--;
			continue;
		}
		if (!ab || !skip_attrs(u, r, ab))
			return false;
		if (ab->children)
			depth++;
	}
	return true;
}

/* The DIE at the stream into *out; false at a null entry (the end of a
 * sibling list) and when it is left to libdwarf. */
static bool fast_head(struct kp__dwarf_walk *w, struct kp__die *out)
{
	struct fast *f = w->rd;
	uint64_t off = f->r.pos;
	bool null;
	const struct abbrev *ab = die_head(&f->u, &f->r, &null);
	if (null)
		return false;
	if (!ab || ab->sibling) /* libdwarf follows DW_AT_sibling: leave the walk to it */
		return fast_fail(w);
	*out = (struct kp__die){off, ab->tag, (void *)(uintptr_t)ab, AT_ATTRS};
	return true;
}

/* The stream past die's attributes, and past its subtree when subtree. */
static bool fast_pass(struct kp__dwarf_walk *w, struct kp__die *die, bool subtree)
{
	struct fast *f = w->rd;
	const struct abbrev *ab = die->h;
	if (die->state == AT_ATTRS) {
		if (!skip_attrs(&f->u, &f->r, ab))
			return fast_fail(w);
		die->state = AT_CHILDREN;
	}
	if (die->state == AT_CHILDREN && subtree) {
		if (ab->children && !skip_subtree(&f->u, &f->r))
			return fast_fail(w);
		die->state = PASSED;
	}
	return true;
}

static bool fast_child(struct kp__dwarf_walk *w, struct kp__die *die, struct kp__die *out)
{
	if (!fast_pass(w, die, false))
		return false;
	/* its children are the walk's now: the stream is past them once it
	 * has passed the last */
	die->state = PASSED;
	return ((const struct abbrev *)die->h)->children && fast_head(w, out);
}

static bool fast_next(struct kp__dwarf_walk *w, struct kp__die *die, struct kp__die *out)
{
	return fast_pass(w, die, true) && fast_head(w, out);
}

static void fast_release(struct kp__dwarf_walk *w, struct kp__die *die)
{
	(void)w;
	(void)die;
}

static void fast_attrs(struct kp__dwarf_walk *w, struct kp__die *die, bool index,
                       struct dieattrs *a)
{
	struct fast *f = w->rd;
	(void)index;
	if (!read_attrs(&f->u, &f->r, die->h, a)) {
		fast_fail(w);
		return;
	}
	die->state = AT_CHILDREN;
}

static void fast_ranges_v4(struct kp__dwarf_walk *w, struct kp__die *die, uint64_t off,
                           uint64_t base, struct rngbuf *out)
{
	struct fast *f = w->rd;
	(void)die;
	int r = kp__dwarf_ranges_v4(f->u.src->ranges, f->u.src->ranges_size, f->u.src->little,
	                            f->u.asz, off, base, out);
	if (r == -2)
		w->st = KP_ERR_NOMEM;
	else if (r == 0)
		fast_fail(w);
}

static void fast_mark(struct kp__dwarf_walk *w, struct kp__die *die, struct kp__mark *m)
{
	*m = (struct kp__mark){((struct fast *)w->rd)->r.pos, die->state};
}

static void fast_back(struct kp__dwarf_walk *w, struct kp__die *die, const struct kp__mark *m)
{
	struct fast *f = w->rd;
	f->r.pos = m->pos;
	f->r.ok = true;
	die->state = m->state;
}

static const struct kp__dwarf_dieops fast_ops = {
	.child = fast_child,
	.next = fast_next,
	.release = fast_release,
	.attrs = fast_attrs,
	.ranges_v4 = fast_ranges_v4,
	.mark = fast_mark,
	.back = fast_back,
};

/* A walk's status as this file's answer: 1, 0 (left to libdwarf), -2. */
static int answer(const struct kp__dwarf_walk *w)
{
	return w->st == KP_OK ? 1 : w->st == KP_ERR_NOMEM ? -2 : 0;
}

int kp__dwarf_func_decode_fast(struct kp__dwarf_cache *c, const struct kp__dwarf_infosrc *src,
                               const struct kp__dwarf_lists *lists, struct cu *cu, struct func *fn)
{
	struct fast f;
	struct kp__dwarf_walk w = {&fast_ops, &f, lists, c, cu, fn, {0}, KP_OK, false};
	int ur = unit_open(c, src, cu, &f.u);
	if (ur != 1)
		return ur;
	if (fn->die_off < cu->die_off || fn->die_off >= cu->uend)
		return 0;
	f.r = (struct kp__rd){src->info, fn->die_off, cu->uend, src->little, true};
	struct kp__die root;
	if (!fast_head(&w, &root))
		return 0;
	kp__dwarf_walk_func(&w, &root);
	free(w.rb.v);
	int res = answer(&w);
	if (res != 1)
		kp__dwarf_func_reset(fn);
	return res;
}

int kp__dwarf_cu_decode_fast(struct kp__dwarf_cache *c, const struct kp__dwarf_infosrc *src,
                             const struct kp__dwarf_lists *lists,
                             const struct kp__dwarf_linesrc *lsrc, struct cu *cu)
{
	struct fast f;
	struct kp__dwarf_walk w = {&fast_ops, &f, lists, c, cu, NULL, {0}, KP_OK, c->eager};
	int ur = unit_open(c, src, cu, &f.u);
	if (ur != 1)
		return ur;
	f.r = (struct kp__rd){src->info, cu->die_off, cu->uend, src->little, true};
	bool null;
	const struct abbrev *ab = die_head(&f.u, &f.r, &null);
	if (!ab)
		return 0;
	struct kp__die root = {cu->die_off, ab->tag, (void *)(uintptr_t)ab, AT_ATTRS};
	struct dieattrs a;
	kp__dwarf_walk_unit(&w, &root, &a);
	free(w.rb.v);
	int res = answer(&w);
	if (res == 1 && a.has_stmt_list)
		res = kp__dwarf_lines_fast(c, lsrc, a.stmt_list, cu);
	if (res != 1)
		kp__dwarf_cu_reset(cu);
	for (size_t i = 0; res == 1 && i < cu->nfuncs; i++)
		c->nfast += cu->funcs[i].state == 1;   /* decoded on the way (eager) */
	return res;
}

int kp__dwarf_die_attrs_fast(struct kp__dwarf_cache *c, const struct kp__dwarf_infosrc *src,
                             uint64_t off, struct dieattrs *a)
{
	struct cu *cu = unit_of(c, off);
	struct unit u;
	if (!cu)
		return 0;
	int ur = unit_open(c, src, cu, &u);
	if (ur != 1)
		return ur;
	if (off < cu->die_off || off >= cu->uend)
		return 0;
	struct kp__rd r = {src->info, off, cu->uend, src->little, true};
	bool null;
	const struct abbrev *ab = die_head(&u, &r, &null);
	return ab && read_attrs(&u, &r, ab, a) ? 1 : 0;
}

void kp__dwarf_die_free(struct kp__dwarf_cache *c)
{
	for (size_t i = 0; i < c->nabtabs; i++)
		abtab_free(&c->abtabs[i]);
	free(c->abtabs);
	c->abtabs = NULL;
	c->nabtabs = c->capabtabs = 0;
}
