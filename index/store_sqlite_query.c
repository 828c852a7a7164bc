/* store_sqlite_query.c: the sqlite store's read ops: listing, searching,
 * paths, archives and meta. */
#include "store_sqlite.h"
#include "dates.h"
#include "kp_arena.h"
#include "kp_vec.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SQ(h) ((kpi__sq *)(h))

static const char *col_text(sqlite3_stmt *q, int i)
{
	const char *s = (const char *)sqlite3_column_text(q, i);
	return s && *s ? s : NULL;
}

kp_status kpi__sq_report_paths(kpi_db *h, int64_t id, kpi__path_fn fn, void *ctx, kp_error *err)
{
	kpi__sq *db = SQ(h);
	sqlite3_stmt *q = kpi__sq_stmt(db, Q_REPORT_PATHS, err);
	if (!q)
		return KP_ERR_DB;
	sqlite3_bind_int64(q, 1, id);
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		kpi__sq_pause p = kpi__sq_limit_pause(db);
		int stop = fn(ctx, (const char *)sqlite3_column_text(q, 0));
		kpi__sq_limit_resume(db, p);
		if (stop)
			break;
	}
	sqlite3_reset(q);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? KP_OK : kpi__sq_err(db, err, "listing paths");
}

static kp_status do_archive_get(kpi_db *h, int64_t id, kpi__archive *out, kp_error *err)
{
	kpi__sq *db = SQ(h);
	memset(out, 0, sizeof *out);
	sqlite3_stmt *s = kpi__sq_stmt(db, Q_REPORT_ARCHIVE, err);
	if (!s)
		return KP_ERR_DB;
	sqlite3_bind_int64(s, 1, id);
	int rc = sqlite3_step(s);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(s);
		if (rc == SQLITE_DONE)
			return kp_error_set(err, KP_ERR_NOTFOUND, 0, -1, "no report @%lld in the index",
			                    (long long)id);
		return kpi__sq_err(db, err, "reading the archive");
	}
	out->group_id = sqlite3_column_int64(s, 3);
	const unsigned char *host = sqlite3_column_text(s, 5);
	snprintf(out->host, sizeof out->host, "%s", host ? (const char *)host : "");
	const unsigned char *hash = sqlite3_column_text(s, 1);
	out->size = sqlite3_column_int64(s, 0);
	snprintf(out->hash, sizeof out->hash, "%s", hash ? (const char *)hash : "");
	if (!sqlite3_column_int(s, 4)) {
		sqlite3_reset(s);
		return kp_error_set(err, KP_ERR_DB, 0, -1,
		                    "%s: report @%lld has no archive (the index is damaged)", db->path,
		                    (long long)id);
	}
	const void *blob = sqlite3_column_blob(s, 2);
	int blen = sqlite3_column_bytes(s, 2);
	out->group_id = sqlite3_column_int64(s, 3);
	out->z = malloc(blen > 0 ? (size_t)blen : 1);
	if (out->z && blen > 0)
		memcpy(out->z, blob, (size_t)blen);
	out->zlen = blen > 0 ? (size_t)blen : 0;
	sqlite3_reset(s);
	return out->z ? KP_OK : kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
}

/* Every report's most recently seen path (ties: the smaller path, as
 * RECENT_PATH orders them), read in one pass: path[id] for ids up to max. */
typedef struct recent_paths {
	struct kp_arena *arena;
	const char **path;
	int64_t *seen;
	int64_t max;
	/* and every group's count: gcount[id], ghave[id] when the group exists */
	int64_t *gcount;
	bool *ghave;
	int64_t gmax;
} recent_paths;

static void recent_free(recent_paths *rp)
{
	kp_arena_free(rp->arena);
	free(rp->path);
	free(rp->seen);
	free(rp->gcount);
	free(rp->ghave);
}

/* max(id) of a table through its span statement (max id, row count);
 * false when there is no row or ids are too sparse for a table by id. */
static bool span(kpi__sq *db, kpi__sq_sql which, int64_t *max)
{
	sqlite3_stmt *q = kpi__sq_stmt(db, which, NULL);
	if (!q)
		return false;
	bool ok = sqlite3_step(q) == SQLITE_ROW;
	*max = ok ? sqlite3_column_int64(q, 0) : 0;
	int64_t count = ok ? sqlite3_column_int64(q, 1) : 0;
	sqlite3_reset(q);
	/* report ids are rowids, never deleted: dense from 1; group ids
	 * nearly so (emptied groups are removed) */
	return ok && *max >= 0 && *max <= 2 * count + 65536;
}

