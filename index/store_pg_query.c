/* store_pg_query.c: the PostgreSQL store's listings, searches and
 * pages (contract: store_pg.c, kpi_store.h). */
#include "store_pg.h"
#include "dates.h"
#include "kp_vec.h"

#include <stdlib.h>
#include <string.h>

/* ---- queries ---- */

/* A row's path: the most recent of the login that pushed the report (a
 * path row of another login may name any report: its Mac's copy). */
#define ROW_COLS \
	"r.id, r.id, r.timestamp, r.os_version, r.headline, r.group_id, g.count, 1, "
#define ROW_TAIL \
	", (SELECT path FROM kpbrowse.paths p WHERE p.report_id = r.id ORDER BY p.pushed_by = r.pushed_by " \
	"DESC, p.seen_at DESC, p.path COLLATE \"C\" LIMIT 1), r.host, r.host_key, r.kind, r.class"

/* Row i of a report-row result (columns: id, seq, timestamp, os_version,
 * headline, group_id, group count, archived, match uuid, name, rank, path,
 * host, host key, kind, class); m (filled when not NULL) and uuid (37 bytes) are
 * the caller's, lent to the row. */
static kpi_report_row report_row(const PGresult *r, int i, kpi_match *m, char *uuid)
{
	if (m) {
		kpi__uuid_pretty(kpi__pg_val(r, i, 8), uuid);
		*m = (kpi_match){uuid[0] ? uuid : NULL, kpi__pg_val(r, i, 9), kpi__role_name((int)kpi__pg_val_int(r, i, 10))};
	}
	return (kpi_report_row){
		.id = kpi__pg_val_int(r, i, 0),
		.seq = kpi__pg_val_int(r, i, 1),
		.path = kpi__pg_val(r, i, 11),
		.timestamp = kpi__pg_val(r, i, 2),
		.os_version = kpi__pg_val(r, i, 3),
		.headline = kpi__pg_val(r, i, 4),
		.group_id = kpi__pg_val_int(r, i, 5),
		.group_count = kpi__pg_val_int(r, i, 6),
		.archived = kpi__pg_val_int(r, i, 7) != 0,
		.host = kpi__pg_val(r, i, 12),
		.host_key = kpi__pg_val(r, i, 13),
		.kind = kpi__pg_val(r, i, 14),
		.cls = kpi__pg_val(r, i, 15),
		.match = m,
	};
}

/* Rows as in the sqlite store's run_rows: one call per report (later rows
 * of the same report are its weaker matches). */
static kp_status run_rows(kpi__pg *db, const char *sql, kpi__pg_params *p, bool with_match,
                          kpi_report_fn fn, void *ctx, size_t *nfound, kp_error *err)
{
	PGresult *r = kpi__pg_run(db, sql, p, PGRES_TUPLES_OK, err, "querying");
	if (nfound)
		*nfound = 0;
	if (!r)
		return KP_ERR_DB;
	size_t n = 0;
	int64_t last = -1;
	for (int i = 0; i < PQntuples(r); i++) {
		int64_t id = kpi__pg_val_int(r, i, 0);
		if (id == last)
			continue;
		last = id;
		char uuid[37];
		kpi_match m;
		kpi_report_row row = report_row(r, i, with_match ? &m : NULL, uuid);
		n++;
		if (fn && fn(ctx, &row))
			break;
	}
	PQclear(r);
	if (nfound)
		*nfound = n;
	return KP_OK;
}

kp_status kpi__pg_list_reports(kpi_db *h, const char *host, kpi_report_fn fn, void *ctx,
                               kp_error *err)
{
	if (!host)
		return run_rows(PG(h), "SELECT " ROW_COLS "NULL, NULL, NULL" ROW_TAIL " FROM kpbrowse.reports r "
		                       "JOIN kpbrowse.groups g ON g.id = r.group_id ORDER BY r.ts DESC, r.id DESC",
		                NULL, false, fn, ctx, NULL, err);
	kpi__pg_params p = {0};
	kpi__pg_text(&p, host);
	return run_rows(PG(h), "SELECT " ROW_COLS "NULL, NULL, NULL" ROW_TAIL " FROM kpbrowse.reports r "
	                       "JOIN kpbrowse.groups g ON g.id = r.group_id "
	                       "WHERE r.host = $1 OR lower(r.host_key) = lower($1) "
	                       "ORDER BY r.ts DESC, r.id DESC",
	                &p, false, fn, ctx, NULL, err);
}

