/* rebuild.c: kpi_rebuild: a new sqlite index from the report folders and
 * the old index's archive, made beside it and renamed over it (kp_index.h). */
#include "scan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* An sqlite file and its -wal and -shm, removed (as far as they exist). */
static void unlink_db(const char *path)
{
	static const char *const suffix[] = {"-wal", "-shm", ""};
	char p[4200];
	for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++) {
		snprintf(p, sizeof p, "%s%s", path, suffix[i]);
		unlink(p);
	}
}

void kpi_rebuild_summary_free(kpi_rebuild_summary *s)
{
	kpi_summary_free(&s->scan);
	kpi_summary_free(&s->archive);
}

kp_status kpi_rebuild(const char *target, const char *const *paths, size_t npaths,
                      kp_sig_symbol_fn sym, void *sym_ctx, kpi_rebuild_summary *out, kp_error *err)
{
	memset(out, 0, sizeof *out);
	if (kpi_target_is_postgres(target))
		return kp_error_set(err, KP_ERR_USAGE, 0, -1,
		                    "rebuild makes an sqlite index file; a PostgreSQL server keeps its own");
	struct stat st;
	if (stat(target, &st) != 0)
		return kp_error_set(err, errno == ENOENT ? KP_ERR_NOTFOUND : KP_ERR_IO, 0, -1,
		                    "%s: no index to rebuild: %s", target, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return kp_error_set(err, KP_ERR_DB, 0, -1, "%s: not a regular file", target);
	char tmp[4200], kept[4200];
	if (snprintf(tmp, sizeof tmp, "%s.rebuild", target) >= (int)sizeof tmp ||
	    snprintf(kept, sizeof kept, "%s.damaged", target) >= (int)sizeof kept)
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "%s: path too long", target);
	unlink_db(tmp); /* a rebuild killed before it renamed */

	kpi_db *db = NULL;
	kp_status s = kpi_open(tmp, KPI_OPEN_CREATE, &db, err);
	if (s == KP_OK && npaths)
		s = kpi_scan(db, paths, npaths, sym, sym_ctx, NULL, NULL, &out->scan, err);
	if (s == KP_OK)
		s = kpi__scan_salvage(db, target, sym, sym_ctx, out, err);
	kpi_close(&db);
	if (s != KP_OK) {
		unlink_db(tmp);
		return s;
	}
	/* the new index is complete and closed: its last connection's close
	 * checkpointed its -wal and removed it (one left means commits the
	 * main file lacks: never renamed without them) */
	char side[4210];
	snprintf(side, sizeof side, "%s-wal", tmp);
	if (stat(side, &st) == 0 && st.st_size > 0) {
		unlink_db(tmp);
		return kp_error_set(err, KP_ERR_DB, 0, -1, "%s: the rebuilt index could not be checkpointed; "
		                    "the old one is left as it was", target);
	}
	/* the old one's -wal must not be read with the new file */
	bool damaged = out->unreadable || out->old_unreadable;
	if (damaged && rename(target, kept) != 0) {
		s = kp_error_set(err, KP_ERR_IO, 0, -1, "%s: cannot keep the damaged index as %s: %s", target,
		                 kept, strerror(errno));
		unlink_db(tmp);
		return s;
	}
	if (damaged)
		snprintf(out->kept, sizeof out->kept, "%s", kept);
	snprintf(side, sizeof side, "%s-wal", target);
	unlink(side);
	snprintf(side, sizeof side, "%s-shm", target);
	unlink(side);
	if (rename(tmp, target) != 0) {
		s = kp_error_set(err, KP_ERR_IO, 0, -1, "%s: cannot put the rebuilt index in place (it is %s): %s",
		                 target, tmp, strerror(errno));
		return s;
	}
	return KP_OK;
}
