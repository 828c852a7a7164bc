/* query.c: listing and searching the index. */
#include "store_sqlite.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char *col_text(sqlite3_stmt *q, int i)
{
	const char *s = (const char *)sqlite3_column_text(q, i);
	return s && *s ? s : NULL;
}

/* The first recorded path of report id that still exists, else the most
 * recently seen one; malloc'd or NULL. */
static char *report_path(kpi_db *db, int64_t id, kp_error *err)
{
	sqlite3_stmt *q = idx_stmt(db, Q_REPORT_PATHS, err);
	if (!q)
		return NULL;
	sqlite3_bind_int64(q, 1, id);
	char *first = NULL, *live = NULL;
	while (!live && sqlite3_step(q) == SQLITE_ROW) {
		const char *p = (const char *)sqlite3_column_text(q, 0);
		struct stat st;
		if (!first)
			first = strdup(p);
		if (stat(p, &st) == 0)
			live = strdup(p);
	}
	sqlite3_reset(q);
	if (live) {
		free(first);
		return live;
	}
	return first;
}

static void uuid_pretty(const char *hex, char out[37])
{
	if (!hex || strlen(hex) != 32 || !kp_uuid_canon(hex, 32, out))
		out[0] = '\0';
}

/* Steps a report-row statement (columns as in Q_LIST_REPORTS: id,
 * timestamp, os_version, headline, group_id, group count, archived, match
 * uuid, match name, match role, most recent path) and calls fn
 * once per report; later rows of the same report are its weaker matches.
 * fn may use other index calls except the running query itself. */
static kp_status run_rows(kpi_db *db, sqlite3_stmt *q, bool with_match, kpi_report_fn fn,
                          void *ctx, size_t *nfound, kp_error *err)
{
	size_t n = 0;
	int64_t last = -1;
	int rc;
	kp_status st = KP_OK;
	last = -1;
	while (st == KP_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(q, 0);
		if (id == last)
			continue;
		last = id;
		char uuid[37];
		uuid_pretty(col_text(q, 7), uuid);
		kpi_match m = {uuid[0] ? uuid : NULL, col_text(q, 8),
		               idx_role_name(sqlite3_column_int(q, 9))};
		/* the most recently seen path (column 10) when it still exists, else
		 * any recorded path that does */
		const char *recent = col_text(q, 10);
		struct stat st;
		char *path = recent && stat(recent, &st) == 0 ? strdup(recent) : report_path(db, id, err);
		kpi_report_row row = {
			.id = id,
			.path = path,
			.timestamp = col_text(q, 1),
			.os_version = col_text(q, 2),
			.headline = col_text(q, 3),
			.group_id = sqlite3_column_int64(q, 4),
			.group_count = sqlite3_column_int64(q, 5),
			.archived = sqlite3_column_int(q, 6) != 0,
			.match = with_match ? &m : NULL,
		};
		n++;
		int stop = fn ? fn(ctx, &row) : 0;
		free(path);
		if (stop)
			break;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		st = idx_dberr(db, err, "querying");
	sqlite3_reset(q);
	if (nfound)
		*nfound = n;
	return st;
}

kp_status kpi_list_reports(kpi_db *db, kpi_report_fn fn, void *ctx, kp_error *err)
{
	kp_error_clear(err);
	sqlite3_stmt *q = idx_stmt(db, Q_LIST_REPORTS, err);
	return q ? run_rows(db, q, false, fn, ctx, NULL, err) : KP_ERR_DB;
}

static void iso_time(sqlite3_stmt *q, int col, char out[32])
{
	out[0] = '\0';
	if (sqlite3_column_type(q, col) == SQLITE_NULL)
		return;
	time_t t = (time_t)sqlite3_column_int64(q, col);
	struct tm tm;
	if (gmtime_r(&t, &tm))
		strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

kp_status kpi_list_groups(kpi_db *db, kpi_group_fn fn, void *ctx, kp_error *err)
{
	kp_error_clear(err);
	sqlite3_stmt *q = idx_stmt(db, Q_LIST_GROUPS, err);
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
		};
		char first[32], last[32];
		iso_time(q, 4, first);
		iso_time(q, 5, last);
		g.first_seen = first[0] ? first : NULL;
		g.last_seen = last[0] ? last : NULL;
		int64_t *ids = NULL;
		size_t n = 0, cap = 0;
		sqlite3_stmt *m = idx_stmt(db, Q_GROUP_MEMBERS, err);
		if (!m) {
			st = KP_ERR_DB;
			break;
		}
		sqlite3_bind_int64(m, 1, g.group_id);
		while (sqlite3_step(m) == SQLITE_ROW) {
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				int64_t *v = realloc(ids, cap * sizeof *v);
				if (!v) {
					st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
					break;
				}
				ids = v;
			}
			ids[n++] = sqlite3_column_int64(m, 0);
		}
		sqlite3_reset(m);
		g.report_ids = ids;
		g.nreport_ids = n;
		int stop = st == KP_OK && fn ? fn(ctx, &g) : 0;
		free(ids);
		if (stop)
			break;
	}
	if (st == KP_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
		st = idx_dberr(db, err, "listing groups");
	sqlite3_reset(q);
	return st;
}

