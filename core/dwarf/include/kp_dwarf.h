/* kp_dwarf.h: address -> function, file, line, column and inlined calls,
 * decoded lazily from the DWARF sections of one Mach-O slice.  This header's
 * implementation (dwarf.c) is the only user of libdwarf in kpbrowse.
 *
 * Ownership: a kp_dwarf borrows its slice (the kp_macho must outlive it);
 * every string it returns is its own or the slice's, valid until
 * kp_dwarf_close(), which clears the caller's pointer. */
#ifndef KP_DWARF_H
#define KP_DWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kp_error.h"
#include "kp_macho.h"

typedef struct kp_dwarf kp_dwarf;

typedef struct kp_symframe {
	const char *function;  /* demangled; NULL when unknown */
	const char *file;      /* as DWARF names it (comp dir joined for relative names); NULL when unknown */
	unsigned line, column; /* 0 when unknown */
} kp_symframe;

/* Opening reads only what finds the compilation unit of an address
 * (aranges, else CU ranges).  KP_ERR_NOTFOUND when the slice has no DWARF. */
kp_status kp_dwarf_open(const kp_macho_slice *slice, kp_dwarf **out, kp_error *err);

/* Frames for addr, innermost (deepest inlined) first, at most max; *n gets
 * how many were written (0 when no CU covers addr and no symbol does).  The last frame is the
 * concrete function holding addr; the ones before are inlined calls, their
 * file:line the position inside the callee, as llvm-symbolizer --inlining
 * prints them. */
kp_status kp_dwarf_lookup(kp_dwarf *d, uint64_t addr, kp_symframe *frames, size_t max,
                          size_t *n, kp_error *err);

/* Whether d's last kp_dwarf_lookup answered as the one before it on d did
 * but for the first frame's file, line and column (as many frames, every
 * other field the same): a sweep's shortcut past comparing the frames. */
bool kp_dwarf_same_calls(const kp_dwarf *d);

/* kp_dwarf_lookup's answer at addr when it would be d's last answer but for
 * the first frame's file, line and column (kp_dwarf_same_calls would say
 * so): that position, *n (the frames the last answer had) and true, d as
 * the lookup leaves it.  false (nothing changed) when a whole lookup is
 * needed.  A sweep's shortcut past copying the frames. */
bool kp_dwarf_lookup_same(kp_dwarf *d, uint64_t addr, size_t max, size_t *n, const char **file,
                          uint32_t *line, uint32_t *column);

/* Optional: lets lookups name the outermost frame from m's symbol table, as
 * llvm-symbolizer does by default (it prefers the nlist symbol holding addr,
 * '_' dropped and demangled, over the DWARF name, and names addresses DWARF
 * does not cover, such as padding between functions: then one frame with
 * file NULL).  m must be the kp_macho of d's slice and outlive d. */
void kp_dwarf_use_symbols(kp_dwarf *d, kp_macho *m);

/* Calls fn with every address at which some input of kp_dwarf_lookup may
 * change (CU range ends, line-table rows and sequence ends, subprogram and
 * inlined-subroutine range ends), in no particular order and possibly
 * repeated; symbol-table addresses are not included.  Decodes every CU an
 * address can reach (slow: all of them at once; the reference that
 * kp_dwarf_window's sweep is tested against), calling progress (may be
 * NULL) after each.  fn returning false stops with KP_ERR_NOMEM. */
kp_status kp_dwarf_for_each_boundary(kp_dwarf *d, bool (*fn)(void *ctx, uint64_t addr),
                                     void (*progress)(void *ctx, size_t done, size_t total),
                                     void *ctx, kp_error *err);

/* A cache build's sweep, window by window in address order: windows 0 ..
 * kp_dwarf_windows(d) - 1 cover every address, each [*lo, *hi) (the last
 * one's *hi is UINT64_MAX and includes it), window i starting at
 * kp_dwarf_window_start(d, i).  kp_dwarf_window calls fn with *lo and with
 * every address of the window at which kp_dwarf_lookup's DWARF answer may
 * change (repeats possible, in no particular order; the symbol table's
 * addresses are not included), decoding the one unit that answers the
 * window (the last window has none): from the first call on, the handle
 * decodes each unit's functions with the unit, reading each DIE once.
 * Windows may be swept in any order,
 * on threads of their own each with its own handle (kp_dwarf_clone).  fn
 * returning false stops with KP_ERR_NOMEM. */
size_t kp_dwarf_windows(kp_dwarf *d);
uint64_t kp_dwarf_window_start(kp_dwarf *d, size_t i);
/* The lowest address a unit answers (0 when none): where window 0's code
 * starts. */
uint64_t kp_dwarf_code_start(kp_dwarf *d);
kp_status kp_dwarf_window(kp_dwarf *d, size_t i, uint64_t *lo, uint64_t *hi,
                          bool (*fn)(void *ctx, uint64_t addr), void *ctx, kp_error *err);
/* The sweep is past window i: when no later window needs its unit, the
 * unit's decoded arrays are given back (their strings stay; asked again,
 * it is decoded again), so the next units reuse the memory. */
void kp_dwarf_window_done(kp_dwarf *d, size_t i);

/* A second handle on d's slice with d's settings (its symbol table of
 * kp_dwarf_use_symbols too) and a copy of its address index (the unit
 * headers are not read again), nothing decoded yet.  A kp_dwarf is used by one
 * thread at a time; two handles on one slice may be used at once, looking
 * up in a shared symbol table too once one call on that kp_macho has sorted
 * it (kp_macho_symbol_boundaries; kp_macho_symbol's third). */
kp_status kp_dwarf_clone(const kp_dwarf *d, kp_dwarf **out, kp_error *err);

/* How many units kp_dwarf_open left out (a header with no readable DIE
 * after it; a header that does not read, which ends the walk): their
 * addresses answer from the symbol table, the rest of the file as before. */
size_t kp_dwarf_units_skipped(const kp_dwarf *d);

void kp_dwarf_close(kp_dwarf **d);

#endif