static bool groups_load(kpi__sq *db, recent_paths *rp)
{
	if (!span(db, Q_GROUP_SPAN, &rp->gmax))
		return false;
	rp->gcount = calloc((size_t)rp->gmax + 1, sizeof *rp->gcount);
	rp->ghave = calloc((size_t)rp->gmax + 1, sizeof *rp->ghave);
	sqlite3_stmt *q = rp->gcount && rp->ghave ? kpi__sq_stmt(db, Q_GROUP_COUNTS, NULL) : NULL;
	if (!q)
		return false;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(q, 0);
		if (id >= 0 && id <= rp->gmax) {
			rp->gcount[id] = sqlite3_column_int64(q, 1);
			rp->ghave[id] = true;
		}
	}
	sqlite3_reset(q);
	return rc == SQLITE_DONE;
}

/* False (nothing allocated) when the map cannot be built: ids too sparse
 * for a table by id, out of memory, or a failing query; the caller then
 * asks RECENT_PATH per row. */
static bool recent_load(kpi__sq *db, recent_paths *rp)
{
	memset(rp, 0, sizeof *rp);
	int64_t max;
	sqlite3_stmt *q;
	if (!span(db, Q_REPORT_SPAN, &max) || !groups_load(db, rp)) {
		recent_free(rp);
		return false;
	}
	rp->max = max;
	rp->path = calloc((size_t)max + 1, sizeof *rp->path);
	rp->seen = calloc((size_t)max + 1, sizeof *rp->seen);
	rp->arena = kp_arena_new();
	if (!rp->path || !rp->seen || !rp->arena || !(q = kpi__sq_stmt(db, Q_REPORT_PATHS_ALL, NULL))) {
		recent_free(rp);
		return false;
	}
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(q, 0), seen = sqlite3_column_int64(q, 1);
		const char *p = (const char *)sqlite3_column_text(q, 2);
		if (id < 1 || id > max || !p)
			continue; /* a path added after the span was read: not listed */
		const char *cur = rp->path[id];
		if (cur && (seen < rp->seen[id] || (seen == rp->seen[id] && strcmp(p, cur) >= 0)))
			continue;
		size_t n = (size_t)sqlite3_column_bytes(q, 2) + 1;
		char *c = kp_arena_alloc(rp->arena, n);
		if (!c)
			break;
		memcpy(c, p, n);
		rp->path[id] = c;
		rp->seen[id] = seen;
	}
	sqlite3_reset(q);
	if (rc != SQLITE_DONE) {
		recent_free(rp);
		return false;
	}
	return true;
}

static int first_path(void *ctx, const char *path)
{
	*(char **)ctx = strdup(path);
	return 1;
}

/* Steps a report-row statement (columns as in Q_LIST_REPORTS: id, seq,
 * timestamp, os_version, headline, group_id, group count, archived, match
 * uuid, match name, match rank, most recent path, host, host key, kind) and
 * calls fn once per report; later rows of the same report are its weaker
 * matches.  With page (a Q_PAGE_* statement: one row per report, r.ts in
 * column 15, one row beyond the limit) it sets the page's rows, done and
 * cursor.  With rp
 * the path and the group count come from it instead (a row whose group is
 * missing is left out, as the join would). */
