/* store_pg_write.c: the PostgreSQL store's writes: paths, reports,
 * archives and groups (contract: store_pg.c, kpi_store.h). */
#include "store_pg.h"
#include "kp_strbuf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- paths ---- */

kp_status kpi__pg_path_get(kpi_db *h, const char *path, kpi__path_rec *out, kp_error *err)
{
	kpi__pg *db = PG(h);
	memset(out, 0, sizeof *out);
	kpi__pg_params p = {0};
	kpi__pg_text(&p, h->host);
	kpi__pg_text(&p, path);
	/* this login's record of the path: each login keeps its own */
	PGresult *r = kpi__pg_run(db, "SELECT report_id, size, mtime FROM kpbrowse.paths "
	                          "WHERE host = $1 AND path = $2 AND pushed_by = session_user", &p,
	                          PGRES_TUPLES_OK, err,
	                          "looking up a path");
	if (!r)
		return KP_ERR_DB;
	if (PQntuples(r) == 1) {
		out->known = true;
		out->report_id = kpi__pg_val_int(r, 0, 0);
		out->size = kpi__pg_val_int(r, 0, 1);
		out->mtime_ns = kpi__pg_val_int(r, 0, 2);
	}
	PQclear(r);
	return KP_OK;
}

kp_status kpi__pg_path_put(kpi_db *h, const char *path, int64_t report_id, int64_t size,
                           int64_t mtime_ns, int64_t seen_at, const char *skip, kp_error *err)
{
	kpi__pg_params p = {0};
	kpi__pg_text(&p, h->host);
	kpi__pg_text(&p, path);
	if (report_id > 0)
		kpi__pg_int(&p, report_id);
	else
		kpi__pg_text(&p, NULL);
	kpi__pg_int(&p, size);
	kpi__pg_int(&p, mtime_ns);
	kpi__pg_int(&p, seen_at);
	kpi__pg_text(&p, skip);
	PGresult *r = kpi__pg_run(PG(h), "SELECT kpbrowse.path_put($1, $2, $3, $4, $5, $6, $7)", &p,
	                          PGRES_TUPLES_OK, err, "recording a path");
	PQclear(r);
	return r ? KP_OK : KP_ERR_DB;
}

kp_status kpi__pg_report_paths(kpi_db *h, int64_t id, kpi__path_fn fn, void *ctx, kp_error *err)
{
	kpi__pg_params p = {0};
	kpi__pg_int(&p, id);
	/* the paths of the login that pushed it first (another's row may name
	 * any report: its own Mac's copy) */
	PGresult *r = kpi__pg_run(PG(h), "SELECT p.path FROM kpbrowse.paths p JOIN kpbrowse.reports r ON "
	                          "r.id = p.report_id WHERE p.report_id = $1 ORDER BY p.pushed_by = r.pushed_by "
	                          "DESC, p.seen_at DESC, p.path COLLATE \"C\"", &p, PGRES_TUPLES_OK, err,
	                          "listing paths");
	if (!r)
		return KP_ERR_DB;
	for (int i = 0; i < PQntuples(r); i++)
		if (fn(ctx, PQgetvalue(r, i, 0)))
			break;
	PQclear(r);
	return KP_OK;
}

/* ---- reports ---- */

kp_status kpi__pg_report_find(kpi_db *h, const char *hash, const char *incident, int64_t *id,
                              kp_error *err)
{
	*id = 0;
	kpi__pg_params p = {0};
	kpi__pg_text(&p, hash ? hash : incident);
	PGresult *r = kpi__pg_run(PG(h), hash ? "SELECT id FROM kpbrowse.reports WHERE content_hash = $1"
	                                      : "SELECT id FROM kpbrowse.reports WHERE incident_id = $1",
	                          &p, PGRES_TUPLES_OK, err, "looking up a report");
	if (!r)
		return KP_ERR_DB;
	if (PQntuples(r) == 1)
		*id = kpi__pg_val_int(r, 0, 0);
	PQclear(r);
	return KP_OK;
}

/* PostgreSQL array literals, bound as one parameter (never SQL): "{",
 * then elements, each quoted with its \\ and " escaped, then "}". */
