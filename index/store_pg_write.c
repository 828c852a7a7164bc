/* store_pg_write.c: the PostgreSQL store's writes: paths, reports,
 * archives and groups (contract: store_pg.c, kpi_store.h). */
#include "store_pg.h"

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
	PGresult *r = kpi__pg_run(db, "SELECT report_id, size, mtime FROM kpbrowse.paths "
	                          "WHERE host = $1 AND path = $2", &p, PGRES_TUPLES_OK, err,
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
	return kpi__pg_cmd(PG(h), "INSERT INTO kpbrowse.paths(host, path, report_id, size, mtime, seen_at, skip_reason) "
	                   "VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (host, path) DO UPDATE SET "
	                   "report_id = excluded.report_id, size = excluded.size, mtime = excluded.mtime, "
	                   "seen_at = excluded.seen_at, skip_reason = excluded.skip_reason",
	                   &p, err, "recording a path");
}

kp_status kpi__pg_report_paths(kpi_db *h, int64_t id, kpi__path_fn fn, void *ctx, kp_error *err)
{
	kpi__pg_params p = {0};
	kpi__pg_int(&p, id);
	PGresult *r = kpi__pg_run(PG(h), "SELECT path FROM kpbrowse.paths WHERE report_id = $1 "
	                          "ORDER BY seen_at DESC, path COLLATE \"C\"", &p, PGRES_TUPLES_OK, err, "listing paths");
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

/* Images in statements of up to IMG_CHUNK rows: ($1, $2, $3, $4), ($1, $5, ...). */
#define IMG_CHUNK 200

static int cmp_image(const void *a, const void *b)
{
	const kpi__image *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	int c = strcmp(x->uuid_hex, y->uuid_hex);
	return c ? c : strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

/* Records images (live), each once: one statement may not name a row twice. */
static kp_status add_images(kpi__pg *db, int64_t id, const kpi__image *given, size_t ngiven,
                            kp_error *err)
{
	kpi__image *im = malloc((ngiven ? ngiven : 1) * sizeof *im);
	if (!im)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	if (ngiven)
		memcpy(im, given, ngiven * sizeof *im);
	qsort(im, ngiven, sizeof *im, cmp_image);
	size_t n = 0;
	for (size_t i = 0; i < ngiven; i++)
		if (!n || cmp_image(&im[n - 1], &im[i]) != 0)
			im[n++] = im[i];
	char idbuf[24];
	snprintf(idbuf, sizeof idbuf, "%" PRId64, id);
	kp_status st = KP_OK;
	for (size_t at = 0; at < n && st == KP_OK; at += IMG_CHUNK) {
		size_t k = n - at < IMG_CHUNK ? n - at : IMG_CHUNK;
		char *sql = malloc(128 + k * 40);
		const char **v = malloc((1 + 3 * k) * sizeof *v);
		char (*rank)[12] = malloc(k * sizeof *rank);
		if (!sql || !v || !rank) {
			free(sql);
			free(v);
			free(rank);
			free(im);
			return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
		}
		size_t o = (size_t)sprintf(sql, "INSERT INTO kpbrowse.images(report_id, rank, uuid_hex, name) VALUES ");
		v[0] = idbuf;
		for (size_t i = 0; i < k; i++) {
			int b = 2 + 3 * (int)i;
			o += (size_t)sprintf(sql + o, "%s($1, $%d::int, $%d, $%d)", i ? ", " : "", b, b + 1, b + 2);
			snprintf(rank[i], sizeof rank[i], "%d", im[at + i].rank);
			v[1 + 3 * i] = rank[i];
			v[2 + 3 * i] = im[at + i].uuid_hex;
			v[3 + 3 * i] = kpi__pg_valid_text(db, im[at + i].name ? im[at + i].name : "");
		}
		strcpy(sql + o, " ON CONFLICT (report_id, rank, uuid_hex, name) DO UPDATE SET live = true");
		PGresult *r = PQexecParams(db->conn, sql, (int)(1 + 3 * k), NULL, v, NULL, NULL, 0);
		if (PQresultStatus(r) != PGRES_COMMAND_OK)
			st = kpi__pg_fail(db, r, err, "recording images");
		PQclear(r);
		free(sql);
		free(v);
		free(rank);
	}
	free(im);
	return st;
}

/* Runs head, then chunk rows of "($a, $b)" with first ... as $1 (when
 * not NULL) and the kexts' name and UUID after, then tail, for every chunk
 * of ks. */
static kp_status kexts_chunked(kpi__pg *db, const char *head, const char *tail, const char *first,
                               const kpi__kext_set *ks, kp_error *err, const char *what)
{
	kp_status st = KP_OK;
	int base = first ? 2 : 1;
	for (size_t at = 0; at < ks->n && st == KP_OK; at += IMG_CHUNK) {
		size_t k = ks->n - at < IMG_CHUNK ? ks->n - at : IMG_CHUNK;
		char *sql = malloc(strlen(head) + strlen(tail) + k * 24 + 1);
		const char **v = malloc((1 + 2 * k) * sizeof *v);
		if (!sql || !v) {
			free(sql);
			free(v);
			return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
		}
		size_t o = (size_t)sprintf(sql, "%s", head);
		int n = 0;
		if (first)
			v[n++] = first;
		for (size_t i = 0; i < k; i++) {
			int b = base + 2 * (int)i;
			o += (size_t)sprintf(sql + o, "%s($%d, $%d)", i ? ", " : "", b, b + 1);
			v[n++] = kpi__pg_valid_text(db, ks->kexts[at + i].name);
			v[n++] = ks->kexts[at + i].uuid_hex;
		}
		strcpy(sql + o, tail);
		PGresult *r = PQexecParams(db->conn, sql, n, NULL, v, NULL, NULL, 0);
		if (PQresultStatus(r) != PGRES_COMMAND_OK)
			st = kpi__pg_fail(db, r, err, what);
		PQclear(r);
		free(sql);
		free(v);
	}
	return st;
}

/* The id of the kext set ks (schema 8) as text into out ("" when ks is
 * empty), added with its members when new.  A set another writer is adding
 * waits on its hash until that writer commits, members and all. */
static kp_status kset_id(kpi__pg *db, const kpi__kext_set *ks, char out[24], kp_error *err)
{
	out[0] = '\0';
	if (!ks->n)
		return KP_OK;
	kpi__pg_params h = {0};
	kpi__pg_text(&h, ks->hash);
	PGresult *r = kpi__pg_run(db, "INSERT INTO kpbrowse.kext_sets(hash) VALUES ($1) ON CONFLICT (hash) "
	                          "DO NOTHING RETURNING id", &h, PGRES_TUPLES_OK, err, "recording a kext set");
	if (!r)
		return KP_ERR_DB;
	bool added = PQntuples(r) == 1;
	if (added)
		snprintf(out, 24, "%s", PQgetvalue(r, 0, 0));
	PQclear(r);
	if (!added) {
		if (!(r = kpi__pg_run(db, "SELECT id FROM kpbrowse.kext_sets WHERE hash = $1", &h, PGRES_TUPLES_OK,
		                      err, "looking up a kext set")))
			return KP_ERR_DB;
		if (PQntuples(r) == 1)
			snprintf(out, 24, "%s", PQgetvalue(r, 0, 0));
		PQclear(r);
		return out[0] ? KP_OK
		              : kp_error_set(err, KP_ERR_DB, 0, -1, "%s: a kext set vanished", db->display);
	}
	kp_status st = kexts_chunked(db, "INSERT INTO kpbrowse.kexts(name, uuid_hex) VALUES ",
	                             " ON CONFLICT DO NOTHING", NULL, ks, err, "recording kexts");
	if (st == KP_OK)
		st = kexts_chunked(db, "INSERT INTO kpbrowse.kext_set_members(kext_id, set_id) SELECT k.id, "
		                   "$1::bigint FROM kpbrowse.kexts k WHERE (k.name, k.uuid_hex) IN (VALUES ",
		                   ") ON CONFLICT DO NOTHING", out, ks, err, "recording a kext set");
	return st;
}

kp_status kpi__pg_report_kexts(kpi_db *h, int64_t id, const kpi__kext_set *ks, kp_error *err)
{
	char set[24];
	kp_status st = kset_id(PG(h), ks, set, err);
	if (st != KP_OK)
		return st;
	kpi__pg_params p = {0};
	kpi__pg_int(&p, id);
	kpi__pg_text(&p, set[0] ? set : NULL);
	return kpi__pg_cmd(PG(h), "UPDATE kpbrowse.reports SET kext_set = $2::bigint WHERE id = $1", &p, err,
	                   "recording a report's kexts");
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

/* $6 (ts) when the report is dated, else NULL (least/greatest skip it). */
#define DATED_P6 "(CASE WHEN $6::bigint > " KPI__UNDATED_SQL " THEN $6::bigint END)"

kp_status kpi__pg_report_add(kpi_db *h, const kpi__new_report *r, int64_t *id, bool *added,
                             kp_error *err)
{
	kpi__pg *db = PG(h);
	*added = false;
	*id = 0;
	kpi__pg_params p = {0};
	report_params(&p, r);
	kpi__pg_text(&p, r->text);
	kpi__pg_text(&p, r->host_key ? r->host_key : r->host ? r->host : "");
	report_facts_params(&p, r);
	char set[24];
	kp_status ks = kset_id(db, &r->kexts, set, err);
	if (ks != KP_OK)
		return ks;
	kpi__pg_text(&p, set[0] ? set : NULL);
	/* One statement: the report, its text, and its group's counts (count,
	 * first and last seen, and the host when it is new to the group), in
	 * the lock order of the file's comment. */
	PGresult *res = kpi__pg_run(db, "WITH r AS (INSERT INTO kpbrowse.reports(content_hash, incident_id, size, "
	                            "format, timestamp, ts, os_version, kernel_uuid, headline, exact_key, group_id, "
	                            "indexed_at, host, host_key, model, kind, zone, kext_set) VALUES ($1, $2, $3, $4, $5, "
	                            "$6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $18, $19, $20::bigint) "
	                            "ON CONFLICT DO NOTHING RETURNING id), "
	                            "t AS (INSERT INTO kpbrowse.panic_text(report_id, body) "
	                            "SELECT id, to_tsvector('simple', $16::text) FROM r WHERE $16::text IS NOT NULL), "
	                            "h AS (INSERT INTO kpbrowse.group_hosts(group_id, ident) SELECT $11, $17 FROM r "
	                            "ON CONFLICT DO NOTHING RETURNING 1), "
	                            "g AS (UPDATE kpbrowse.groups SET count = count + 1, "
	                            "hosts = hosts + (SELECT count(*) FROM h), first_seen = least(first_seen, " DATED_P6 "), "
	                            "last_seen = greatest(last_seen, " DATED_P6 ") WHERE id = $11 AND EXISTS (SELECT 1 FROM r)) "
	                            "SELECT id FROM r",
	                            &p, PGRES_TUPLES_OK, err, "recording a report");
	if (!res)
		return KP_ERR_DB;
	if (PQntuples(res) == 1)
		*id = kpi__pg_val_int(res, 0, 0);
	PQclear(res);
	if (!*id) {
		/* stored before, or by another writer who committed while we
		 * waited on its key: a new statement sees it */
		kp_status st = kpi__pg_report_find(h, r->content_hash, NULL, id, err);
		if (st == KP_OK && !*id && r->incident_id)
			st = kpi__pg_report_find(h, NULL, r->incident_id, id, err);
		if (st == KP_OK && !*id)
			st = kp_error_set(err, KP_ERR_DB, 0, -1, "%s: a report vanished while recording it",
			                  db->display);
		return st;
	}
	*added = true;
	return add_images(db, *id, r->images, r->nimages, err);
}

/* Why report id was not updated: it is not in the index, or row-level
 * security (roles.sql) hid it from this login's UPDATE while every login
 * reads it: a writer completes only reports it pushed itself. */
static kp_status replace_denied(kpi_db *h, int64_t id, kp_error *err)
{
	kpi__pg_params p = {0};
	kpi__pg_int(&p, id);
	PGresult *r = kpi__pg_run(PG(h), "SELECT 1 FROM kpbrowse.reports WHERE id = $1", &p,
	                          PGRES_TUPLES_OK, err, "looking up a report");
	if (!r)
		return KP_ERR_DB;
	bool seen = PQntuples(r) == 1;
	PQclear(r);
	if (!seen)
		return kp_error_set(err, KP_ERR_NOTFOUND, 0, -1, "no report @%lld in the index",
		                    (long long)id);
	return kp_error_set(err, KP_ERR_DB, 0, -1, "%s: permission denied while replacing @%lld (a "
	                    "report another login pushed: a writer completes only its own)",
	                    PG(h)->display, (long long)id);
}

/* Supersede in place (kpi_store.h).  No DELETE: the old images are marked
 * not live and the new ones (re)marked live; text and archive are
 * overwritten.  old_text is not needed (the tsvector is a column). */
kp_status kpi__pg_report_replace(kpi_db *h, int64_t id, const kpi__new_report *r,
                                 const char *old_text, const void *z, size_t zlen, kp_error *err)
{
	kpi__pg *db = PG(h);
	(void)old_text;
	kpi__pg_params p = {0};
	report_params(&p, r);
	kpi__pg_int(&p, id);
	report_facts_params(&p, r);
	char set[24];
	kp_status ks = kset_id(db, &r->kexts, set, err);
	if (ks != KP_OK)
		return ks;
	kpi__pg_text(&p, set[0] ? set : NULL);
	PGresult *res = kpi__pg_run(db, "UPDATE kpbrowse.reports SET content_hash = $1, incident_id = $2, size = $3, "
	                            "format = $4, timestamp = $5, ts = $6, os_version = $7, kernel_uuid = $8, "
	                            "headline = $9, exact_key = $10, group_id = $11, indexed_at = $12, host = $13, "
	                            "host_key = $14, model = $15, kind = $17, zone = $18, kext_set = $19::bigint "
	                            "WHERE id = $16",
	                            &p, PGRES_COMMAND_OK, err, "replacing a report");
	if (!res)
		return KP_ERR_DB;
	bool found = strcmp(PQcmdTuples(res), "1") == 0;
	PQclear(res);
	if (!found)
		return replace_denied(h, id, err);
	kpi__pg_params q = {0};
	kpi__pg_int(&q, id);
	kp_status st = kpi__pg_cmd(db, "UPDATE kpbrowse.images SET live = false WHERE report_id = $1", &q,
	                           err, "replacing images");
	if (st == KP_OK)
		st = add_images(db, id, r->images, r->nimages, err);
	if (st == KP_OK) {
		kpi__pg_params t = {0};
		kpi__pg_int(&t, id);
		kpi__pg_text(&t, r->text ? r->text : "");
		st = kpi__pg_cmd(db, "INSERT INTO kpbrowse.panic_text(report_id, body) VALUES ($1, "
		                 "to_tsvector('simple', $2)) ON CONFLICT (report_id) DO UPDATE SET body = excluded.body",
		                 &t, err, "replacing the panic text");
	}
	if (st == KP_OK) {
		kpi__pg_params a = {0};
		kpi__pg_int(&a, id);
		kpi__pg_bin(&a, z, zlen);
		st = kpi__pg_cmd(db, "INSERT INTO kpbrowse.archives(report_id, data) VALUES ($1, $2) "
		                 "ON CONFLICT (report_id) DO UPDATE SET data = excluded.data", &a, err,
		                 "replacing an archive");
	}
	return st;
}

kp_status kpi__pg_archive_add(kpi_db *h, int64_t id, const void *z, size_t zlen, kp_error *err)
{
	kpi__pg_params p = {0};
	kpi__pg_int(&p, id);
	kpi__pg_bin(&p, z, zlen);
	return kpi__pg_cmd(PG(h), "INSERT INTO kpbrowse.archives(report_id, data) VALUES ($1, $2) "
	                   "ON CONFLICT DO NOTHING", &p, err, "archiving a report");
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
	return kpi__pg_cmd(PG(h), "UPDATE kpbrowse.reports SET kind = $2, zone = $3, ts = $4 WHERE id = $1",
	                   &p, err, "updating a report");
}

/* ---- groups ---- */

kp_status kpi__pg_group_add(kpi_db *h, const char *key, const char *title, const char *culprit,
                            bool retitle, int64_t *gid, kp_error *err)
{
	kpi__pg *db = PG(h);
	*gid = 0;
	kpi__pg_params k = {0};
	kpi__pg_text(&k, key);
	/* Looked up first only so that an existing group costs no identity
	 * value (ids then match the sqlite store's); the insert below is what
	 * settles a race, and the second look sees its winner. */
	for (int pass = 0; pass < 2 && !*gid; pass++) {
		PGresult *r = kpi__pg_run(db, "SELECT id FROM kpbrowse.groups WHERE key = $1", &k, PGRES_TUPLES_OK,
		                          err, "finding a group");
		if (!r)
			return KP_ERR_DB;
		if (PQntuples(r) == 1)
			*gid = kpi__pg_val_int(r, 0, 0);
		PQclear(r);
		if (*gid || pass)
			break;
		kpi__pg_params p = {0};
		kpi__pg_text(&p, key);
		kpi__pg_text(&p, title);
		kpi__pg_text(&p, culprit);
		if (!(r = kpi__pg_run(db, "INSERT INTO kpbrowse.groups(key, title, culprit) VALUES ($1, $2, $3) "
		                      "ON CONFLICT (key) DO NOTHING RETURNING id", &p, PGRES_TUPLES_OK, err,
		                      "recording a group")))
			return KP_ERR_DB;
		if (PQntuples(r) == 1)
			*gid = kpi__pg_val_int(r, 0, 0);
		PQclear(r);
	}
	if (!*gid)
		return kp_error_set(err, KP_ERR_DB, 0, -1, "%s: finding a group: not found", db->display);
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
		st = kpi__pg_cmd(db, "INSERT INTO kpbrowse.group_hosts(group_id, ident) "
		                 "SELECT DISTINCT group_id, coalesce(host_key, host, '') FROM kpbrowse.reports "
		                 "WHERE group_id = $1 ON CONFLICT DO NOTHING", &p, err, "counting hosts");
		if (st == KP_OK)
			st = kpi__pg_cmd(db, "UPDATE kpbrowse.groups g SET count = s.c, hosts = s.h, "
			                 "first_seen = s.f, last_seen = s.l FROM (SELECT count(*) AS c, "
			                 "count(DISTINCT coalesce(host_key, host, '')) AS h, min(" DATED_TS ") AS f, "
			                 "max(" DATED_TS ") AS l FROM kpbrowse.reports WHERE group_id = $1) s WHERE g.id = $1",
			                 &p, err, "updating group counts");
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