/* The epoch in column col, written as the report in column raw states it */
static void time_of(const PGresult *r, int row, int col, int raw, char out[32])
{
	out[0] = '\0';
	if (!PQgetisnull(r, row, col))
		kpi__seen_time(kpi__pg_val_int(r, row, col), kpi__pg_val(r, row, raw), out);
}

/* the first and last seen reports' own timestamps (columns 8 and 9) */
#define SEEN_RAW "(SELECT timestamp FROM kpbrowse.reports r WHERE r.group_id = g.id AND r.ts = g.first_seen LIMIT 1), " \
                 "(SELECT timestamp FROM kpbrowse.reports r WHERE r.group_id = g.id AND r.ts = g.last_seen LIMIT 1)"

/* with_ids: every group's report ids too (column 7) */
static kp_status list_groups(kpi_db *h, bool with_ids, kpi_group_fn fn, void *ctx, kp_error *err)
{
	PGresult *r = kpi__pg_run(PG(h), with_ids
	                          ? "SELECT g.id, g.title, g.culprit, g.count, g.first_seen, g.last_seen, "
	                            "g.hosts, array(SELECT id FROM kpbrowse.reports WHERE group_id = g.id "
	                            "ORDER BY ts DESC, id DESC), " SEEN_RAW " FROM kpbrowse.groups g "
	                            "WHERE g.count > 0 ORDER BY g.count DESC, g.last_seen DESC NULLS LAST, g.id"
	                          : "SELECT g.id, g.title, g.culprit, g.count, g.first_seen, g.last_seen, "
	                            "g.hosts, NULL, " SEEN_RAW " FROM kpbrowse.groups g "
	                            "WHERE g.count > 0 ORDER BY g.count DESC, g.last_seen DESC NULLS LAST, g.id",
	                          NULL, PGRES_TUPLES_OK, err, "listing groups");
	if (!r)
		return KP_ERR_DB;
	kp_status st = KP_OK;
	for (int i = 0; i < PQntuples(r) && st == KP_OK; i++) {
		kpi_group_row g = {
			.group_id = kpi__pg_val_int(r, i, 0),
			.title = kpi__pg_val(r, i, 1),
			.culprit = kpi__pg_val(r, i, 2),
			.count = kpi__pg_val_int(r, i, 3),
			.hosts = kpi__pg_val_int(r, i, 6),
		};
		char first[32], last[32];
		time_of(r, i, 4, 8, first);
		time_of(r, i, 5, 9, last);
		g.first_seen = first[0] ? first : NULL;
		g.last_seen = last[0] ? last : NULL;
		int64_t *ids = NULL;
		size_t n = 0, cap = 0;
		/* "{3,2,1}" */
		for (const char *s = kpi__pg_val(r, i, 7); s && *s;) {
			if (*s == '{' || *s == ',') {
				s++;
				continue;
			}
			char *end;
			int64_t id = strtoll(s, &end, 10);
			if (end == s)
				break;
			int64_t *slot = kp_vec_push((void **)&ids, &n, &cap, sizeof *ids);
			if (!slot) {
				st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
				break;
			}
			*slot = id;
			s = end;
		}
		g.report_ids = ids;
		g.nreport_ids = n;
		int stop = st == KP_OK && fn ? fn(ctx, &g) : 0;
		free(ids);
		if (stop)
			break;
	}
	PQclear(r);
	return st;
}

kp_status kpi__pg_list_groups(kpi_db *h, kpi_group_fn fn, void *ctx, kp_error *err)
{
	return list_groups(h, true, fn, ctx, err);
}

kp_status kpi__pg_list_group_counts(kpi_db *h, kpi_group_fn fn, void *ctx, kp_error *err)
{
	return list_groups(h, false, fn, ctx, err);
}

/* The counts per group, day and OS version that schema 13's triggers
 * keep (kpbrowse.group_days: a few hundred rows where the reports are
 * tens of thousands; the day floor(ts / 86400) as the sqlite store's);
 * an OS version of NULL is kept as '' with no_os. */