static void arr_add(kp_sb *a, const char *e)
{
	kp_sb_str(a, a->n > 1 ? ",\"" : "\"");
	for (const char *c = e ? e : ""; *c; c++) {
		size_t k = strcspn(c, "\\\"");
		kp_sb_add(a, c, k);
		c += k;
		if (!*c)
			break;
		kp_sb_add(a, "\\", 1);
		kp_sb_add(a, c, 1);
	}
	kp_sb_add(a, "\"", 1);
}

static void arr_open(kp_sb *a)
{
	*a = (kp_sb){0};
	kp_sb_add(a, "{", 1);
}

/* Closes a; its text (malloc'd), or NULL when out of memory. */
static char *arr_close(kp_sb *a)
{
	kp_sb_add(a, "}", 1);
	return kp_sb_take(a);
}

/* A kext set as two arrays (names, UUIDs) for kpbrowse.kext_set, which
 * keys the set by its members itself; both NULL for none.  KP_ERR_NOMEM. */
static kp_status kext_arrays(const kpi__kext_set *ks, char **names, char **uuids, kp_error *err)
{
	*names = *uuids = NULL;
	if (!ks->n)
		return KP_OK;
	kp_sb n, u;
	arr_open(&n);
	arr_open(&u);
	for (size_t i = 0; i < ks->n; i++) {
		arr_add(&n, ks->kexts[i].name);
		arr_add(&u, ks->kexts[i].uuid_hex);
	}
	*names = arr_close(&n);
	*uuids = arr_close(&u);
	if (*names && *uuids)
		return KP_OK;
	free(*names);
	free(*uuids);
	*names = *uuids = NULL;
	return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
}

/* Records report id's images (live), the others it had marked not live,
 * through kpbrowse.report_images (the login's own reports only). */
static kp_status put_images(kpi__pg *db, int64_t id, const kpi__image *im, size_t n, kp_error *err)
{
	kp_sb rank, uuid, name;
	arr_open(&rank);
	arr_open(&uuid);
	arr_open(&name);
	for (size_t i = 0; i < n; i++) {
		char num[12];
		snprintf(num, sizeof num, "%d", im[i].rank);
		arr_add(&rank, num);
		arr_add(&uuid, im[i].uuid_hex);
		arr_add(&name, im[i].name);
	}
	char *r = arr_close(&rank), *u = arr_close(&uuid), *nm = arr_close(&name);
	kp_status st;
	if (!r || !u || !nm) {
		st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	} else {
		kpi__pg_params p = {0};
		kpi__pg_int(&p, id);
		kpi__pg_text(&p, r);
		kpi__pg_text(&p, u);
		kpi__pg_text(&p, nm);
		PGresult *res = kpi__pg_run(db, "SELECT kpbrowse.report_images($1, $2, $3, $4)", &p,
		                            PGRES_TUPLES_OK, err, "recording images");
		st = res ? KP_OK : KP_ERR_DB;
		PQclear(res);
	}
	free(r);
	free(u);
	free(nm);
	return st;
}

/* Sets the loaded kexts of report id: the owner's fill at schema 8 (a
 * writer may not UPDATE reports). */
kp_status kpi__pg_report_kexts(kpi_db *h, int64_t id, const kpi__kext_set *ks, kp_error *err)
{
	char *names, *uuids;
	kp_status st = kext_arrays(ks, &names, &uuids, err);
	if (st != KP_OK)
		return st;
	kpi__pg_params p = {0};
	kpi__pg_int(&p, id);
	kpi__pg_text(&p, names);
	kpi__pg_text(&p, uuids);
	st = kpi__pg_cmd(PG(h), "UPDATE kpbrowse.reports SET kext_set = kpbrowse.kext_set($2, $3) WHERE id = $1",
	                 &p, err, "recording a report's kexts");
	free(names);
	free(uuids);
	return st;
}

/* A report's 15 columns as $1..$15, in the order of kpbrowse.reports'
 * INSERT and UPDATE below. */
static void report_params(kpi__pg_params *p, const kpi__new_report *r)
{
	kpi__pg_text(p, r->content_hash);
	kpi__pg_text(p, r->incident_id);
	kpi__pg_int(p, r->size);
	kpi__pg_text(p, r->format);
	kpi__pg_text(p, r->timestamp);
	kpi__pg_int(p, r->ts);
	kpi__pg_text(p, r->os_version);
	kpi__pg_text(p, r->kernel_uuid);
	kpi__pg_text(p, r->headline);
	kpi__pg_text(p, r->exact_key);
	kpi__pg_int(p, r->group_id);
	kpi__pg_int(p, r->indexed_at);
	kpi__pg_text(p, r->host);
	kpi__pg_text(p, r->host_key);
	kpi__pg_text(p, r->model);
}

