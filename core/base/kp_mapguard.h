/* kp_mapguard.h: keeps a read-only file mapping from
 * killing the process when its file is truncated in place (a `cp` of a
 * rebuilt dSYM over an open one): a SIGBUS inside a guarded mapping
 * replaces the vanished page with a page of zeros and marks the mapping
 * hit; the owner checks kp__mapguard_hit after its reads and turns a hit
 * into a named error (the Mach-O reader) or a fallback to DWARF (the
 * symbol cache).  A SIGBUS anywhere else goes to the handler that was
 * installed before the guard (or kills the process as it would have).
 *
 * The handler is installed on the first kp__mapguard_add (so a program's
 * own handler, installed at start, is chained to).  Slots are few
 * (KP__MAPGUARD_SLOTS): when none is free the mapping is simply unguarded.
 * Call order: add after mmap, remove before munmap. */
#ifndef KP_MAPGUARD_H
#define KP_MAPGUARD_H

#include <stdbool.h>
#include <stddef.h>

#define KP__MAPGUARD_SLOTS 256

/* A slot for [p, p+len), or -1 (unguarded). */
int kp__mapguard_add(const void *p, size_t len);
void kp__mapguard_remove(int slot);
/* true once a page of the slot's mapping vanished (-1: never). */
bool kp__mapguard_hit(int slot);

#endif