kp_status kpi_search_uuid(kpi_db *db, const char *uuid, kpi_report_fn fn, void *ctx,
                          size_t *nfound, kp_error *err)
{
	kp_error_clear(err);
	if (nfound)
		*nfound = 0;
	char lo[33], hi[33];
	size_t n = 0;
	for (const char *p = uuid ? uuid : ""; *p; p++) {
		if (*p == '-')
			continue;
		if (!isxdigit((unsigned char)*p) || n == 32)
			return kp_error_set(err, KP_ERR_USAGE, 0, -1,
			                    "'%s' is not a UUID or a prefix of one (hex digits and dashes)",
			                    uuid);
		lo[n++] = (char)toupper((unsigned char)*p);
	}
	if (n < 8)
		return kp_error_set(err, KP_ERR_USAGE, 0, -1,
		                    "a UUID prefix needs at least 8 hex digits, got %zu", n);
	memcpy(hi, lo, n);
	for (size_t i = n; i < 32; i++) {
		lo[i] = '0';
		hi[i] = 'F';
	}
	lo[32] = hi[32] = '\0';
	sqlite3_stmt *q = idx_stmt(db, Q_SEARCH_UUID, err);
	if (!q)
		return KP_ERR_DB;
	sqlite3_bind_text(q, 1, lo, 32, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 2, hi, 32, SQLITE_TRANSIENT);
	return run_rows(db, q, true, fn, ctx, nfound, err);
}

kp_status kpi_search_kext(kpi_db *db, const char *bundle_id, kpi_report_fn fn, void *ctx,
                          size_t *nfound, kp_error *err)
{
	kp_error_clear(err);
	if (nfound)
		*nfound = 0;
	if (!bundle_id || !*bundle_id)
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "empty bundle id");
	sqlite3_stmt *q = idx_stmt(db, Q_SEARCH_KEXT, err);
	if (!q)
		return KP_ERR_DB;
	sqlite3_bind_text(q, 1, bundle_id, -1, SQLITE_TRANSIENT);
	return run_rows(db, q, true, fn, ctx, nfound, err);
}

kp_status kpi_search_text(kpi_db *db, const char *text, kpi_report_fn fn, void *ctx,
                          size_t *nfound, kp_error *err)
{
	kp_error_clear(err);
	if (nfound)
		*nfound = 0;
	size_t tl = text ? strlen(text) : 0;
	char *arg = malloc(2 * tl + 8);
	if (!arg)
		return kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	size_t n = 0;
	if (db->fts) {
		/* every word a quoted phrase: FTS5 syntax in the text stays text */
		const char *p = text ? text : "";
		while (*p) {
			while (*p && isspace((unsigned char)*p))
				p++;
			if (!*p)
				break;
			if (n)
				arg[n++] = ' ';
			arg[n++] = '"';
			while (*p && !isspace((unsigned char)*p)) {
				if (*p == '"')
					arg[n++] = '"';
				arg[n++] = *p++;
			}
			arg[n++] = '"';
		}
	} else {
		for (size_t i = 0; i < tl; i++) {
			if (text[i] == '%' || text[i] == '_' || text[i] == '\\')
				arg[n++] = '\\';
			arg[n++] = text[i];
		}
	}
	arg[n] = '\0';
	if (n == 0) {
		free(arg);
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "empty search text");
	}
	sqlite3_stmt *q = idx_stmt(db, db->fts ? Q_SEARCH_FTS : Q_SEARCH_LIKE, err);
	if (!q) {
		free(arg);
		return KP_ERR_DB;
	}
	sqlite3_bind_text(q, 1, arg, (int)n, SQLITE_TRANSIENT);
	free(arg);
	return run_rows(db, q, false, fn, ctx, nfound, err);
}