/* kind and zone as $n, $n+1 after report_params' 15 (and any others). */
static void report_facts_params(kpi__pg_params *p, const kpi__new_report *r)
{
	kpi__pg_text(p, r->kind);
	kpi__pg_text(p, r->zone);
}

kp_status kpi__pg_report_add(kpi_db *h, const kpi__new_report *r, int64_t *id, bool *added,
                             kp_error *err)
{
	kpi__pg *db = PG(h);
	*added = false;
	*id = 0;
	char *names, *uuids;
	kp_status st = kext_arrays(&r->kexts, &names, &uuids, err);
	if (st != KP_OK)
		return st;
	kpi__pg_params p = {0};
	report_params(&p, r);
	kpi__pg_text(&p, r->text);
	report_facts_params(&p, r);
	kpi__pg_text(&p, names);
	kpi__pg_text(&p, uuids);
	kpi__pg_text(&p, r->cls);
	/* One call: the report, its text, its kext set and its group's counts
	 * (count, first and last seen, and the host when it is new to the
	 * group), in the lock order of store_pg.c's comment; NULL when a
	 * report with its hash or incident id is stored. */
	PGresult *res = kpi__pg_run(db, "SELECT kpbrowse.report_add($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, "
	                            "$11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)",
	                            &p, PGRES_TUPLES_OK, err, "recording a report");
	free(names);
	free(uuids);
	if (!res)
		return KP_ERR_DB;
	if (PQntuples(res) == 1)
		*id = kpi__pg_val_int(res, 0, 0);
	PQclear(res);
	if (!*id)
		return KP_OK; /* stored, or by a writer it waited for: kpi__report_add finds it */
	*added = true;
	return put_images(db, *id, r->images, r->nimages, err);
}

/* Supersede in place (kpi_store.h), through kpbrowse.report_replace (the
 * login's own reports only).  No DELETE: the old images are marked not
 * live and the new ones (re)marked live; text and archive are
 * overwritten.  old_text is not needed (the tsvector is a column). */
kp_status kpi__pg_report_replace(kpi_db *h, int64_t id, const kpi__new_report *r,
                                 const char *old_text, const void *z, size_t zlen, kp_error *err)
{
	kpi__pg *db = PG(h);
	(void)old_text;
	char *names, *uuids;
	kp_status st = kext_arrays(&r->kexts, &names, &uuids, err);
	if (st != KP_OK)
		return st;
	kpi__pg_params p = {0};
	kpi__pg_int(&p, id);
	report_params(&p, r);
	kpi__pg_text(&p, r->text);
	report_facts_params(&p, r);
	kpi__pg_text(&p, names);
	kpi__pg_text(&p, uuids);
	kpi__pg_bin(&p, z, zlen);
	kpi__pg_text(&p, r->cls);
	PGresult *res = kpi__pg_run(db, "SELECT kpbrowse.report_replace($1, $2, $3, $4, $5, $6, $7, $8, $9, "
	                            "$10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)",
	                            &p, PGRES_TUPLES_OK, err, "replacing a report");
	free(names);
	free(uuids);
	/* the function found the report and refused it: another login's */
	if (!res && PQstatus(db->conn) == CONNECTION_OK && strstr(err->msg, "another login"))
		return kp_error_set(err, KP_ERR_DB, 0, -1, "%.200s: permission denied while replacing @%lld "
		                    "(a report another login pushed: a writer completes only its own)",
		                    db->display, (long long)id);
	if (!res)
		return KP_ERR_DB;
	bool found = PQntuples(res) == 1 && strcmp(PQgetvalue(res, 0, 0), "t") == 0;
	PQclear(res);
	if (!found)
		return kp_error_set(err, KP_ERR_NOTFOUND, 0, -1, "no report @%lld in the index",
		                    (long long)id);
	return put_images(db, id, r->images, r->nimages, err);
}