static kp_status run_rows(kpi__sq *db, sqlite3_stmt *q, bool with_match, const recent_paths *rp,
                          kpi_page *page, kpi_report_fn fn, void *ctx, size_t *nfound, kp_error *err)
{
	size_t n = 0;
	int64_t last = -1;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(q, 0);
		if (page && page->limit && n == page->limit)
			break;   /* the row beyond the page: another follows */
		if (id == last)
			continue;
		last = id;
		char uuid[37];
		kpi__uuid_pretty(col_text(q, 8), uuid);
		kpi_match m = {uuid[0] ? uuid : NULL, col_text(q, 9),
		               kpi__role_name(sqlite3_column_int(q, 10))};
		kpi_report_row row = {
			.id = id,
			.seq = sqlite3_column_int64(q, 1),
			.path = !rp ? col_text(q, 11) : id >= 1 && id <= rp->max ? rp->path[id] : NULL,
			.timestamp = col_text(q, 2),
			.os_version = col_text(q, 3),
			.headline = col_text(q, 4),
			.group_id = sqlite3_column_int64(q, 5),
			.group_count = sqlite3_column_int64(q, 6),
			.archived = sqlite3_column_int(q, 7) != 0,
			.host = col_text(q, 12),
			.host_key = col_text(q, 13),
			.match = with_match ? &m : NULL,
			.kind = col_text(q, 14),
			.cls = col_text(q, 15),
		};
		if (rp) { /* the groups join, done here */
			int64_t g = row.group_id;
			if (g < 0 || g > rp->gmax || !rp->ghave[g])
				continue;
			row.group_count = rp->gcount[g];
		}
		char *late = NULL;
		if (rp && !row.path) /* added or moved since the paths were read */
			kpi__sq_report_paths(&db->base, id, first_path, &late, NULL);
		if (late)
			row.path = late;
		n++;
		if (page) {
			page->after_ts = sqlite3_column_int64(q, 16);
			page->after_id = id;
		}
		kpi__sq_pause p = kpi__sq_limit_pause(db);
		int stop = fn && fn(ctx, &row);
		kpi__sq_limit_resume(db, p);
		free(late);
		if (stop)
			break;
	}
	if (page) {
		page->rows = n;
		page->done = rc == SQLITE_DONE;
	}
	kp_status st = KP_OK;
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		st = kpi__sq_err(db, err, "querying");
	sqlite3_reset(q);
	if (nfound)
		*nfound = n;
	return st;
}

static void col_time(sqlite3_stmt *q, int col, int raw, char out[32]);

static kp_status do_list_reports(kpi_db *h, const char *host, kpi_report_fn fn, void *ctx,
                               kp_error *err)
{
	kpi__sq *db = SQ(h);
	sqlite3_stmt *q;
	recent_paths rp;
	if (host || !recent_load(db, &rp)) {
		/* a host's rows: RECENT_PATH per row (a few rows of many) */
		if (!(q = kpi__sq_stmt(db, host ? Q_LIST_HOST : Q_LIST_REPORTS, err)))
			return KP_ERR_DB;
		if (host)
			kpi__sq_bind_text(q, 1, host);
		return run_rows(db, q, false, NULL, NULL, fn, ctx, NULL, err);
	}
	q = kpi__sq_stmt(db, Q_LIST_REPORTS_BARE, err);
	kp_status st = q ? run_rows(db, q, false, &rp, NULL, fn, ctx, NULL, err) : KP_ERR_DB;
	recent_free(&rp);
	return st;
}

static kp_status do_list_hosts(kpi_db *h, kpi_host_fn fn, void *ctx, kp_error *err)
{
	kpi__sq *db = SQ(h);
	sqlite3_stmt *q = kpi__sq_stmt(db, Q_LIST_HOSTS, err);
	if (!q)
		return KP_ERR_DB;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		char last[32];
		col_time(q, 5, 6, last);
		kpi_host_row row = {
			.host = col_text(q, 0),
			.host_key = col_text(q, 1),
			.model = col_text(q, 2),
			.builds = col_text(q, 3),
			.reports = sqlite3_column_int64(q, 4),
			.last_seen = last[0] ? last : NULL,
		};
		kpi__sq_pause p = kpi__sq_limit_pause(db);
		int stop = fn && fn(ctx, &row);
		kpi__sq_limit_resume(db, p);
		if (stop)
			break;
	}
	kp_status st = rc == SQLITE_DONE || rc == SQLITE_ROW ? KP_OK : kpi__sq_err(db, err, "listing hosts");
	sqlite3_reset(q);
	return st;
}

/* The epoch in column col, written as the report in column raw states it */
static void col_time(sqlite3_stmt *q, int col, int raw, char out[32])
{
	out[0] = '\0';
	if (sqlite3_column_type(q, col) != SQLITE_NULL)
		kpi__seen_time(sqlite3_column_int64(q, col), col_text(q, raw), out);
}

