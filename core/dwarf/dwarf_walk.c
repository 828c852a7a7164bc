/* dwarf_walk.c: the one DIE walk of kp_dwarf, over either DIE reader
 * (dwarf_die.c's own, or libdwarf's in dwarf.c): which DIEs index a CU's
 * concrete subprograms, which make a subprogram's inlined-subroutine map,
 * and the address ranges of each.  A change to what is walked is made here
 * once; test_dwarf_die checks that both readers give byte-identical symbol
 * caches on every fixture. */
#include "dwarf_model.h"

#define MAX_DEPTH 256
#define FORM_rnglistx 0x23

enum {
	TAG_class_type = 0x02, TAG_entry_point = 0x03, TAG_lexical_block = 0x0b,
	TAG_structure_type = 0x13, TAG_union_type = 0x17, TAG_inlined_subroutine = 0x1d,
	TAG_module = 0x1e, TAG_catch_block = 0x25, TAG_subprogram = 0x2e, TAG_try_block = 0x32,
	TAG_interface_type = 0x38, TAG_namespace = 0x39,
};

void kp__dwarf_walk_ranges(struct kp__dwarf_walk *w, struct kp__die *die,
                           const struct dieattrs *a, uint64_t base, struct rngbuf *out)
{
	struct cu *cu = w->cu;
	out->n = 0;
	if (a->has_lo && a->has_hi) {
		if (!kp__dwarf_rng_push(out, a->lo, a->hi_is_addr ? a->hi : a->lo + a->hi))
			w->st = KP_ERR_NOMEM;
		return;
	}
	if (!a->has_ranges)
		return;
	if (cu->version < 5 && a->ranges_form != FORM_rnglistx) {
		w->ops->ranges_v4(w, die, a->ranges_off, base, out);
		return;
	}
	/* A malformed list keeps the ranges read before the damage. */
	struct kp__dwarf_lists l = *w->lists;
	l.rnglists_base = cu->rnglists_base;
	l.addr_base = cu->addr_base;
	if (kp__dwarf_rnglist(&l, a->ranges_off, a->ranges_form == FORM_rnglistx, base, out) == -2)
		w->st = KP_ERR_NOMEM;
}

static void walk_children(struct kp__dwarf_walk *w, struct kp__die *die, int32_t parent,
                          int depth);

/* The subtree of the subprogram die (attributes a) just indexed as the
 * unit's last func, walked as kp__dwarf_walk_func walks it (depths count
 * from the subprogram); on a failure other than memory the func is left
 * undecoded and the reader goes back to skip the subtree. */
static void eager_func(struct kp__dwarf_walk *w, struct kp__die *die, const struct dieattrs *a)
{
	struct func *fn = &w->cu->funcs[w->cu->nfuncs - 1];
	struct kp__mark m;
	uint32_t idx = 0;
	w->ops->mark(w, die, &m);
	w->fn = fn;
	if (!kp__dwarf_func_add_sub(fn, a, die->off, -1, true, &w->rb, &idx))
		w->st = KP_ERR_NOMEM;
	else
		walk_children(w, die, (int32_t)idx, 1);
	w->fn = NULL;
	if (w->st == KP_OK) {
		kp__dwarf_func_done(fn, KP_OK, NULL);
	} else if (w->st != KP_ERR_NOMEM) {
		kp__dwarf_func_reset(fn);
		w->st = KP_OK;
		w->ops->back(w, die, &m);
	}
}

static void visit(struct kp__dwarf_walk *w, struct kp__die *die, int32_t parent, int depth)
{
	switch (die->tag) {
	case TAG_subprogram:
	case TAG_inlined_subroutine: {
		struct func *fn = w->fn;
		struct dieattrs a;
		if (!fn && die->tag != TAG_subprogram)
			return; /* inlined code outside any subprogram: not valid DWARF */
		w->ops->attrs(w, die, !fn, &a);
		if (w->st != KP_OK)
			return;
		if (!fn && !(a.has_lo && a.has_hi) && !a.has_ranges)
			return; /* a declaration or an abstract instance: nothing to index */
		kp__dwarf_walk_ranges(w, die, &a, w->cu->base, &w->rb);
		if (w->st != KP_OK)
			return;
		if (!fn) {
			/* Indexing: the subprogram's ranges only; its subtree waits
			 * for the first address inside it (or is read now: eager). */
			size_t nf = w->cu->nfuncs;
			if (!kp__dwarf_cu_add_func(w->cu, die->off, &w->rb))
				w->st = KP_ERR_NOMEM;
			else if (w->eager && w->ops->mark && w->cu->nfuncs > nf)
				eager_func(w, die, &a);
			return;
		}
		uint32_t idx = 0;
		if (!kp__dwarf_func_add_sub(fn, &a, die->off, parent, die->tag == TAG_subprogram, &w->rb,
		                            &idx)) {
			w->st = KP_ERR_NOMEM;
			return;
		}
		walk_children(w, die, (int32_t)idx, depth + 1);
		return;
	}
	/* Scopes that can hold subroutines with code.  Clang puts C++ member
	 * function definitions at namespace scope (DW_AT_specification), but
	 * Swift and others put them, and their inlined calls, inside the
	 * class, structure or module entry: llvm-symbolizer walks every entry,
	 * so these are walked too (their other children end at the default). */
	case TAG_class_type:
	case TAG_structure_type:
	case TAG_union_type:
	case TAG_interface_type:
	case TAG_lexical_block:
	case TAG_namespace:
	case TAG_module:
	case TAG_try_block:
	case TAG_catch_block:
	case TAG_entry_point:
		walk_children(w, die, parent, depth + 1);
		return;
	default:
		return;
	}
}

static void walk_children(struct kp__dwarf_walk *w, struct kp__die *die, int32_t parent,
                          int depth)
{
	if (depth > MAX_DEPTH) {
		if (w->st == KP_OK)
			w->st = KP_ERR_FORMAT;
		return;
	}
	struct kp__die child;
	if (!w->ops->child(w, die, &child))
		return;
	for (;;) {
		visit(w, &child, parent, depth);
		struct kp__die next;
		bool more = w->st == KP_OK && w->ops->next(w, &child, &next);
		w->ops->release(w, &child);
		if (!more)
			return;
		child = next;
	}
}

void kp__dwarf_walk_unit(struct kp__dwarf_walk *w, struct kp__die *cudie, struct dieattrs *a)
{
	struct cu *cu = w->cu;
	w->ops->attrs(w, cudie, false, a);
	if (w->st != KP_OK)
		return;
	cu->base = a->has_lo ? a->lo : 0;
	cu->rnglists_base = a->rnglists_base;
	cu->addr_base = a->addr_base;
	cu->comp_dir = NULL;
	if (a->comp_dir && !(cu->comp_dir = kp__dwarf_intern(w->c, a->comp_dir))) {
		w->st = KP_ERR_NOMEM;
		return;
	}
	walk_children(w, cudie, -1, 0);
}

void kp__dwarf_walk_func(struct kp__dwarf_walk *w, struct kp__die *die)
{
	visit(w, die, -1, 0);
	if (w->st == KP_OK && w->fn->nsubs == 0)
		w->st = KP_ERR_FORMAT;
}