kp_status kpi__pg_archive_add(kpi_db *h, int64_t id, const void *z, size_t zlen, kp_error *err)
{
	kpi__pg_params p = {0};
	kpi__pg_int(&p, id);
	kpi__pg_bin(&p, z, zlen);
	PGresult *r = kpi__pg_run(PG(h), "SELECT kpbrowse.archive_add($1, $2)", &p, PGRES_TUPLES_OK, err,
	                          "archiving a report");
	PQclear(r);
	return r ? KP_OK : KP_ERR_DB;
}

kp_status kpi__pg_archive_get(kpi_db *h, int64_t id, kpi__archive *out, kp_error *err)
{
	kpi__pg *db = PG(h);
	memset(out, 0, sizeof *out);
	kpi__pg_params p = {0};
	kpi__pg_int(&p, id);
	/* binary results: the bytea comes back as its bytes */
	PGresult *r = PQexecParams(db->conn, "SELECT r.size, r.content_hash, a.data, r.group_id, "
	                                     "a.report_id IS NOT NULL, r.host FROM kpbrowse.reports r LEFT JOIN "
	                                     "kpbrowse.archives a ON a.report_id = r.id WHERE r.id = $1::bigint",
	                           p.n, NULL, p.v, NULL, NULL, 1);
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		kp_status st = kpi__pg_fail(db, r, err, "reading the archive");
		PQclear(r);
		return st;
	}
	if (PQntuples(r) != 1) {
		PQclear(r);
		return kp_error_set(err, KP_ERR_NOTFOUND, 0, -1, "no report @%lld in the index",
		                    (long long)id);
	}
	/* int8 in network order */
	const unsigned char *b = (const unsigned char *)PQgetvalue(r, 0, 0);
	uint64_t u = 0;
	for (int i = 0; i < 8 && PQgetlength(r, 0, 0) == 8; i++)
		u = u << 8 | b[i];
	out->size = (int64_t)u;
	snprintf(out->hash, sizeof out->hash, "%.*s", PQgetlength(r, 0, 1), PQgetvalue(r, 0, 1));
	b = (const unsigned char *)PQgetvalue(r, 0, 3);
	u = 0;
	for (int i = 0; i < 8 && PQgetlength(r, 0, 3) == 8; i++)
		u = u << 8 | b[i];
	out->group_id = (int64_t)u;
	snprintf(out->host, sizeof out->host, "%.*s", PQgetlength(r, 0, 5), PQgetvalue(r, 0, 5));
	if (PQgetlength(r, 0, 4) != 1 || PQgetvalue(r, 0, 4)[0] != 1) {
		PQclear(r);
		return kp_error_set(err, KP_ERR_DB, 0, -1,
		                    "%s: report @%lld has no archive (the index is damaged)", db->display,
		                    (long long)id);
	}
	int blen = PQgetlength(r, 0, 2);
	out->z = malloc(blen > 0 ? (size_t)blen : 1);
	if (out->z && blen > 0)
		memcpy(out->z, PQgetvalue(r, 0, 2), (size_t)blen);
	out->zlen = blen > 0 ? (size_t)blen : 0;
	PQclear(r);
	return out->z ? KP_OK : kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
}

kp_status kpi__pg_report_ids(kpi_db *h, int64_t **out, size_t *nout, kp_error *err)
{
	*out = NULL;
	*nout = 0;
	PGresult *r = kpi__pg_run(PG(h), "SELECT id FROM kpbrowse.reports ORDER BY id", NULL, PGRES_TUPLES_OK,
	                          err, "listing reports");
	if (!r)
		return KP_ERR_DB;
	int n = PQntuples(r);
	int64_t *ids = malloc((n ? (size_t)n : 1) * sizeof *ids);
	if (!ids) {
		PQclear(r);
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	}
	for (int i = 0; i < n; i++)
		ids[i] = kpi__pg_val_int(r, i, 0);
	PQclear(r);
	*out = ids;
	*nout = (size_t)n;
	return KP_OK;
}

kp_status kpi__pg_report_regroup(kpi_db *h, int64_t id, const char *headline,
                                 const char *exact_key, int64_t gid, kp_error *err)
{
	kpi__pg_params p = {0};
	kpi__pg_int(&p, id);
	kpi__pg_text(&p, headline);
	kpi__pg_text(&p, exact_key);
	kpi__pg_int(&p, gid);
	return kpi__pg_cmd(PG(h), "UPDATE kpbrowse.reports SET headline = $2, exact_key = $3, group_id = $4 "
	                   "WHERE id = $1", &p, err, "updating a report");
}