/* with_ids: every group's report ids too (Q_GROUP_MEMBERS per group) */
static kp_status do_list_groups(kpi_db *h, bool with_ids, kpi_group_fn fn, void *ctx, kp_error *err)
{
	kpi__sq *db = SQ(h);
	sqlite3_stmt *q = kpi__sq_stmt(db, Q_LIST_GROUPS, err);
	if (!q)
		return KP_ERR_DB;
	int rc;
	kp_status st = KP_OK;
	while (st == KP_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t count = sqlite3_column_int64(q, 3);
		if (count <= 0)
			continue; /* emptied by an interrupted resign */
		kpi_group_row g = {
			.group_id = sqlite3_column_int64(q, 0),
			.title = col_text(q, 1),
			.culprit = col_text(q, 2),
			.count = count,
			.hosts = sqlite3_column_int64(q, 6),
		};
		char first[32], last[32];
		col_time(q, 4, 7, first);
		col_time(q, 5, 8, last);
		g.first_seen = first[0] ? first : NULL;
		g.last_seen = last[0] ? last : NULL;
		int64_t *ids = NULL;
		size_t n = 0, cap = 0;
		sqlite3_stmt *m = with_ids ? kpi__sq_stmt(db, Q_GROUP_MEMBERS, err) : NULL;
		if (with_ids && !m) {
			st = KP_ERR_DB;
			break;
		}
		if (m)
			sqlite3_bind_int64(m, 1, g.group_id);
		int mrc = SQLITE_DONE;
		while (m && (mrc = sqlite3_step(m)) == SQLITE_ROW) {
			int64_t *slot = kp_vec_push((void **)&ids, &n, &cap, sizeof *ids);
			if (!slot) {
				st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
				break;
			}
			*slot = sqlite3_column_int64(m, 0);
		}
		if (st == KP_OK && mrc != SQLITE_DONE)
			st = kpi__sq_err(db, err, "listing a group's reports");
		if (m)
			sqlite3_reset(m);
		g.report_ids = ids;
		g.nreport_ids = n;
		kpi__sq_pause p = kpi__sq_limit_pause(db);
		int stop = st == KP_OK && fn ? fn(ctx, &g) : 0;
		kpi__sq_limit_resume(db, p);
		free(ids);
		if (stop)
			break;
	}
	if (st == KP_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
		st = kpi__sq_err(db, err, "listing groups");
	sqlite3_reset(q);
	return st;
}

static kp_status list_groups(kpi_db *h, bool with_ids, kpi_group_fn fn, void *ctx, kp_error *err);

kp_status kpi__sq_list_groups(kpi_db *h, kpi_group_fn fn, void *ctx, kp_error *err)
{
	return list_groups(h, true, fn, ctx, err);
}

kp_status kpi__sq_list_group_counts(kpi_db *h, kpi_group_fn fn, void *ctx, kp_error *err)
{
	return list_groups(h, false, fn, ctx, err);
}

static kp_status do_trend_rows(kpi_db *h, kpi__trend_fn fn, void *ctx, kp_error *err)
{
	kpi__sq *db = SQ(h);
	sqlite3_stmt *q = kpi__sq_stmt(db, Q_TREND_ROWS, err);
	if (!q)
		return KP_ERR_DB;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t ts = sqlite3_column_int64(q, 1);
		/* floor, not C's truncation: a date before 1970 is still its day */
		int64_t day = ts == KPI__UNDATED ? KPI__UNDATED : ts >= 0 ? ts / 86400 : -((-ts + 86399) / 86400);
		/* fn calls no op (kpi_store.h): its time counts, no clock read per row */
		if (fn(ctx, sqlite3_column_int64(q, 0), day, col_text(q, 2), 1))
			break;
	}
	kp_status st = rc == SQLITE_DONE || rc == SQLITE_ROW ? KP_OK : kpi__sq_err(db, err, "reading the groups' trends");
	sqlite3_reset(q);
	return st;
}

/* The bound argument of a text search: with FTS5 every word a quoted
 * phrase (FTS5 syntax in the text stays text); with LIKE the whole text,
 * its wildcards escaped.  malloc'd; *n its length. */