kp_status kpi__pg_trend_rows(kpi_db *h, kpi__trend_fn fn, void *ctx, kp_error *err)
{
	PGresult *r = kpi__pg_run(PG(h),
	                          "SELECT group_id, day, CASE WHEN NOT no_os THEN os_version END, n "
	                          "FROM kpbrowse.group_days WHERE n > 0",
	                          NULL, PGRES_TUPLES_OK, err, "reading the groups' trends");
	if (!r)
		return KP_ERR_DB;
	for (int i = 0; i < PQntuples(r); i++)
		if (fn(ctx, kpi__pg_val_int(r, i, 0), kpi__pg_val_int(r, i, 1), kpi__pg_val(r, i, 2),
		       kpi__pg_val_int(r, i, 3)))
			break;
	PQclear(r);
	return KP_OK;
}

kp_status kpi__pg_list_hosts(kpi_db *h, kpi_host_fn fn, void *ctx, kp_error *err)
{
	PGresult *r = kpi__pg_run(PG(h),
	                          "SELECT (SELECT host FROM kpbrowse.reports x WHERE x.id = h.last_id), h.key, "
	                          "(SELECT model FROM kpbrowse.reports x WHERE x.id = h.model_id), h.builds, h.n, h.last, "
	                          "(SELECT timestamp FROM kpbrowse.reports x WHERE coalesce(x.host_key, x.host, '') = h.ident "
	                          "AND x.ts = h.last LIMIT 1) "
	                          "FROM (SELECT coalesce(host_key, host, '') AS ident, max(host_key) AS key, count(*) AS n, "
	                          "max(" DATED_TS ") AS last, max(id) AS last_id, max(id) FILTER (WHERE model IS NOT NULL) AS model_id, "
	                          "string_agg(DISTINCT os_version, E'\\n' ORDER BY os_version) AS builds "
	                          "FROM kpbrowse.reports GROUP BY 1) h ORDER BY h.last DESC NULLS LAST, h.ident COLLATE \"C\"",
	                          NULL, PGRES_TUPLES_OK, err, "listing hosts");
	if (!r)
		return KP_ERR_DB;
	for (int i = 0; i < PQntuples(r); i++) {
		char last[32];
		time_of(r, i, 5, 6, last);
		kpi_host_row row = {
			.host = kpi__pg_val(r, i, 0),
			.host_key = kpi__pg_val(r, i, 1),
			.model = kpi__pg_val(r, i, 2),
			.builds = kpi__pg_val(r, i, 3),
			.reports = kpi__pg_val_int(r, i, 4),
			.last_seen = last[0] ? last : NULL,
		};
		if (fn && fn(ctx, &row))
			break;
	}
	PQclear(r);
	return KP_OK;
}

/* ---- pages ---- */

/* Rows of a page query (run_rows' columns, then r.ts as column 15): one
 * per report already; sets page's rows, done and cursor. */
static kp_status run_page(kpi__pg *db, const char *sql, kpi__pg_params *p, bool with_match,
                          kpi_page *page, kpi_report_fn fn, void *ctx, kp_error *err)
{
	PGresult *r = kpi__pg_run(db, sql, p, PGRES_TUPLES_OK, err, "querying");
	if (!r)
		return KP_ERR_DB;
	int n = PQntuples(r), take = page->limit && (size_t)n > page->limit ? (int)page->limit : n;
	page->done = take == n;
	for (int i = 0; i < take; i++) {
		char uuid[37];
		kpi_match m;
		kpi_report_row row = report_row(r, i, with_match ? &m : NULL, uuid);
		page->after_ts = kpi__pg_val_int(r, i, 16);
		page->after_id = row.id;
		page->rows++;
		if (fn && fn(ctx, &row)) {
			page->done = page->done && i == take - 1;
			break;
		}
	}
	PQclear(r);
	return KP_OK;
}

/* The first statement's value, a count. */
static kp_status count_of(kpi__pg *db, const char *sql, kpi__pg_params *p, size_t *out, kp_error *err)
{
	PGresult *r = kpi__pg_run(db, sql, p, PGRES_TUPLES_OK, err, "counting");
	if (!r)
		return KP_ERR_DB;
	*out = PQntuples(r) == 1 ? (size_t)kpi__pg_val_int(r, 0, 0) : 0;
	PQclear(r);
	return KP_OK;
}

/* The keyset and the limit as $n.. of p: (ts, id) to continue after (the
 * largest for the first page) and one row more than the page, to know
 * whether another follows (NULL: no limit). */
