/* symbols_open.c: what answers lookups in an opened file's record
 * (symbols_model.h): its DWARF, and in batch mode the symbol cache built
 * from it on a side thread and adopted once written.  Below symbols.c
 * (which opens the records) and symbols_look.c (which asks them). */
#include "symbols_model.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A symbol cache built on a thread of its own while lookups go on from the
 * DWARF (batch mode): the thread opens the file afresh (a kp_dwarf is not
 * shared between threads) and writes <cache dir>/symcache/<UUID>.kpsym
 * atomically; the lookup thread starts using it once done is set.  Owned
 * by its opened record; joined before that record goes. */
struct side_build {
	pthread_t thread;
	char *path, *dir;
	atomic_bool done;
	bool built;          /* set by the thread before done */
};

static void side_report(void *ctx, const kp_symcache_entry *e)
{
	struct side_build *b = ctx;
	if (e->status == KP_OK)
		b->built = true;
}

static void *side_run(void *arg)
{
	struct side_build *b = arg;
	kp_symcache_build_path(b->dir, b->path, side_report, b, NULL);
	atomic_store(&b->done, true);
	return NULL;
}

/* Starts building o's cache on a side thread; nothing happens when the
 * thread cannot start (the DWARF goes on answering). */
void kp__symbols_side_start(kp_symbols *s, kp__opened *o)
{
	struct side_build *b = calloc(1, sizeof *b);
	if (!b)
		return;
	b->path = strdup(o->path);
	b->dir = strdup(s->symcache_dir);
	atomic_init(&b->done, false);
	if (!b->path || !b->dir || pthread_create(&b->thread, NULL, side_run, b) != 0) {
		free(b->path);
		free(b->dir);
		free(b);
		return;
	}
	o->side = b;
	o->cache_wanted = false;
}

bool kp__symbols_side_join(kp__opened *o)
{
	struct side_build *b = o->side;
	if (!b)
		return false;
	pthread_join(b->thread, NULL);
	bool built = b->built;
	free(b->path);
	free(b->dir);
	free(b);
	o->side = NULL;
	return built;
}

/* Once o's side build is done: answers from the cache it wrote from now on
 * (the DWARF's decoded tables are freed). */
void kp__symbols_side_adopt(kp_symbols *s, kp__opened *o)
{
	if (!o->side || !atomic_load(&o->side->done) || !kp__symbols_side_join(o))
		return;
	kp_symcache_key key = {o->slice->uuid, o->slice->arch, o->dwarf_size, o->dwarf_mtime_ns};
	if (kp__symcache_open(o->cache_path, &key, &o->sc) == KP_OK) {
		s->symcaches_built++;
		kp_dwarf_close(&o->d);
	}
}

void kp__symbols_open_dwarf(kp_symbols *s, kp__opened *o)
{
	kp_error err;
	if (kp_dwarf_open(o->slice, &o->d, &err) != KP_OK) {
		o->d = NULL;   /* no DWARF (a plain binary): the symtab still serves */
		return;
	}
	kp_dwarf_use_symbols(o->d, o->m);
	s->dwarf_opened++;
	size_t skipped = kp_dwarf_units_skipped(o->d);
	if (skipped && !s->warning[0]) {
		snprintf(s->warning, sizeof s->warning,
		         "%zu DWARF unit%s left out (empty, cut short or unreadable); the others answer",
		         skipped, skipped == 1 ? "" : "s");
		snprintf(s->warning_file, sizeof s->warning_file, "%.4000s", o->path);
	}
}