kp_status kpi__pg_report_facts(kpi_db *h, int64_t id, const kpi__facts *f, kp_error *err)
{
	kpi__pg_params p = {0};
	kpi__pg_int(&p, id);
	kpi__pg_text(&p, f->kind);
	kpi__pg_text(&p, f->zone);
	kpi__pg_int(&p, f->ts);
	if (PG(h)->migrating && PG(h)->migrating < 12) /* a migration's fill before the class column */
		return kpi__pg_cmd(PG(h), "UPDATE kpbrowse.reports SET kind = $2, zone = $3, ts = $4 WHERE id = $1",
		                   &p, err, "updating a report");
	kpi__pg_text(&p, f->cls);
	return kpi__pg_cmd(PG(h), "UPDATE kpbrowse.reports SET kind = $2, zone = $3, ts = $4, class = $5 WHERE id = $1",
	                   &p, err, "updating a report");
}

/* The schema 11 fill's: the owner's UPDATE (db init), never a writer's. */
kp_status kpi__pg_report_rehash(kpi_db *h, int64_t id, const char *hash, kp_error *err)
{
	kpi__pg_params p = {0};
	kpi__pg_int(&p, id);
	kpi__pg_text(&p, hash);
	return kpi__pg_cmd(PG(h), "UPDATE kpbrowse.reports SET content_hash = $2 WHERE id = $1", &p, err,
	                   "recording a content hash");
}

/* ---- groups ---- */

kp_status kpi__pg_group_add(kpi_db *h, const char *key, const char *title, const char *culprit,
                            bool retitle, int64_t *gid, kp_error *err)
{
	kpi__pg *db = PG(h);
	*gid = 0;
	kpi__pg_params p = {0};
	kpi__pg_text(&p, key);
	kpi__pg_text(&p, title);
	kpi__pg_text(&p, culprit);
	/* kpbrowse.group_add looks first, so that an existing group costs no
	 * identity value (ids then match the sqlite store's); its insert
	 * settles a race and a second look sees the winner */
	PGresult *r = kpi__pg_run(db, "SELECT kpbrowse.group_add($1, $2, $3)", &p, PGRES_TUPLES_OK, err,
	                          "recording a group");
	if (!r)
		return KP_ERR_DB;
	if (PQntuples(r) == 1)
		*gid = kpi__pg_val_int(r, 0, 0);
	PQclear(r);
	if (!*gid)
		return kp_error_set(err, KP_ERR_DB, 0, -1, "%s: finding a group: not found", db->display);
	/* re-signing: the owner's (a writer may not retitle) */
	if (!retitle)
		return KP_OK;
	kpi__pg_params t = {0};
	kpi__pg_int(&t, *gid);
	kpi__pg_text(&t, title);
	kpi__pg_text(&t, culprit);
	return kpi__pg_cmd(db, "UPDATE kpbrowse.groups SET title = $2, culprit = $3 WHERE id = $1", &t, err,
	                   "updating a group");
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* A full recount (re-signing): in ascending id order, the order every
 * writer locks group rows in. */
kp_status kpi__pg_groups_refresh(kpi_db *h, const int64_t *gids, size_t n, kp_error *err)
{
	kpi__pg *db = PG(h);
	if (!n)
		return KP_OK;
	int64_t *v = malloc(n * sizeof *v);
	if (!v)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	memcpy(v, gids, n * sizeof *v);
	qsort(v, n, sizeof *v, cmp_id);
	kp_status st = KP_OK;
	for (size_t i = 0; i < n && st == KP_OK; i++) {
		kpi__pg_params p = {0};
		kpi__pg_int(&p, v[i]);
		PGresult *r = kpi__pg_run(db, "SELECT kpbrowse.group_recount($1)", &p, PGRES_TUPLES_OK, err,
		                          "updating group counts");
		st = r ? KP_OK : KP_ERR_DB;
		PQclear(r);
	}
	free(v);
	return st;
}

kp_status kpi__pg_groups_prune(kpi_db *h, kp_error *err)
{
	(void)h;
	(void)err; /* no DELETE for the writer: empty groups stay, unlisted */
	return KP_OK;
}