static void page_params(kpi__pg_params *p, const kpi_page *page)
{
	kpi__pg_int(p, page->after_id > 0 ? page->after_ts : INT64_MAX);
	kpi__pg_int(p, page->after_id > 0 ? page->after_id : INT64_MAX);
	if (page->limit)
		kpi__pg_int(p, (int64_t)page->limit + 1);
	else
		kpi__pg_text(p, NULL);
}

/* A page's rows: the reports the filter selects, each with its best match
 * (MATCH: a lateral subquery over images as m, or nothing and NULLs), after
 * the keyset (ts, id) $K, $K+1 with the limit $K+2 (KEYSET(K)). */
#define PAGE_SQL(MATCH_COLS, MATCH, FILTER, KEYSET) \
	"SELECT " ROW_COLS MATCH_COLS ROW_TAIL ", r.ts FROM kpbrowse.reports r " \
	"JOIN kpbrowse.groups g ON g.id = r.group_id " MATCH " WHERE " FILTER KEYSET
#define KEYSET(A, B, L) \
	" AND (r.ts, r.id) < ($" A "::bigint, $" B "::bigint) ORDER BY r.ts DESC, r.id DESC LIMIT $" L "::bigint"
/* A report's best image row (lowest rank, then uuid, then name) where its
 * images hold one, else its first loaded kext (KX, a condition on kexts
 * x; schema 8) as rank 2, "image": as the sqlite store's (byte order,
 * COLLATE "C", whatever the server's locale). */
#define BEST_IMAGE(COND, KX) \
	"CROSS JOIN LATERAL (SELECT u.uuid_hex, u.name, u.rank FROM (SELECT 0 AS src, i.uuid_hex, i.name, " \
	"i.rank FROM kpbrowse.images i WHERE i.report_id = r.id AND " COND " AND i.live UNION ALL SELECT 1, " \
	"x.uuid_hex, x.name, 2 FROM kpbrowse.kext_set_members s JOIN kpbrowse.kexts x ON x.id = s.kext_id " \
	"WHERE s.set_id = r.kext_set AND " KX ") u ORDER BY u.src, u.rank, u.uuid_hex COLLATE \"C\", " \
	"u.name COLLATE \"C\" LIMIT 1) m"
/* the reports whose images or loaded kexts match */
#define MATCH_IDS(COND, KX) \
	"(SELECT i.report_id FROM kpbrowse.images i WHERE " COND " AND i.live UNION SELECT kr.id FROM " \
	"kpbrowse.reports kr WHERE kr.kext_set IN (SELECT s.set_id FROM kpbrowse.kexts x JOIN " \
	"kpbrowse.kext_set_members s ON s.kext_id = x.id WHERE " KX "))"
#define UUID_COND "i.uuid_hex BETWEEN $1 AND $2 AND i.uuid_hex <> ''"
#define KEXT_COND "lower(i.name) = lower($1) AND i.name <> ''"
/* a bundle id's last part, through images_last (schema 6) */
#define KEXT_LAST_COND "i.name <> '' AND lower(" KPI__LAST_PART_SQL("i.name") ") = lower($1)"
#define UUID_KX "x.uuid_hex BETWEEN $1 AND $2 AND x.uuid_hex <> ''"
#define KEXT_KX "lower(x.name) = lower($1) AND x.name <> ''"
#define KEXT_LAST_KX "x.name <> '' AND lower(" KPI__LAST_PART_SQL("x.name") ") = lower($1)"
#define ZONE_COND "lower(r.zone) = lower($1)"