static char *text_arg(const kpi__sq *db, const char *text, size_t *n)
{
	size_t tl = strlen(text), o = 0;
	char *arg = malloc(2 * tl + 8);
	if (!arg)
		return NULL;
	if (db->fts) {
		const char *p = text;
		while (*p) {
			while (*p && isspace((unsigned char)*p))
				p++;
			if (!*p)
				break;
			if (o)
				arg[o++] = ' ';
			arg[o++] = '"';
			while (*p && !isspace((unsigned char)*p)) {
				if (*p == '"')
					arg[o++] = '"';
				arg[o++] = *p++;
			}
			arg[o++] = '"';
		}
	} else {
		for (size_t i = 0; i < tl; i++) {
			if (text[i] == '%' || text[i] == '_' || text[i] == '\\')
				arg[o++] = '\\';
			arg[o++] = text[i];
		}
	}
	arg[o] = '\0';
	*n = o;
	return arg;
}

static kp_status bind_search(const kpi__sq *db, sqlite3_stmt *q, kpi__search kind, const char *arg,
                             kp_error *err);

kp_status kpi__sq_meta_get(kpi_db *h, const char *key, char **value, kp_error *err)
{
	kpi__sq *db = SQ(h);
	*value = NULL;
	sqlite3_stmt *q = kpi__sq_stmt(db, Q_META_GET, err);
	if (!q)
		return KP_ERR_DB;
	kpi__sq_bind_text(q, 1, key);
	int rc = sqlite3_step(q);
	kp_status st = KP_OK;
	if (rc == SQLITE_ROW && !(*value = strdup((const char *)sqlite3_column_text(q, 0))))
		st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	else if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		st = kpi__sq_err(db, err, "reading state");
	sqlite3_reset(q);
	return st;
}

/* Binds a search's argument as ?1 (and ?2): a UUID prefix as the range
 * prefix000... to prefixFFF..., a text as text_arg makes it. */
static kp_status bind_search(const kpi__sq *db, sqlite3_stmt *q, kpi__search kind, const char *arg,
                             kp_error *err)
{
	if (kind == KPI__SEARCH_UUID) {
		char lo[33], hi[33];
		kpi__uuid_range(arg, lo, hi);
		sqlite3_bind_text(q, 1, lo, 32, SQLITE_TRANSIENT);
		sqlite3_bind_text(q, 2, hi, 32, SQLITE_TRANSIENT);
		return KP_OK;
	}
	if (kind == KPI__SEARCH_KEXT || kind == KPI__SEARCH_KEXT_LAST || kind == KPI__SEARCH_ZONE) {
		kpi__sq_bind_text(q, 1, arg);
		return KP_OK;
	}
	size_t n;
	char *t = text_arg(db, arg, &n);
	if (!t)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	sqlite3_bind_text(q, 1, t, (int)n, SQLITE_TRANSIENT);
	free(t);
	return KP_OK;
}

/* The total on the first page (count: a Q_COUNT_* statement), then the
 * page of q (a Q_PAGE_* statement). */
static kp_status page_rows(kpi__sq *db, kpi__sq_sql count, kpi__sq_sql page_q, kpi__search kind,
                           const char *arg, bool with_match, kpi_page *page, kpi_report_fn fn,
                           void *ctx, kp_error *err)
{
	page->rows = 0;
	sqlite3_stmt *q;
	if (page->after_id <= 0) {
		if (!(q = kpi__sq_stmt(db, count, err)))
			return KP_ERR_DB;
		kp_status st = arg ? bind_search(db, q, kind, arg, err) : KP_OK;
		int rc = st == KP_OK ? sqlite3_step(q) : SQLITE_DONE;
		page->total = rc == SQLITE_ROW ? (size_t)sqlite3_column_int64(q, 0) : 0;
		sqlite3_reset(q);
		if (st != KP_OK)
			return st;
		if (rc != SQLITE_ROW)
			return kpi__sq_err(db, err, "counting");
	}
	/* Many matches, a page of few: walking reports newest first finds
	 * the page after about limit x reports / total rows, cheaper than
	 * sorting every match when that is below total. */
	int64_t nreports = 0;
	if (page->limit && (page_q == Q_PAGE_UUID || page_q == Q_PAGE_KEXT) &&
	    span(db, Q_REPORT_SPAN, &nreports) &&
	    (double)page->limit * (double)nreports < (double)page->total * (double)page->total)
		page_q = page_q == Q_PAGE_UUID ? Q_PAGE_UUID_SCAN : Q_PAGE_KEXT_SCAN;
	if (!(q = kpi__sq_stmt(db, page_q, err)))
		return KP_ERR_DB;
	kp_status st = arg ? bind_search(db, q, kind, arg, err) : KP_OK;
	if (st != KP_OK)
		return st;
	sqlite3_bind_int64(q, 3, page->after_id > 0 ? page->after_ts : INT64_MAX);
	sqlite3_bind_int64(q, 4, page->after_id > 0 ? page->after_id : INT64_MAX);
	sqlite3_bind_int64(q, 5, page->limit ? (int64_t)page->limit + 1 : -1);
	return run_rows(db, q, with_match, NULL, page, fn, ctx, NULL, err);
}