kp_status kpi__pg_search_page(kpi_db *h, kpi__search kind, const char *arg, kpi_page *page,
                              kpi_report_fn fn, void *ctx, kp_error *err)
{
	kpi__pg *db = PG(h);
	page->rows = 0;
	kpi__pg_params p = {0};
	char lo[33], hi[33];   /* bound: live until the queries ran */
	if (kind == KPI__SEARCH_UUID) {
		kpi__uuid_range(arg, lo, hi);
		kpi__pg_text(&p, lo);
		kpi__pg_text(&p, hi);
	} else {
		kpi__pg_text(&p, arg);
	}
	kp_status st = KP_OK;
	if (page->after_id <= 0)
		st = count_of(db, kind == KPI__SEARCH_UUID
		                      ? "SELECT count(*) FROM " MATCH_IDS(UUID_COND, UUID_KX) " c"
		                  : kind == KPI__SEARCH_KEXT
		                      ? "SELECT count(*) FROM " MATCH_IDS(KEXT_COND, KEXT_KX) " c"
		                  : kind == KPI__SEARCH_KEXT_LAST
		                      ? "SELECT count(*) FROM " MATCH_IDS(KEXT_LAST_COND, KEXT_LAST_KX) " c"
		                  : kind == KPI__SEARCH_ZONE
		                      ? "SELECT count(*) FROM kpbrowse.reports r WHERE " ZONE_COND
		                      : "SELECT count(*) FROM kpbrowse.panic_text t "
		                        "WHERE t.body @@ plainto_tsquery('simple', $1)",
		              &p, &page->total, err);
	if (st != KP_OK)
		return st;
	page_params(&p, page);
	/* Many matches, a page of few: walking reports newest first (each
	 * checked by its best match) finds the page after about limit x
	 * reports / total rows, whatever the planner's statistics say (a big
	 * push leaves them stale for a while); else the matches, sorted. */
	bool walk = page->limit && page->total && (kind == KPI__SEARCH_UUID || kind == KPI__SEARCH_KEXT);
	size_t nreports = 0;
	if (walk && (st = count_of(db, "SELECT max(id) FROM kpbrowse.reports", NULL, &nreports, err)) != KP_OK)
		return st;
	if (walk && (double)page->limit * (double)nreports < (double)page->total * (double)page->total)
		return run_page(db, kind == KPI__SEARCH_UUID
		                        ? PAGE_SQL("m.uuid_hex, m.name, m.rank", BEST_IMAGE(UUID_COND, UUID_KX), "true",
		                                   KEYSET("3", "4", "5"))
		                        : PAGE_SQL("m.uuid_hex, m.name, m.rank", BEST_IMAGE(KEXT_COND, KEXT_KX), "true",
		                                   KEYSET("2", "3", "4")),
		                &p, true, page, fn, ctx, err);
	switch (kind) {
	case KPI__SEARCH_UUID:
		return run_page(db, PAGE_SQL("m.uuid_hex, m.name, m.rank", BEST_IMAGE(UUID_COND, UUID_KX),
		                             "r.id IN " MATCH_IDS(UUID_COND, UUID_KX), KEYSET("3", "4", "5")),
		                &p, true, page, fn, ctx, err);
	case KPI__SEARCH_KEXT:
		return run_page(db, PAGE_SQL("m.uuid_hex, m.name, m.rank", BEST_IMAGE(KEXT_COND, KEXT_KX),
		                             "r.id IN " MATCH_IDS(KEXT_COND, KEXT_KX), KEYSET("2", "3", "4")),
		                &p, true, page, fn, ctx, err);
	case KPI__SEARCH_KEXT_LAST:
		return run_page(db, PAGE_SQL("m.uuid_hex, m.name, m.rank", BEST_IMAGE(KEXT_LAST_COND, KEXT_LAST_KX),
		                             "r.id IN " MATCH_IDS(KEXT_LAST_COND, KEXT_LAST_KX), KEYSET("2", "3", "4")),
		                &p, true, page, fn, ctx, err);
	case KPI__SEARCH_ZONE:
		return run_page(db, PAGE_SQL("NULL, NULL, NULL", "", ZONE_COND, KEYSET("2", "3", "4")),
		                &p, false, page, fn, ctx, err);
	case KPI__SEARCH_TEXT:
		break;
	}
	/* PostgreSQL's own full-text search, as pg_search */
	return run_page(db, PAGE_SQL("NULL, NULL, NULL", "", "r.id IN (SELECT t.report_id FROM "
	                             "kpbrowse.panic_text t WHERE t.body @@ plainto_tsquery('simple', $1))",
	                             KEYSET("2", "3", "4")),
	                &p, false, page, fn, ctx, err);
}

kp_status kpi__pg_list_page(kpi_db *h, kpi_page *page, kpi_report_fn fn, void *ctx,
                            kp_error *err)
{
	kpi__pg *db = PG(h);
	page->rows = 0;
	if (page->after_id <= 0) {
		kp_status st = count_of(db, "SELECT count(*) FROM kpbrowse.reports", NULL, &page->total, err);
		if (st != KP_OK)
			return st;
	}
	kpi__pg_params p = {0};
	page_params(&p, page);
	return run_page(db, PAGE_SQL("NULL, NULL, NULL", "", "true", KEYSET("1", "2", "3")), &p, false,
	                page, fn, ctx, err);
}