static kp_status do_search_page(kpi_db *h, kpi__search kind, const char *arg, kpi_page *page,
                              kpi_report_fn fn, void *ctx, kp_error *err)
{
	kpi__sq *db = SQ(h);
	switch (kind) {
	case KPI__SEARCH_UUID:
		return page_rows(db, Q_COUNT_UUID, Q_PAGE_UUID, kind, arg, true, page, fn, ctx, err);
	case KPI__SEARCH_KEXT:
		return page_rows(db, Q_COUNT_KEXT, Q_PAGE_KEXT, kind, arg, true, page, fn, ctx, err);
	case KPI__SEARCH_KEXT_LAST:
		return page_rows(db, Q_COUNT_KEXT_LAST, Q_PAGE_KEXT_LAST, kind, arg, true, page, fn, ctx, err);
	case KPI__SEARCH_ZONE:
		return page_rows(db, Q_COUNT_ZONE, Q_PAGE_ZONE, kind, arg, false, page, fn, ctx, err);
	case KPI__SEARCH_TEXT:
		break;
	}
	return db->fts ? page_rows(db, Q_COUNT_FTS, Q_PAGE_FTS, kind, arg, false, page, fn, ctx, err)
	               : page_rows(db, Q_COUNT_LIKE, Q_PAGE_LIKE, kind, arg, false, page, fn, ctx, err);
}

static kp_status do_list_page(kpi_db *h, kpi_page *page, kpi_report_fn fn, void *ctx, kp_error *err)
{
	return page_rows(SQ(h), Q_COUNT_REPORTS, Q_PAGE_LIST, KPI__SEARCH_TEXT, NULL, false, page, fn,
	                 ctx, err);
}

/* ---- the read ops, each under the query time limit ---- */

#define LIMITED(CALL) \
	do { \
		int64_t saved_ = kpi__sq_limit_begin(SQ(h)); \
		kp_status st_ = CALL; \
		kpi__sq_limit_end(SQ(h), saved_); \
		return st_; \
	} while (0)

kp_status kpi__sq_list_reports(kpi_db *h, const char *host, kpi_report_fn fn, void *ctx, kp_error *err)
{
	LIMITED(do_list_reports(h, host, fn, ctx, err));
}

kp_status kpi__sq_list_hosts(kpi_db *h, kpi_host_fn fn, void *ctx, kp_error *err)
{
	LIMITED(do_list_hosts(h, fn, ctx, err));
}

static kp_status list_groups(kpi_db *h, bool with_ids, kpi_group_fn fn, void *ctx, kp_error *err)
{
	LIMITED(do_list_groups(h, with_ids, fn, ctx, err));
}

kp_status kpi__sq_trend_rows(kpi_db *h, kpi__trend_fn fn, void *ctx, kp_error *err)
{
	LIMITED(do_trend_rows(h, fn, ctx, err));
}

kp_status kpi__sq_search_page(kpi_db *h, kpi__search kind, const char *arg, kpi_page *page,
                              kpi_report_fn fn, void *ctx, kp_error *err)
{
	LIMITED(do_search_page(h, kind, arg, page, fn, ctx, err));
}

kp_status kpi__sq_list_page(kpi_db *h, kpi_page *page, kpi_report_fn fn, void *ctx, kp_error *err)
{
	LIMITED(do_list_page(h, page, fn, ctx, err));
}

kp_status kpi__sq_archive_get(kpi_db *h, int64_t id, kpi__archive *out, kp_error *err)
{
	LIMITED(do_archive_get(h, id, out, err));
}
