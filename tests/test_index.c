/* test_index.c: the index over a generated corpus of known structure
 * (index_corpus.h), one function per behaviour.  The behaviours run in
 * order on one index (db) over one corpus: each leaves the state the next
 * one describes.  `test_index --gen DIR` and `--gen-large DIR N` only write
 * corpora, `--check DB` prints a summary of an sqlite index (for the shell
 * tests).  With KPT_DB set (a fresh PostgreSQL database; tests/
 * test_index_pg.sh starts a server) the same behaviours run on that
 * store instead, leaving out the sqlite file's own checks. */
#include "kt_slurp.h"
#include "kp_index.h"
#include "store_sqlite.h"
#include "kp_sha1.h"
#include "kp_sha256.h"
#include "kt.h"
#include "index_corpus.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sqlite3.h>

/* KPI__UNDATED as SQL text (kpi_store.h is the index's own) */
#define KPI__UNDATED_TEXT "-4611686018427387904"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char tmp[1024], corpus[1100], dbpath[1100];
static bool on_pg;                 /* the body runs on the PostgreSQL store */
static kpi_db *db;                 /* the index over corpus */
static const char *paths[1] = {corpus};
static char corpus_before[41];     /* tree hash before indexing */
static int64_t a1, a2, a3, b1, c1; /* report ids by file */

/* SHA-1 of every file under dir, concatenated with names, into one hash. */
static void tree_hash(const char *dir, kp_sha1 *h)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	char names[64][256];
	int n = 0;
	while ((e = readdir(d)) && n < 64)
		if (e->d_name[0] != '.')
			snprintf(names[n++], 256, "%s", e->d_name);
	closedir(d);
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (strcmp(names[i], names[j]) > 0) {
				char t[256];
				memcpy(t, names[i], 256);
				memcpy(names[i], names[j], 256);
				memcpy(names[j], t, 256);
			}
	for (int i = 0; i < n; i++) {
		char p[4096];
		if (snprintf(p, sizeof p, "%s/%s", dir, names[i]) >= (int)sizeof p)
			continue;
		struct stat st;
		if (stat(p, &st) != 0)
			continue;
		kp_sha1_update(h, p, strlen(p));
		if (S_ISDIR(st.st_mode)) {
			tree_hash(p, h);
		} else {
			size_t len;
			char *b = kt_slurp(p, &len);
			if (b)
				kp_sha1_update(h, b, len);
			free(b);
		}
	}
}

static void tree_hex(const char *dir, char hex[41])
{
	kp_sha1 h;
	kp_sha1_init(&h);
	tree_hash(dir, &h);
	uint8_t d[20];
	kp_sha1_final(&h, d);
	for (int i = 0; i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

typedef struct rows {
	int n;
	int64_t id[32];
	char path[32][1200];
	char role[32][16];
	char name[32][64];
	int64_t group[32], count[32], seq[32];
} rows;

static int collect(void *ctx, const kpi_report_row *r)
{
	rows *v = ctx;
	if (v->n < 32) {
		v->id[v->n] = r->id;
		snprintf(v->path[v->n], sizeof v->path[0], "%s", r->path ? r->path : "");
		snprintf(v->role[v->n], sizeof v->role[0], "%s", r->match && r->match->role ? r->match->role : "");
		snprintf(v->name[v->n], sizeof v->name[0], "%s", r->match && r->match->name ? r->match->name : "");
		v->group[v->n] = r->group_id;
		v->seq[v->n] = r->seq;
		v->count[v->n] = r->group_count;
	}
	v->n++;
	return 0;
}

static int stop_after_one(void *ctx, const kpi_report_row *r)
{
	collect(ctx, r);
	return 1;
}

typedef struct groups {
	int n;
	int64_t id[16], count[16];
	char ids[16][128];
	char culprit[16][64];
} groups;

static int collect_group(void *ctx, const kpi_group_row *g)
{
	groups *v = ctx;
	if (v->n < 16) {
		v->id[v->n] = g->group_id;
		v->count[v->n] = g->count;
		snprintf(v->culprit[v->n], 64, "%s", g->culprit ? g->culprit : "");
		size_t o = 0;
		v->ids[v->n][0] = '\0';
		for (size_t i = 0; i < g->nreport_ids && o < 100; i++)
			o += (size_t)snprintf(v->ids[v->n] + o, 128 - o, "%s%lld", i ? "," : "",
			                      (long long)g->report_ids[i]);
	}
	v->n++;
	return 0;
}

/* id of the report whose row path ends in name */
static int64_t id_of(const rows *all, const char *name)
{
	for (int i = 0; i < all->n && i < 32; i++) {
		size_t a = strlen(all->path[i]), b = strlen(name);
		if (a >= b && strcmp(all->path[i] + a - b, name) == 0)
			return all->id[i];
	}
	return -1;
}

static void check_summary(const kpi_summary *s, size_t files, size_t nw, size_t unch, size_t dup,
                          size_t skip, const char *what)
{
	KT_CHECK(s->files == files && s->new_reports == nw && s->unchanged == unch &&
	         s->duplicates == dup && s->skipped == skip && s->errors == 0,
	         "%s: files %zu new %zu unchanged %zu dup %zu skipped %zu errors %zu "
	         "(want %zu %zu %zu %zu %zu 0)", what, s->files, s->new_reports, s->unchanged,
	         s->duplicates, s->skipped, s->errors, files, nw, unch, dup, skip);
	for (size_t i = 0; i < s->nerror_list; i++)
		printf("# error: %s: %s\n", s->error_list[i].path, s->error_list[i].msg);
}

static const char *fake_symbols(void *ctx, const kp_report *r, const kp_thread *t, size_t i)
{
	static char buf[64];
	(void)ctx;
	const kp_frame *f = &t->frames[i];
	if (f->image >= 0 && r->images[f->image].name &&
	    strcmp(r->images[f->image].name, "com.example.driver.Widget") == 0) {
		snprintf(buf, sizeof buf, "Widget::fn_%" PRIx64, f->offset);
		return buf;
	}
	return NULL;
}

static size_t search_n(kpi_db *db, const char *uuid, rows *v)
{
	memset(v, 0, sizeof *v);
	size_t n = 99;
	kp_error err;
	if (kpi_search_uuid(db, uuid, collect, v, &n, &err) != KP_OK)
		printf("# search %s: %s\n", uuid, err.msg);
	return n;
}

/* issue 32 item 7: the objects an index is checked against when opened
 * are those the migrations make (a stale list would only be slow; this
 * says it is stale) */
static void test_known_objects(void)
{
	kp_error e = {0};
	KT_CHECK(kpi__sq_known_check(&e) == KP_OK, "the known objects are the migrations' (%s)", e.msg);
}

static void test_foreign(void)
{
	char p[1200], hex1[41], hex2[41];
	kpi_db *db = NULL;
	kp_error err;
	snprintf(p, sizeof p, "%s/foreign", tmp);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/foreign/notes.db", tmp);
	gen_write(tmp, "foreign/notes.db", "my precious notes\n", 18);
	char dir[1200];
	snprintf(dir, sizeof dir, "%s/foreign", tmp);
	tree_hex(dir, hex1);
	kp_status st = kpi_open(p, KPI_OPEN_CREATE, &db, &err);
	KT_CHECK(st == KP_ERR_DB && strstr(err.msg, p) != NULL, "text file at db path refused by name: %s",
	         err.msg);
	/* another program's SQLite database */
	snprintf(p, sizeof p, "%s/foreign/other.sqlite3", tmp);
	sqlite3 *h;
	sqlite3_open(p, &h);
	sqlite3_exec(h, "CREATE TABLE t(x); INSERT INTO t VALUES (1);", NULL, NULL, NULL);
	sqlite3_close(h);
	tree_hex(dir, hex1);
	st = kpi_open(p, KPI_OPEN_CREATE, &db, &err);
	KT_CHECK(st == KP_ERR_DB && strstr(err.msg, p) != NULL, "foreign SQLite db refused: %s", err.msg);
	tree_hex(dir, hex2);
	KT_STREQ(hex2, hex1, "foreign files untouched");
	snprintf(p, sizeof p, "%s/foreign/missing.sqlite3", tmp);
	KT_CHECK(kpi_open(p, 0, &db, &err) == KP_ERR_NOTFOUND, "missing db without create: NOTFOUND");
	kpi_close(&db);
}

static void test_incident(void)
{
	size_t len;
	char *b = kt_slurp(KP_REAL_DIR "/ips-t2-bridgeos-sleepwake-socwatchdog-1.ips", &len);
	if (!b) {
		KT_SKIP("real corpus absent: incident id test");
		return;
	}
	char d[1200], p[1200];
	snprintf(d, sizeof d, "%s/incident", tmp);
	mkdir(d, 0755);
	gen_write(d, "a.ips", b, len);
	char *b2 = malloc(len + 2);
	memcpy(b2, b, len);
	memcpy(b2 + len, "\n\n", 2);
	gen_write(d, "b.ips", b2, len + 2); /* other bytes, same incident id */
	snprintf(p, sizeof p, "%s/incident.sqlite3", tmp);
	kpi_db *db = NULL;
	kp_error err;
	kpi_summary s;
	const char *paths[] = {d};
	if (kpi_open(p, KPI_OPEN_CREATE, &db, &err) == KP_OK &&
	    kpi_scan(db, paths, 1, NULL, NULL, NULL, NULL, &s, &err) == KP_OK) {
		check_summary(&s, 2, 1, 0, 1, 0, "same incident id, other bytes: one report");
		kpi_summary_free(&s);
	} else {
		KT_CHECK(0, "incident scan: %s", err.msg);
	}
	kpi_close(&db);
	free(b);
	free(b2);
}

static void test_real(void)
{
	const char *real = KP_REAL_DIR;
	struct stat st;
	if (stat(real, &st) != 0) {
		KT_SKIP("real corpus absent");
		return;
	}
	char p[1200];
	snprintf(p, sizeof p, "%s/real.sqlite3", tmp);
	kpi_db *db = NULL;
	kp_error err;
	kpi_summary s;
	const char *paths[] = {real};
	if (kpi_open(p, KPI_OPEN_CREATE, &db, &err) != KP_OK ||
	    kpi_scan(db, paths, 1, NULL, NULL, NULL, NULL, &s, &err) != KP_OK) {
		KT_CHECK(0, "real corpus scan: %s", err.msg);
		kpi_close(&db);
		return;
	}
	KT_CHECK(s.errors == 0 && s.new_reports >= 17, "real corpus: %zu new, %zu errors",
	         s.new_reports, s.errors);
	for (size_t i = 0; i < s.nerror_list; i++)
		printf("# error: %s: %s\n", s.error_list[i].path, s.error_list[i].msg);
	kpi_summary_free(&s);
	rows v;
	size_t n = search_n(db, "7c461ede", &v);
	KT_CHECK(n == 1 && strcmp(v.role[0], "kernel") == 0, "real: iOS kernel UUID prefix found (%zu, %s)",
	         n, v.role[0]);
	kpi_close(&db);
}

/* Prints "integrity REPORTS PATHS GROUPS SUMCOUNTS DUPKEYS" for test_index.sh. */
static int check_db(const char *path)
{
	sqlite3 *h;
	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return 2;
	sqlite3_busy_timeout(h, 30000); /* a writer closing still holds its locks a moment */
	sqlite3_stmt *q;
	const char *sql = "SELECT (SELECT integrity_check FROM pragma_integrity_check LIMIT 1),"
	                  " (SELECT count(*) FROM reports), (SELECT count(*) FROM paths WHERE report_id IS NOT NULL),"
	                  " (SELECT count(*) FROM groups WHERE count > 0), (SELECT total(count) FROM groups),"
	                  " (SELECT count(*) FROM (SELECT content_hash FROM reports GROUP BY content_hash HAVING count(*) > 1))";
	if (sqlite3_prepare_v2(h, sql, -1, &q, NULL) != SQLITE_OK || sqlite3_step(q) != SQLITE_ROW) {
		printf("error %s\n", sqlite3_errmsg(h));
		sqlite3_close(h);
		return 2;
	}
	printf("%s %d %d %d %d %d\n", (const char *)sqlite3_column_text(q, 0), sqlite3_column_int(q, 1),
	       sqlite3_column_int(q, 2), sqlite3_column_int(q, 3), (int)sqlite3_column_double(q, 4),
	       sqlite3_column_int(q, 5));
	sqlite3_finalize(q);
	sqlite3_close(h);
	return 0;
}

/* Groups of the sqlite index at path whose kept counts (count, hosts,
 * first and last seen, and the group_hosts rows schema 7 keeps them by)
 * differ from a recount of their reports; -1 when it cannot be read. */
static int groups_off(const char *path)
{
	sqlite3 *h;
	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return -1;
	sqlite3_stmt *q;
	const char *sql =
		"SELECT (SELECT count(*) FROM groups g WHERE g.count IS NOT (SELECT count(*) FROM reports r WHERE "
		"r.group_id = g.id) OR g.hosts IS NOT (SELECT count(DISTINCT coalesce(host_key, host, '')) FROM "
		"reports r WHERE r.group_id = g.id) OR g.first_seen IS NOT (SELECT min(CASE WHEN ts > "
		KPI__UNDATED_TEXT " THEN ts END) FROM reports r WHERE r.group_id = g.id) OR g.last_seen IS NOT "
		"(SELECT max(CASE WHEN ts > " KPI__UNDATED_TEXT " THEN ts END) FROM reports r WHERE r.group_id = g.id)) + "
		"(SELECT count(*) FROM (SELECT group_id, ident FROM group_hosts EXCEPT SELECT group_id, "
		"coalesce(host_key, host, '') FROM reports)) + (SELECT count(*) FROM (SELECT group_id, "
		"coalesce(host_key, host, '') FROM reports EXCEPT SELECT group_id, ident FROM group_hosts)), "
		"(SELECT count(*) FROM groups WHERE count > 1)";
	int n = -1;
	if (sqlite3_prepare_v2(h, sql, -1, &q, NULL) == SQLITE_OK) {
		/* a recount of nothing proves nothing: groups of several reports */
		if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 1) > 0)
			n = sqlite3_column_int(q, 0);
		sqlite3_finalize(q);
	} else {
		printf("# %s\n", sqlite3_errmsg(h));
	}
	sqlite3_close(h);
	return n;
}

static void scan_expect(size_t files, size_t nw, size_t unch, size_t dup, size_t skip,
                        const char *what)
{
	kpi_summary s;
	kp_error err;
	KT_CHECK(kpi_scan(db, paths, 1, NULL, NULL, NULL, NULL, &s, &err) == KP_OK, "%s: scan (%s)",
	         what, err.msg);
	check_summary(&s, files, nw, unch, dup, skip, what);
	kpi_summary_free(&s);
}

static void test_open_creates_folders(void)
{
	kp_error err;
	KT_CHECK(kpi_open(dbpath, KPI_OPEN_CREATE | KPI_OPEN_INIT, &db, &err) == KP_OK,
	         "open creates folders (or the server's schema): %s", err.msg);
}

static void test_text_search_is_the_stores_own(void)
{
	char *mode = NULL;
	kp_error err;
	const char *want = on_pg ? "postgresql" : "fts5";
	KT_CHECK(kpi_meta_get(db, "text_search", &mode, &err) == KP_OK && mode && strcmp(mode, want) == 0,
	         "the store searches text with its own engine (%s)", want);
	free(mode);
}

static void test_first_scan_counts(void)
{
	scan_expect(9, 5, 0, 2, 2, "first scan");
}

static void test_list_newest_first_grouped(void)
{
	rows all = {0};
	kp_error err;
	KT_CHECK(kpi_list_reports(db, collect, &all, &err) == KP_OK && all.n == 5, "5 reports (%d)", all.n);
	a1 = id_of(&all, "bugA-1.panic"), a2 = id_of(&all, "bugA-2.panic"),
	a3 = id_of(&all, "bugA-3.panic"), b1 = id_of(&all, "bugB-1.panic"),
	c1 = id_of(&all, "gadget-1.panic");
	if (b1 < 0)
		b1 = id_of(&all, "copy-of-bugB.panic");
	KT_CHECK(a1 > 0 && a2 > 0 && a3 > 0 && b1 > 0 && c1 > 0, "every report found by path");
	KT_CHECK(all.id[0] == c1 && all.id[1] == b1 && all.id[2] == a3 && all.id[3] == a2 &&
	         all.id[4] == a1, "newest first");
	KT_CHECK(all.group[2] == all.group[3] && all.group[3] == all.group[4] && all.count[4] == 3,
	         "bug A: one group of 3 across incidents and builds");
	KT_CHECK(all.group[1] != all.group[2] && all.group[0] != all.group[1] && all.count[1] == 1,
	         "bug B and the gadget bug: their own groups");
}

static void test_groups_largest_first(void)
{
	groups g = {0};
	kp_error err;
	KT_CHECK(kpi_list_groups(db, collect_group, &g, &err) == KP_OK && g.n == 3, "3 groups (%d)", g.n);
	char want[128];
	snprintf(want, sizeof want, "%lld,%lld,%lld", (long long)a3, (long long)a2, (long long)a1);
	KT_CHECK(g.count[0] == 3 && strcmp(g.ids[0], want) == 0, "largest group: %s (want %s)", g.ids[0], want);
	KT_STREQ(g.culprit[0], "com.example.driver.Widget", "group culprit");
	KT_CHECK(g.count[1] == 1 && g.count[2] == 1, "the other groups have one report each");
	groups c = {0};
	KT_CHECK(kpi_list_group_counts(db, collect_group, &c, &err) == KP_OK && c.n == 3 &&
	         c.id[0] == g.id[0] && c.id[1] == g.id[1] && c.id[2] == g.id[2] && c.count[0] == 3 &&
	         strcmp(c.culprit[0], g.culprit[0]) == 0 && c.ids[0][0] == '\0',
	         "group counts: the same groups in the same order, without report ids");
}

static void test_search_uuid(void)
{
	rows v;
	KT_CHECK(search_n(db, "5E7A1C2B-9D44-4F1E-8B3A-77C0DE11A001", &v) == 4 &&
	         strcmp(v.role[0], "backtrace") == 0 && strcmp(v.name[0], "com.example.driver.Widget") == 0,
	         "kext UUID: 4 reports as backtrace");
	KT_CHECK(search_n(db, "5e7a1c2b9d44", &v) == 4, "lower-case prefix without dashes");
	KT_CHECK(search_n(db, "5e7a1c2b", &v) == 4, "8-digit prefix");
	KT_CHECK(search_n(db, "C2A94E10-77B3-3E55-9D10-1AB2C3D4E5F6", &v) == 2 &&
	         strcmp(v.role[0], "kernel") == 0 && v.id[0] == c1 && v.id[1] == a3,
	         "kernel UUID of build 2: the two reports, role kernel");
	KT_CHECK(search_n(db, gen_dep_uuid, &v) == 5 && strcmp(v.role[0], "dependency") == 0,
	         "dependency UUID: every report, role %s", v.role[0]);
	KT_CHECK(search_n(db, "0b1d2e3f", &v) == 1 && v.id[0] == c1, "other kext: one report");
	KT_CHECK(search_n(db, "deadbeef", &v) == 0, "unknown UUID: none");
	size_t n;
	kp_error err;
	KT_CHECK(kpi_search_uuid(db, "5e7a1c2", collect, &v, &n, &err) == KP_ERR_USAGE, "7 digits refused");
	KT_CHECK(kpi_search_uuid(db, "5e7a1c2x", collect, &v, &n, &err) == KP_ERR_USAGE, "non-hex refused");
}

static void test_search_kext(void)
{
	rows v = {0};
	size_t n = 0;
	kp_error err;
	KT_CHECK(kpi_search_kext(db, "COM.example.driver.widget", collect, &v, &n, &err) == KP_OK && n == 4,
	         "kext by bundle id, any case: %zu", n);
	rows w = {0};
	KT_CHECK(kpi_search_kext(db, "WIDGET", collect, &w, &n, &err) == KP_OK && n == 4,
	         "kext by the last part of its bundle id, any case: %zu", n);
	rows x = {0};
	KT_CHECK(kpi_search_kext(db, "idget", collect, &x, &n, &err) == KP_OK && n == 0,
	         "a last part is a whole part (idget finds nothing): %zu", n);
}

static void test_search_text(void)
{
	rows v = {0};
	size_t n = 0;
	kp_error err;
	KT_CHECK(kpi_search_text(db, "ring overflow", collect, &v, &n, &err) == KP_OK && n == 3,
	         "full text: ring overflow: %zu", n);
	KT_CHECK(kpi_search_text(db, "firmware \"stopped", collect, &v, &n, &err) == KP_OK && n == 1,
	         "full text with a quote: %zu", n);
	KT_CHECK(kpi_search_text(db, "AND OR NOT *", collect, &v, &n, &err) == KP_OK && n == 0,
	         "FTS syntax is text");
	KT_CHECK(kpi_search_text(db, "  ", collect, &v, &n, &err) == KP_ERR_USAGE, "blank text refused");
}

/* Pages of 2 (and of 1, and everything at once) give the rows of the
 * whole call, in its order, with its matches; total from the first page. */
static bool pages_match(kpi_search_kind kind, const char *arg, const rows *all, size_t limit,
                        const char *what)
{
	rows v = {0};
	kpi_page page = {.limit = limit};
	kp_error err;
	size_t calls = 0;
	bool ok = true;
	do {
		int before = v.n;
		kp_status st = arg ? kpi_search_page(db, kind, arg, &page, collect, &v, &err)
		                   : kpi_list_reports_page(db, &page, collect, &v, &err);
		if (st != KP_OK) {
			printf("# %s: %s\n", what, err.msg);
			return false;
		}
		ok &= page.rows == (size_t)(v.n - before) && (!limit || page.rows <= limit);
		ok &= page.total == (size_t)all->n;
	} while (!page.done && ++calls < 50);
	ok &= v.n == all->n;
	for (int i = 0; ok && i < v.n && i < 32; i++)
		ok &= v.id[i] == all->id[i] && strcmp(v.role[i], all->role[i]) == 0 &&
		      strcmp(v.name[i], all->name[i]) == 0 && strcmp(v.path[i], all->path[i]) == 0;
	KT_CHECK(ok, "pages of %zu: %s (%d rows of %d, total %zu)", limit, what, v.n, all->n, page.total);
	return ok;
}

static void test_pages(void)
{
	static const struct {
		kpi_search_kind kind;
		const char *arg;
	} q[] = {
		{KPI_SEARCH_UUID, "5e7a1c2b"},
		{KPI_SEARCH_UUID, gen_dep_uuid},
		{KPI_SEARCH_UUID, "deadbeef"},
		{KPI_SEARCH_KEXT, "COM.example.driver.widget"},
		{KPI_SEARCH_TEXT, "ring overflow"},
		{KPI_SEARCH_TEXT, NULL},   /* the listing */
	};
	kp_error err;
	for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
		rows all = {0};
		size_t n = 0;
		const char *arg = i + 1 == sizeof q / sizeof q[0] ? NULL : q[i].arg;
		if (!arg)
			kpi_list_reports(db, collect, &all, &err);
		else if (q[i].kind == KPI_SEARCH_UUID)
			kpi_search_uuid(db, arg, collect, &all, &n, &err);
		else if (q[i].kind == KPI_SEARCH_KEXT)
			kpi_search_kext(db, arg, collect, &all, &n, &err);
		else
			kpi_search_text(db, arg, collect, &all, &n, &err);
		char what[96];
		snprintf(what, sizeof what, "%s", arg ? arg : "the listing");
		for (size_t limit = 0; limit <= 2; limit++)
			pages_match(q[i].kind, arg, &all, limit, what);
	}
	kpi_page page = {.limit = 2};
	KT_CHECK(kpi_search_page(db, KPI_SEARCH_UUID, "5e7a1c2", &page, collect, NULL, &err) == KP_ERR_USAGE,
	         "a page: 7 digits refused");
	KT_CHECK(kpi_search_page(db, KPI_SEARCH_TEXT, "  ", &page, collect, NULL, &err) == KP_ERR_USAGE,
	         "a page: blank text refused");
	KT_CHECK(kpi_search_page(db, KPI_SEARCH_KEXT, "", &page, collect, NULL, &err) == KP_ERR_USAGE,
	         "a page: empty bundle id refused");
	/* a caller that stops early continues after the last row it took */
	rows all = {0}, v = {0};
	kpi_list_reports(db, collect, &all, &err);
	page = (kpi_page){.limit = 3};
	kpi_list_reports_page(db, &page, stop_after_one, &v, &err);
	KT_CHECK(page.rows == 1 && !page.done && v.n == 1, "stopped after one row: rows 1, not done");
	page.limit = 0;
	kpi_list_reports_page(db, &page, collect, &v, &err);
	KT_CHECK(page.done && v.n == all.n && v.id[1] == all.id[1] && v.id[v.n - 1] == all.id[all.n - 1],
	         "  the next page continues after it (%d of %d)", v.n, all.n);
}

static void test_rescan_leaves_files_alone(void)
{
	scan_expect(9, 0, 7, 0, 2, "rescan");
	char after[41];
	tree_hex(corpus, after);
	KT_STREQ(after, corpus_before, "report files unchanged by indexing");
}

/* the archive outlives the files: load and export after they are gone */
static void test_archive_outlives_files(void)
{
	char p[1200], out[1200];
	snprintf(p, sizeof p, "%s/bugB-1.panic", corpus);
	size_t olen;
	char *orig = kt_slurp(p, &olen);
	unlink(p);
	snprintf(p, sizeof p, "%s/copy-of-bugB.panic", corpus);
	unlink(p);
	scan_expect(7, 0, 5, 0, 2, "after delete");
	kp_report *r = NULL;
	kp_error err;
	KT_CHECK(kpi_load(db, b1, &r, &err) == KP_OK && r && r->headline &&
	         strstr(r->headline, "Widget DMA mapping failed"), "kpi_load after the file is gone");
	kp_report_free(&r);
	KT_CHECK(kpi_load(db, 999, &r, &err) == KP_ERR_NOTFOUND, "unknown id: NOTFOUND");
	snprintf(out, sizeof out, "%s/exported.panic", tmp);
	KT_CHECK(kpi_export(db, b1, out, &err) == KP_OK, "export");
	size_t elen;
	char *exp = kt_slurp(out, &elen);
	KT_CHECK(orig && exp && elen == olen && memcmp(orig, exp, olen) == 0, "export is byte-identical");
	free(exp);
	KT_CHECK(kpi_export(db, a1, out, &err) == KP_ERR_IO, "export refuses an existing file");
	exp = kt_slurp(out, &elen);
	KT_CHECK(exp && elen == olen && memcmp(orig, exp, olen) == 0, "existing file left alone");
	free(exp);
	free(orig);
	rows all = {0};
	kpi_list_reports(db, collect, &all, &err);
	KT_CHECK(all.n == 5, "deleted report still listed");
}

/* moved to Retired/: the same report under a new path */
static void test_move_is_a_duplicate(void)
{
	char from[1200], to[1200];
	snprintf(from, sizeof from, "%s/gadget-1.panic", corpus);
	snprintf(to, sizeof to, "%s/Retired/gadget-1.panic", corpus);
	rename(from, to);
	scan_expect(7, 0, 4, 1, 2, "after move to Retired/");
	rows all = {0};
	kp_error err;
	kpi_list_reports(db, collect, &all, &err);
	KT_CHECK(all.n == 5 && all.id[0] == c1 && strcmp(all.path[0], to) == 0,
	         "the moved report's row shows the path that exists: %s", all.path[0]);
}

/* symbols found later regroup, and back */
static void test_resign_regroups(void)
{
	kpi_resign_summary rs = {0};
	kp_error err;
	KT_CHECK(kpi_resign(db, fake_symbols, NULL, &rs, &err) == KP_OK && rs.changed == 4 &&
	         rs.reports == 5 && rs.resigned == 5 && rs.nerror_list == 0,
	         "resign with symbols: %zu changed (%s)", rs.changed, err.msg);
	kpi_resign_summary_free(&rs);
	groups g = {0};
	kpi_list_groups(db, collect_group, &g, &err);
	KT_CHECK(g.n == 3 && g.count[0] == 3, "still 3 groups, A has 3 (%d)", g.n);
	KT_CHECK(kpi_resign(db, NULL, NULL, &rs, &err) == KP_OK && rs.changed == 4, "resign back: %zu",
	         rs.changed);
	kpi_resign_summary_free(&rs);
}

static void test_empty_groups_removed(void)
{
	if (on_pg) {
		groups g = {0};
		kp_error err;
		kpi_list_groups(db, collect_group, &g, &err);
		KT_CHECK(g.n == 3, "empty groups are not listed (%d)", g.n);
		return;
	}
	sqlite3 *h;
	sqlite3_open(dbpath, &h);
	sqlite3_stmt *q;
	sqlite3_prepare_v2(h, "SELECT (SELECT count(*) FROM groups), (PRAGMA_user_version) "
	                      "FROM (SELECT user_version AS PRAGMA_user_version FROM pragma_user_version)",
	                   -1, &q, NULL);
	int ngroups = -1, uv = -1;
	if (q && sqlite3_step(q) == SQLITE_ROW) {
		ngroups = sqlite3_column_int(q, 0);
		uv = sqlite3_column_int(q, 1);
	}
	sqlite3_finalize(q);
	sqlite3_close(h);
	KT_CHECK(ngroups == 3 && uv == KPI_SCHEMA_VERSION, "empty groups removed (%d), schema v%d", ngroups, uv);
}

/* State kept with the index (the TUI's "seen until") and the store's seq. */
static void test_meta_and_seq(void)
{
	kp_error err;
	char *v = (char *)"x";
	KT_CHECK(kpi_meta_get(db, "test.unset", &v, &err) == KP_OK && v == NULL, "unset meta key: NULL");
	KT_CHECK(kpi_meta_set(db, "test.key", "41", &err) == KP_OK &&
	         kpi_meta_set(db, "test.key", "42", &err) == KP_OK, "meta set twice: %s", err.msg);
	KT_CHECK(kpi_meta_set(db, "text_search", "like", &err) == KP_ERR_USAGE,
	         "the index's own keys cannot be set");
	rows all = {0};
	int64_t seq_before = 0;
	kpi_list_reports(db, collect, &all, &err);
	for (int i = 0; i < all.n && i < 32; i++)
		if (all.seq[i] > seq_before)
			seq_before = all.seq[i];
	/* a report indexed later but dated earlier still has a larger seq */
	char buf[16384];
	size_t n = gen_report(buf, sizeof buf, 2, 0, 0);
	gen_write(corpus, "late-but-old.panic", buf, n);
	scan_expect(8, 1, 5, 0, 2, "one more report");
	memset(&all, 0, sizeof all);
	kpi_list_reports(db, collect, &all, &err);
	int64_t late = id_of(&all, "late-but-old.panic"), late_seq = 0;
	for (int i = 0; i < all.n && i < 32; i++)
		if (all.id[i] == late)
			late_seq = all.seq[i];
	KT_CHECK(late > 0 && all.id[all.n - 1] == late && late_seq > seq_before,
	         "the report stored last has the largest seq (%lld > %lld) though listed last",
	         (long long)late_seq, (long long)seq_before);
	kpi_close(&db);
	KT_CHECK(kpi_open(dbpath, 0, &db, &err) == KP_OK, "reopen");
	KT_CHECK(db && kpi_meta_get(db, "test.key", &v, &err) == KP_OK && v && strcmp(v, "42") == 0,
	         "meta survives reopening");
	free(v);
}

/* Every message and JSON output shows a target through kpi_target_display. */
static void test_password_masked(void)
{
	static const char *const cases[][2] = {
		{"postgresql://kp:s3cret@db.lab/panics", "postgresql://kp:***@db.lab/panics"},
		{"postgres://kp:p%40ss@db.lab:5433/x?sslmode=require", "postgres://kp:***@db.lab:5433/x?sslmode=require"},
		{"postgresql://kp@db.lab/x?password=s3cret&sslmode=verify-full",
		 "postgresql://kp@db.lab/x?password=***&sslmode=verify-full"},
		{"postgresql://db.lab/x", "postgresql://db.lab/x"},
		{"host=db.lab password=s3cret dbname=x", "host=db.lab password=*** dbname=x"},
		{"host=db.lab password = 's3 cret\\' x' dbname=x", "host=db.lab password = *** dbname=x"},
		{"/tmp/password=x.sqlite3", "/tmp/password=x.sqlite3"},
		/* issue 19 item 3: reserved characters in the user info */
		{"postgresql://u:Sec?ret9@/panics", "postgresql://u:***@/panics"},
		{"postgresql://u:WRONG/pw@/panics", "postgresql://u:***@/panics"},
		{"postgresql://u:p@ss#w0rd@db.lab/x", "postgresql://u:***@db.lab/x"},
		{"postgresql://u:s3%2Fcret@db.lab/x", "postgresql://u:***@db.lab/x"},
		{"postgresql:///x?host=/tmp&password=s3cret#frag", "postgresql:///x?host=/tmp&password=***#frag"},
		{"host=db.lab password=s3\\ cret dbname=x", "host=db.lab password=*** dbname=x"},
		{"host=db.lab password='' dbname=x", "host=db.lab password=*** dbname=x"},
		{"dbname=postgresql://u:s3cret@/x", "dbname=postgresql://u:***@/x"},
		{"dbname='host=h password=s3cret' user=u", "dbname='host=h password=***' user=u"},
		{"host=/tmp/sock password=s3cret", "host=/tmp/sock password=***"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char out[256];
		kpi_target_display(cases[i][0], out, sizeof out);
		KT_CHECK(strcmp(out, cases[i][1]) == 0 && !strstr(out, "s3"), "masked: %s -> %s", cases[i][0], out);
	}
	char tiny[8];
	kpi_target_display("postgresql://kp:s3cret@h/x", tiny, sizeof tiny);
	KT_CHECK(strlen(tiny) == 7, "masking truncates into a small buffer");

	/* libpq's and the server's messages quote the target, the password as
	 * libpq decoded it, or nothing: each reaches the user masked */
	static const char *const msgs[][3] = {
		{"postgresql://u:Sec?ret9@/panics", "invalid URI \"postgresql://u:Sec?ret9@/panics\"",
		 "invalid URI \"postgresql://u:***@/panics\""},
		{"postgresql://u:s3%2Fcret@h/x", "FATAL: password s3/cret refused", "FATAL: password *** refused"},
		{"host=h password='s3 cr\\'et'", "saw s3 cr'et here", "saw *** here"},
		{"dbname=postgresql://u:s3cret@/x", "database \"postgresql://u:s3cret@/x\" does not exist",
		 "database \"postgresql://u:***@/x\" does not exist"},
		/* libpq splits a URI at its delimiters and quotes the pieces */
		{"postgresql://u:WRONG/pw@/x", "invalid integer value \"WRONG\" for connection option \"port\"",
		 "invalid integer value \"***\" for connection option \"port\""},
		{"postgresql://u:Sec?ret9@/panics", "invalid URI query parameter: \"ret9@/panics\"",
		 "invalid URI query parameter: \"***@/panics\""},
		{"postgresql://u:ab%2Fcdef@h/x", "no such host cdef", "no such host ***"},
	};
	for (size_t i = 0; i < sizeof msgs / sizeof *msgs; i++) {
		char out[256];
		kpi_mask_secrets(msgs[i][0], msgs[i][1], out, sizeof out);
		KT_CHECK(strcmp(out, msgs[i][2]) == 0, "message masked: %s -> %s", msgs[i][1], out);
	}
	setenv("PGPASSWORD", "EnvSecret7", 1);
	char out[128];
	kpi_mask_secrets("host=h dbname=x", "auth with EnvSecret7 failed", out, sizeof out);
	KT_CHECK(strcmp(out, "auth with *** failed") == 0, "PGPASSWORD is never echoed: %s", out);
	unsetenv("PGPASSWORD");
	char small[12];
	kpi_mask_secrets("postgresql://u:longsecret@h/x", "xx longsecret yy longsecret", small, sizeof small);
	KT_CHECK(!strstr(small, "longsecret") && strlen(small) < sizeof small, "masking into a small buffer: %s", small);
}

static void test_postgres_targets_recognised(void)
{
	char nowhere[1200];
	snprintf(nowhere, sizeof nowhere, "host=%s/no-server dbname=kp connect_timeout=2", tmp);
	const char *const pg[] = {"postgresql://kp:s3cret@%2Fnonexistent%2Fsock/kp", "postgres:///db?host=/nonexistent",
	                          nowhere, "dbname = kp host=/nonexistent password=s3cret"};
	static const char *const files[] = {"index.sqlite3", "/tmp/a=b", "./host=x", "=x", ""};
	for (size_t i = 0; i < sizeof pg / sizeof *pg; i++) {
		kpi_db *h = NULL;
		kp_error err;
		kp_status st = kpi_open(pg[i], KPI_OPEN_CREATE, &h, &err);
		KT_CHECK(kpi_target_is_postgres(pg[i]) && !h &&
		         (st == KP_ERR_DB ? strstr(err.msg, "cannot connect") != NULL
		                          : st == KP_ERR_USAGE && strstr(err.msg, "PostgreSQL") != NULL) &&
		         !strstr(err.msg, "s3cret"),
		         "%s: the PostgreSQL store: no server there, password not shown (%s)", pg[i], err.msg);
	}
	for (size_t i = 0; i < sizeof files / sizeof *files; i++)
		KT_CHECK(!kpi_target_is_postgres(files[i]), "'%s' is a file path", files[i]);
}

/* Writes the first n bytes of corpus file name (all when n is 0) to
 * dir/out with mtime t; false when the corpus file is absent. */
static bool cut_copy(const char *name, size_t n, const char *dir, const char *out, time_t t)
{
	char src[1200], p[1200];
	snprintf(src, sizeof src, KP_REAL_DIR "/%s", name);
	size_t len;
	char *b = kt_slurp(src, &len);
	if (!b)
		return false;
	gen_write(dir, out, b, n && n < len ? n : len);
	free(b);
	int pn = snprintf(p, sizeof p, "%s/%s", dir, out);
	if (pn < 0 || (size_t)pn >= sizeof p)
		return false;
	struct timespec ts[2] = {{t, 0}, {t, 0}};
	utimensat(AT_FDCWD, p, ts, 0);
	return true;
}

/* Compares report id's archive with corpus file name. */
static bool archive_is(kpi_db *h, int64_t id, const char *name)
{
	char src[1200], out[1200];
	snprintf(src, sizeof src, KP_REAL_DIR "/%s", name);
	snprintf(out, sizeof out, "%s/export-%lld", tmp, (long long)id);
	unlink(out);
	kp_error err;
	if (kpi_export(h, id, out, &err) != KP_OK)
		return false;
	size_t a, b;
	char *x = kt_slurp(src, &a), *y = kt_slurp(out, &b);
	bool same = x && y && a == b && memcmp(x, y, a) == 0;
	free(x);
	free(y);
	return same;
}

static int one_id(void *ctx, const kpi_report_row *r)
{
	int64_t *v = ctx;
	v[0]++;
	v[1] = r->id;
	return 0;
}

/* Issue 11 item 3: a report indexed while it was being written (its first
 * 1,500 bytes) is superseded by the complete file, at the same path (by
 * incident id for .ips, by the grown bytes for text) or at another one;
 * a cut of a report stored complete is only a duplicate. */
static void test_complete_supersedes_cut(void)
{
	static const char *const files[] = {"ips-full-ios26-iphone-sepkeystore-1.ips",
	                                    "legacy-intel-1013-mbp113-nvidiaweb-threadinvoke-1.panic"};
	for (int k = 0; k < 2; k++) {
		const char *name = files[k];
		char d[1200], d2[1200], p[1200];
		snprintf(d, sizeof d, "%s/writing%d", tmp, k);
		snprintf(d2, sizeof d2, "%s/writing%d-other", tmp, k);
		snprintf(p, sizeof p, "%s/writing%d.sqlite3", tmp, k);
		mkdir(d, 0755);
		mkdir(d2, 0755);
		if (!cut_copy(name, 1500, d, "r", 1000000)) {
			KT_SKIP("real corpus absent: supersede test");
			return;
		}
		kpi_db *h = NULL;
		kp_error err;
		kpi_summary s;
		const char *paths[] = {d}, *others[] = {d2};
		KT_CHECK(kpi_open(p, KPI_OPEN_CREATE, &h, &err) == KP_OK &&
		         kpi_scan(h, paths, 1, NULL, NULL, NULL, NULL, &s, &err) == KP_OK && s.new_reports == 1,
		         "%s: the first 1,500 bytes are indexed", name);
		kpi_summary_free(&s);
		cut_copy(name, 0, d, "r", 1000100); /* the writer finished */
		KT_CHECK(kpi_scan(h, paths, 1, NULL, NULL, NULL, NULL, &s, &err) == KP_OK &&
		         s.superseded == 1 && s.new_reports == 0 && s.duplicates == 0,
		         "%s: the complete file supersedes the cut (%zu superseded, %zu new, %zu dup)", name,
		         s.superseded, s.new_reports, s.duplicates);
		kpi_summary_free(&s);
		int64_t v[2] = {0, 0};
		kpi_list_reports(h, one_id, v, &err);
		KT_CHECK(v[0] == 1 && archive_is(h, v[1], name), "%s: one report, its archive complete", name);
		kp_report *r = NULL;
		KT_CHECK(kpi_load(h, v[1], &r, &err) == KP_OK && !r->truncated, "%s: loads untruncated", name);
		kp_report_free(&r);
		/* a cut seen later elsewhere changes nothing (.ips: same incident) */
		if (k == 0) {
			cut_copy(name, 1500, d2, "cut", 1000200);
			KT_CHECK(kpi_scan(h, others, 1, NULL, NULL, NULL, NULL, &s, &err) == KP_OK &&
			         s.duplicates == 1 && s.superseded == 0 && archive_is(h, v[1], name),
			         "%s: a cut seen after the complete report is a duplicate", name);
			kpi_summary_free(&s);
		}
		kpi_close(&h);
	}
	/* the cut and the complete report at two paths, cut first */
	const char *name = files[0];
	char a[1200], b[1200], p[1200];
	snprintf(a, sizeof a, "%s/two-a", tmp);
	snprintf(b, sizeof b, "%s/two-b", tmp);
	snprintf(p, sizeof p, "%s/two.sqlite3", tmp);
	mkdir(a, 0755);
	mkdir(b, 0755);
	cut_copy(name, 1500, a, "cut.ips", 1000000);
	cut_copy(name, 0, b, "whole.ips", 1000000);
	kpi_db *h = NULL;
	kp_error err;
	kpi_summary s;
	const char *paths[] = {a, b};
	int64_t v[2] = {0, 0};
	KT_CHECK(kpi_open(p, KPI_OPEN_CREATE, &h, &err) == KP_OK &&
	         kpi_scan(h, paths, 2, NULL, NULL, NULL, NULL, &s, &err) == KP_OK && s.new_reports == 1 &&
	         s.superseded == 1 && kpi_list_reports(h, one_id, v, &err) == KP_OK && v[0] == 1 &&
	         archive_is(h, v[1], name),
	         "cut at one path, complete at another: one complete report");
	kpi_summary_free(&s);
	kpi_close(&h);
}

/* Issue 32 item 9: a cut record is replaced only by its completion (the
 * same host, the cut bytes a prefix of the new); another report with its
 * incident id, or the completion pushed by another host, is kept beside
 * it, and the cut stays until its own completion comes. */
static void test_cut_kept_unless_completed(void)
{
	const char *name = "ips-full-ios26-iphone-sepkeystore-1.ips";
	char d[1200], e[1200], f[1200], p[1200], src[1200];
	snprintf(d, sizeof d, "%s/keep-cut", tmp);
	snprintf(e, sizeof e, "%s/keep-other", tmp);
	snprintf(f, sizeof f, "%s/keep-whole", tmp);
	snprintf(p, sizeof p, "%s/keep.sqlite3", tmp);
	snprintf(src, sizeof src, KP_REAL_DIR "/%s", name);
	mkdir(d, 0755);
	mkdir(e, 0755);
	mkdir(f, 0755);
	size_t len;
	char *b = kt_slurp(src, &len);
	if (!b || !cut_copy(name, 1500, d, "cut.ips", 1000000)) {
		free(b);
		KT_SKIP("real corpus absent: a cut kept beside another report");
		return;
	}
	/* the same incident id over another report: one word changed in the
	 * part the cut holds */
	char *w = strstr(b, "modified after free");
	KT_CHECK(w && (size_t)(w - b) < 1500, "the word to change is in the cut");
	if (w)
		memcpy(w, "modified after frex", 19);
	gen_write(e, "other.ips", b, len);
	free(b);
	kpi_db *h = NULL;
	kp_error err;
	kpi_summary s;
	const char *cut[] = {d}, *other[] = {e}, *whole[] = {f};
	KT_CHECK(kpi_open(p, KPI_OPEN_CREATE, &h, &err) == KP_OK &&
	         kpi_scan(h, cut, 1, NULL, NULL, NULL, NULL, &s, &err) == KP_OK && s.new_reports == 1,
	         "a cut is indexed");
	kpi_summary_free(&s);
	int64_t v[2] = {0, 0};
	kpi_list_reports(h, one_id, v, &err);
	int64_t cut_id = v[1];
	KT_CHECK(kpi_scan(h, other, 1, NULL, NULL, NULL, NULL, &s, &err) == KP_OK &&
	         s.new_reports == 1 && s.superseded == 0 && s.nwarning_list == 1,
	         "a complete report with its incident id but other bytes: kept beside the cut, said "
	         "(%zu new, %zu superseded)", s.new_reports, s.superseded);
	kpi_summary_free(&s);
	kp_report *r = NULL;
	KT_CHECK(kpi_load(h, cut_id, &r, &err) == KP_OK && r->truncated, "  the cut is still the cut");
	kp_report_free(&r);
	/* its completion, pushed by another host: kept beside it too */
	cut_copy(name, 0, f, "whole.ips", 1000100);
	kpi_set_report_host(h, "another-mac");   /* the reports' Mac, not only the pusher */
	KT_CHECK(kpi_scan(h, whole, 1, NULL, NULL, NULL, NULL, &s, &err) == KP_OK &&
	         s.new_reports == 1 && s.superseded == 0,
	         "its completion pushed by another host: kept beside it (%zu new, %zu superseded)",
	         s.new_reports, s.superseded);
	kpi_summary_free(&s);
	KT_CHECK(kpi_load(h, cut_id, &r, &err) == KP_OK && r->truncated, "  the cut is still the cut");
	kp_report_free(&r);
	kpi_close(&h);
	/* the completion from its own host (a fresh index: the copy above
	 * took the whole bytes) replaces it */
	snprintf(p, sizeof p, "%s/keep2.sqlite3", tmp);
	KT_CHECK(kpi_open(p, KPI_OPEN_CREATE, &h, &err) == KP_OK &&
	         kpi_scan(h, cut, 1, NULL, NULL, NULL, NULL, &s, &err) == KP_OK && s.new_reports == 1,
	         "a cut again");
	kpi_summary_free(&s);
	KT_CHECK(kpi_scan(h, other, 1, NULL, NULL, NULL, NULL, &s, &err) == KP_OK && s.new_reports == 1,
	         "  the other report beside it");
	kpi_summary_free(&s);
	KT_CHECK(kpi_scan(h, whole, 1, NULL, NULL, NULL, NULL, &s, &err) == KP_OK &&
	         s.superseded == 1 && s.new_reports == 0,
	         "  its completion from its own host replaces it (%zu superseded, %zu new)", s.superseded,
	         s.new_reports);
	kpi_summary_free(&s);
	KT_CHECK(archive_is(h, cut_id, name), "  the record now holds the complete report");
	kpi_close(&h);
}

typedef struct totals {
	size_t calls, seen, total_min, total_max;
} totals;

static void note_total(void *ctx, const kpi_progress *p)
{
	totals *t = ctx;
	if (!t->calls++ || p->files_total < t->total_min)
		t->total_min = p->files_total;
	if (p->files_total > t->total_max)
		t->total_max = p->files_total;
	t->seen = p->files_seen;
}

/* Issue 15: progress says "N of M": the files are counted before the walk
 * (subfolders included, the index's own file not). */
static void test_progress_counts_total(void)
{
	char d[1200], p[1200];
	snprintf(d, sizeof d, "%s/counted", tmp);
	mkdir(d, 0755);
	gen_write(d, "a.txt", "not a report\n", 13);
	gen_write(d, "b.txt", "not a report\n", 13);
	char sub[1300];
	snprintf(sub, sizeof sub, "%s/sub", d);
	mkdir(sub, 0755);
	gen_write(sub, "c.txt", "not a report\n", 13);
	snprintf(p, sizeof p, "%s/counted/own.sqlite3", tmp);
	kpi_db *h = NULL;
	kp_error err;
	kpi_summary s;
	const char *paths[] = {d};
	totals t = {0};
	KT_CHECK(kpi_open(p, KPI_OPEN_CREATE, &h, &err) == KP_OK &&
	         kpi_scan(h, paths, 1, NULL, NULL, note_total, &t, &s, &err) == KP_OK,
	         "scan with progress (%s)", err.msg);
	KT_CHECK(t.calls == 3 && t.seen == 3 && t.total_min == 3 && t.total_max == 3,
	         "progress: 3 files of 3 counted before (%zu calls, seen %zu, total %zu..%zu)", t.calls,
	         t.seen, t.total_min, t.total_max);
	kpi_summary_free(&s);
	kpi_close(&h);
}

/* Appends to the file being looked at, as a writer would while it is read. */
static void grow_it(void *ctx, const kpi_progress *p)
{
	int *n = ctx;
	FILE *f = fopen(p->path, "a");
	if (f) {
		fputs("more of the report\n", f);
		fclose(f);
		(*n)++;
	}
}

/* Issue 11 item 3: a file that changes while it is read is not recorded,
 * and the next scan reads it. */
static void test_changing_file_read_later(void)
{
	char d[1200], p[1200];
	snprintf(d, sizeof d, "%s/changing", tmp);
	snprintf(p, sizeof p, "%s/changing.sqlite3", tmp);
	mkdir(d, 0755);
	if (!cut_copy("ips-full-ios26-iphone-sepkeystore-1.ips", 1500, d, "r.ips", 1000000)) {
		KT_SKIP("real corpus absent: changing file test");
		return;
	}
	kpi_db *h = NULL;
	kp_error err;
	kpi_summary s;
	const char *paths[] = {d};
	int grown = 0;
	KT_CHECK(kpi_open(p, KPI_OPEN_CREATE, &h, &err) == KP_OK &&
	         kpi_scan(h, paths, 1, NULL, NULL, grow_it, &grown, &s, &err) == KP_OK && grown == 1 &&
	         s.changing == 1 && s.new_reports == 0 && s.errors == 0,
	         "a file growing while read: not recorded (%zu changing, %zu new)", s.changing,
	         s.new_reports);
	kpi_summary_free(&s);
	int64_t v[2] = {0, 0};
	kpi_list_reports(h, one_id, v, &err);
	KT_CHECK(v[0] == 0, "nothing half-written archived");
	KT_CHECK(kpi_scan(h, paths, 1, NULL, NULL, NULL, NULL, &s, &err) == KP_OK && s.new_reports == 1 &&
	         s.changing == 0, "the next scan reads it (%zu new)", s.new_reports);
	kpi_summary_free(&s);
	kpi_close(&h);
}

/* Issue 11 item 2: every step of a scan is O(n log n): an unchanged rescan
 * of one flat folder of 30,000 files takes well under a second (about 25 s
 * when the names were insertion-sorted); 4 s leaves room for a loaded
 * machine. */
static void test_flat_folder_rescan_is_fast(void)
{
	enum { N = 30000 };
	char d[1200], p[1200], name[32];
	snprintf(d, sizeof d, "%s/flat", tmp);
	mkdir(d, 0755);
	for (int i = 0; i < N; i++) {
		/* names in no particular order, so the folder's order is scrambled */
		snprintf(name, sizeof name, "n%08x.txt", (unsigned)(i * 2654435761u));
		gen_write(d, name, "a note\n", 7);
	}
	snprintf(p, sizeof p, "%s/flat.sqlite3", tmp);
	kpi_db *h = NULL;
	kp_error err;
	kpi_summary s;
	const char *paths[] = {d};
	if (kpi_open(p, KPI_OPEN_CREATE, &h, &err) != KP_OK ||
	    kpi_scan(h, paths, 1, NULL, NULL, NULL, NULL, &s, &err) != KP_OK) {
		KT_CHECK(0, "flat folder scan: %s", err.msg);
		kpi_close(&h);
		return;
	}
	kpi_summary_free(&s);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	kp_status st = kpi_scan(h, paths, 1, NULL, NULL, NULL, NULL, &s, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double sec = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	KT_CHECK(st == KP_OK && s.files == N && s.skipped == N && sec < 4.0,
	         "unchanged rescan of %d files in one folder: %.2f s (%zu files)", N, sec, s.files);
	kpi_summary_free(&s);
	kpi_close(&h);
}

/* Schema 10: reports that name the same images share one image set, over
 * more files than one transaction takes (2000), so the sets and group
 * counts a batch has learnt carry over into the next one through the
 * database; every report has its set, no set is unused or a copy of
 * another, and a UUID search through the sets finds each report. */
static int64_t sql_int(sqlite3 *h, const char *sql)
{
	sqlite3_stmt *q;
	int64_t v = -1;
	if (sqlite3_prepare_v2(h, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_int64(q, 0);
	else
		printf("# %s: %s\n", sql, sqlite3_errmsg(h));
	sqlite3_finalize(q);
	return v;
}

static void test_image_sets_shared(void)
{
	enum { N = 4500 };
	char d[1200], p[1200];
	snprintf(d, sizeof d, "%s/sets", tmp);
	snprintf(p, sizeof p, "%s/sets.sqlite3", tmp);
	mkdir(d, 0755);
	kpi_db *h = NULL;
	kp_error err;
	kpi_summary s = {0};
	const char *paths[] = {d};
	if (gen_large(d, N) != 0 || kpi_open(p, KPI_OPEN_CREATE, &h, &err) != KP_OK ||
	    kpi_scan(h, paths, 1, NULL, NULL, NULL, NULL, &s, &err) != KP_OK) {
		KT_CHECK(0, "image sets: scan: %s", err.msg);
		kpi_close(&h);
		return;
	}
	kpi_summary_free(&s);
	rows v;
	/* gen_large: the Gadget kext is bug 2 of 3, in every third report */
	KT_CHECK(search_n(h, "0B1D2E3F-4A5B-4C6D-8E7F-90A1B2C3D4E5", &v) == N / 3 &&
	         strcmp(v.role[0], "backtrace") == 0,
	         "image sets: a kext UUID finds its %d reports, as backtrace", N / 3);
	KT_CHECK(search_n(h, gen_dep_uuid, &v) == N && strcmp(v.role[0], "dependency") == 0,
	         "image sets: the dependency every report names finds all %d", N);
	kpi_close(&h);
	sqlite3 *q;
	if (sqlite3_open_v2(p, &q, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		KT_CHECK(0, "image sets: cannot open %s", p);
		return;
	}
	int64_t reports = sql_int(q, "SELECT count(*) FROM reports"),
	        sets = sql_int(q, "SELECT count(*) FROM image_sets"),
	        used = sql_int(q, "SELECT count(DISTINCT image_set) FROM reports"),
	        bare = sql_int(q, "SELECT count(*) FROM reports WHERE image_set IS NULL"),
	        copies = sql_int(q, "SELECT count(*) - count(DISTINCT l) FROM (SELECT group_concat(rank || ':' || "
	                            "uuid_hex || ':' || name, ',') AS l FROM (SELECT * FROM image_members ORDER BY "
	                            "set_id, rank, uuid_hex, name) GROUP BY set_id)");
	sqlite3_close(q);
	/* 3 bugs (two of one kext) x 2 kernels */
	KT_CHECK(reports == N && sets >= 2 && sets <= 6 && used == sets && bare == 0 && copies == 0,
	         "image sets: %lld reports share %lld sets (%lld named, %lld without, %lld copies)",
	         (long long)reports, (long long)sets, (long long)used, (long long)bare, (long long)copies);
	KT_CHECK(groups_off(p) == 0, "image sets: group counts over several transactions are a recount's (%d off)",
	         groups_off(p));
}

/* Schema 11 (issue 33 item 7): an index whose content hashes are SHA-1s
 * (a fresh one taken back to schema 10 by hand) migrates to SHA-256s from
 * the archived bytes (a), from the file when the archive is gone (b), and
 * a report with neither (c) keeps its SHA-1, counted in the meta; nothing
 * is lost, and c's bytes found again are c, not a new report. */
static void set_sha1(sqlite3 *h, const char *dir, const char *name, const char *data, size_t len)
{
	char sha1[41], path[1300];
	kp_sha1_hex(data, len, sha1);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(h, "UPDATE reports SET content_hash = ?1 WHERE id = "
	                          "(SELECT report_id FROM paths WHERE path = ?2)", -1, &q, NULL) == SQLITE_OK) {
		sqlite3_bind_text(q, 1, sha1, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(q, 2, path, -1, SQLITE_TRANSIENT);
		KT_CHECK(sqlite3_step(q) == SQLITE_DONE && sqlite3_changes(h) == 1, "sha256: %s given its SHA-1", name);
	}
	sqlite3_finalize(q);
}

static int64_t hash_is(sqlite3 *h, const char *data, size_t len, bool sha256)
{
	char hex[KP_SHA256_HEX], sql[200];
	if (sha256)
		kp_sha256_hex(data, len, hex);
	else
		kp_sha1_hex(data, len, hex);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM reports WHERE content_hash = '%s'", hex);
	return sql_int(h, sql);
}

static void test_sha256_migration(void)
{
	char d[1200], p[1200], path[1300];
	snprintf(d, sizeof d, "%s/sha", tmp);
	snprintf(p, sizeof p, "%s/sha.sqlite3", tmp);
	mkdir(d, 0755);
	static char a[16384], b[16384], c[16384];
	size_t na = gen_report(a, sizeof a, 0, 0, 0), nb = gen_report(b, sizeof b, 1, 0, 0),
	       nc = gen_report(c, sizeof c, 2, 1, 0);
	gen_write(d, "a.panic", a, na);
	gen_write(d, "b.panic", b, nb);
	gen_write(d, "c.panic", c, nc);
	kpi_db *h = NULL;
	kp_error err;
	kpi_summary s = {0};
	const char *roots[] = {d};
	KT_CHECK(kpi_open(p, KPI_OPEN_CREATE, &h, &err) == KP_OK &&
	         kpi_scan(h, roots, 1, NULL, NULL, NULL, NULL, &s, &err) == KP_OK && s.new_reports == 3,
	         "sha256: three reports indexed (%s)", err.msg);
	kpi_summary_free(&s);
	kpi_close(&h);
	sqlite3 *q;
	if (sqlite3_open(p, &q) != SQLITE_OK)
		return;
	KT_CHECK(hash_is(q, a, na, true) == 1 && hash_is(q, c, nc, true) == 1,
	         "sha256: a new index keys reports by the SHA-256 of their bytes");
	set_sha1(q, d, "a.panic", a, na);
	set_sha1(q, d, "b.panic", b, nb);
	set_sha1(q, d, "c.panic", c, nc);
	char sql[2700];
	snprintf(sql, sizeof sql, "DELETE FROM archives WHERE report_id IN (SELECT report_id FROM paths "
	                          "WHERE path IN ('%s/b.panic', '%s/c.panic')); UPDATE image_sets SET hash = "
	                          "substr(hash, 1, 40); UPDATE kext_sets SET hash = substr(hash, 1, 40); "
	                          "ALTER TABLE reports DROP COLUMN class; "   /* schema 12's */
	                          "PRAGMA user_version = 10;", d, d);
	KT_CHECK(sqlite3_exec(q, sql, NULL, NULL, NULL) == SQLITE_OK, "sha256: taken back to schema 10, "
	         "b's and c's archives gone (%s)", sqlite3_errmsg(q));
	sqlite3_close(q);
	snprintf(path, sizeof path, "%s/c.panic", d);
	unlink(path);

	KT_CHECK(kpi_open(p, 0, &h, &err) == KP_OK, "sha256: the schema 10 index opens, migrated (%s)", err.msg);
	char *left = NULL;
	kp_status ms = h ? h->ops->meta_get(h, KPI__META_SHA1_LEFT, &left, &err) : KP_ERR_DB;
	KT_CHECK(ms == KP_OK && left && strcmp(left, "1") == 0, "sha256: one report left under its SHA-1 (%s)",
	         left ? left : "unset");
	free(left);
	kpi_close(&h);
	kp_status ss;
	if (sqlite3_open(p, &q) != SQLITE_OK)
		return;
	KT_CHECK(hash_is(q, a, na, true) == 1, "sha256: a's hash recomputed from its archive");
	KT_CHECK(hash_is(q, b, nb, true) == 1, "sha256: b's from its file, its archive being gone");
	KT_CHECK(hash_is(q, c, nc, false) == 1 && sql_int(q, "SELECT count(*) FROM reports") == 3 &&
	         sql_int(q, "PRAGMA user_version") == KPI_SCHEMA_VERSION,
	         "sha256: c, whose bytes are gone, kept under its SHA-1: no report lost");
	int64_t isets = sql_int(q, "SELECT count(*) FROM image_sets"), ksets = sql_int(q, "SELECT count(*) FROM kext_sets");
	KT_CHECK(isets > 0 && ksets > 0 &&
	         sql_int(q, "SELECT count(*) FROM image_sets WHERE length(hash) <> 64") == 0 &&
	         sql_int(q, "SELECT count(*) FROM kext_sets WHERE length(hash) <> 64") == 0,
	         "sha256: the %lld image and %lld kext sets keyed anew (SHA-1-long keys before)", (long long)isets,
	         (long long)ksets);
	sqlite3_close(q);

	/* rescanned: nothing new; c's bytes back under another name: c again */
	ss = kpi_open(p, 0, &h, &err);
	if (ss == KP_OK)
		ss = kpi_scan(h, roots, 1, NULL, NULL, NULL, NULL, &s, &err);
	KT_CHECK(ss == KP_OK && s.new_reports == 0,
	         "sha256: a rescan finds nothing new (%zu new)", s.new_reports);
	kpi_summary_free(&s);
	gen_write(d, "c-again.panic", c, nc);
	ss = kpi_scan(h, roots, 1, NULL, NULL, NULL, NULL, &s, &err);
	KT_CHECK(ss == KP_OK && s.new_reports == 0 && s.duplicates == 1, "sha256: c's bytes found again are c by its SHA-1 (%zu new, %zu duplicates)",
	         s.new_reports, s.duplicates);
	kpi_summary_free(&s);
	rows all = {0};
	kpi_list_reports(h, collect, &all, &err);
	KT_CHECK(all.n == 3, "sha256: still 3 reports (%d)", all.n);
	/* another panic of a's bug and build: its lists are a's sets, found by their new keys */
	static char a2[16384];
	size_t na2 = gen_report(a2, sizeof a2, 0, 0, 5);
	gen_write(d, "a2.panic", a2, na2);
	ss = kpi_scan(h, roots, 1, NULL, NULL, NULL, NULL, &s, &err);
	KT_CHECK(ss == KP_OK && s.new_reports == 1, "sha256: a report of a's lists added (%zu new)", s.new_reports);
	kpi_summary_free(&s);
	kpi_close(&h);
	if (sqlite3_open(p, &q) != SQLITE_OK)
		return;
	KT_CHECK(sql_int(q, "SELECT count(*) FROM image_sets") == isets &&
	         sql_int(q, "SELECT count(*) FROM kext_sets") == ksets,
	         "sha256: it shares a's sets, no new one (%lld image, %lld kext sets)",
	         (long long)sql_int(q, "SELECT count(*) FROM image_sets"),
	         (long long)sql_int(q, "SELECT count(*) FROM kext_sets"));
	sqlite3_close(q);
}

/* A row's path is one that still exists, else the last one seen, however
 * the existence is found: here 40 reports seen in live/ and then in copy/
 * (the recent paths), enough rows in one folder for the index to list it
 * rather than stat() each path; copies deleted, replaced by links (some
 * dangling) or folders, reports gone from both. */
typedef struct live_rows_seen {
	int n;
	char path[64][1200];
} live_rows_seen;

static int collect_path(void *ctx, const kpi_report_row *r)
{
	live_rows_seen *v = ctx;
	if (v->n < 64)
		snprintf(v->path[v->n], sizeof v->path[0], "%s", r->path ? r->path : "");
	v->n++;
	return 0;
}

static void test_live_paths(void)
{
	char live[1200], copy[1200], p[1300], q[1300], dbp[1200];
	snprintf(live, sizeof live, "%s/live", tmp);
	snprintf(copy, sizeof copy, "%s/copy", tmp);
	snprintf(dbp, sizeof dbp, "%s/live.sqlite3", tmp);
	mkdir(live, 0755);
	mkdir(copy, 0755);
	static char buf[65536];
	enum { N = 40 };
	for (int i = 0; i < N; i++) {
		size_t n = gen_report(buf, sizeof buf, i % 3, i % 2, 100 + i);
		char name[32];
		snprintf(name, sizeof name, "r%02d.panic", i);
		gen_write(live, name, buf, n);
		gen_write(copy, name, buf, n);
	}
	kpi_db *h = NULL;
	kp_error err;
	kpi_summary s;
	const char *first[] = {live}, *second[] = {copy};
	/* copy/ is seen last, or in the same second and sorts first: either
	 * way its paths are the most recently seen */
	if (kpi_open(dbp, KPI_OPEN_CREATE, &h, &err) != KP_OK ||
	    kpi_scan(h, first, 1, NULL, NULL, NULL, NULL, &s, &err) != KP_OK) {
		KT_CHECK(0, "live paths: first scan: %s", err.msg);
		kpi_close(&h);
		return;
	}
	kpi_summary_free(&s);
	KT_CHECK(kpi_scan(h, second, 1, NULL, NULL, NULL, NULL, &s, &err) == KP_OK &&
	         s.duplicates == N, "live paths: copies are duplicates");
	kpi_summary_free(&s);
#define AT(dir, i) (snprintf(p, sizeof p, "%s/r%02d.panic", dir, i), p)
	/* each case five times over the listing order (a folder's first
	 * lookups are stat()s, the rest go through its listing) */
	for (int i = 0; i < N; i++) {
		switch (i % 8) {
		case 1:                             /* -> live/ */
			unlink(AT(copy, i));
			break;
		case 2:                             /* both gone -> copy/, the last seen */
			unlink(AT(copy, i));
			unlink(AT(live, i));
			break;
		case 3:                             /* a link that resolves -> copy/ */
			unlink(AT(copy, i));
			snprintf(q, sizeof q, "%s/r%02d.panic", live, i);
			KT_CHECK(symlink(q, AT(copy, i)) == 0, "link");
			break;
		case 4:                             /* a dangling link -> live/ */
			unlink(AT(copy, i));
			KT_CHECK(symlink("nowhere", AT(copy, i)) == 0, "dangling link");
			break;
		case 5:                             /* stat() finds a folder -> copy/ */
			unlink(AT(copy, i));
			mkdir(AT(copy, i), 0755);
			break;
		}
	}
	live_rows_seen v = {0};
	kp_status st = kpi_list_reports(h, collect_path, &v, &err);
	KT_CHECK(st == KP_OK && v.n == N, "live paths: %d rows", v.n);
	int bad = 0, in_live = 0;
	for (int r = 0; r < v.n && r < 64; r++) {
		const char *base = strrchr(v.path[r], '/');
		int i = base ? atoi(base + 2) : -1;
		if (i < 0 || i >= N) {
			bad++;
			continue;
		}
		struct stat st;
		const char *want = stat(AT(copy, i), &st) == 0 ? AT(copy, i)
		                   : stat(AT(live, i), &st) == 0 ? AT(live, i) : AT(copy, i);
		if (strcmp(v.path[r], want) != 0) {
			KT_CHECK(0, "r%02d: %s, want %s", i, v.path[r], want);
			bad++;
		}
		in_live += strncmp(v.path[r], live, strlen(live)) == 0;
	}
	KT_CHECK(bad == 0 && in_live == 10, "every row's path exists, else is the last seen (%d in live/)",
	         in_live);
#undef AT
	kpi_close(&h);
}

/* ---- issue 25: the scanner's workers store what one thread stores ---- */

typedef struct printed {
	FILE *f;
	kpi_db *h;
} printed;

static int print_row(void *ctx, const kpi_report_row *r)
{
	printed *o = ctx;
	/* the archive as it decodes: the original bytes' hash */
	char hash[41] = "-";
	FILE *a = tmpfile();
	kp_error err;
	if (a && kpi_export_fd(o->h, r->id, fileno(a), &err) == KP_OK) {
		off_t n = lseek(fileno(a), 0, SEEK_END);
		char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
		if (b && pread(fileno(a), b, (size_t)n, 0) == n)
			kp_sha1_hex(b, (size_t)n, hash);
		free(b);
	}
	if (a)
		fclose(a);
	fprintf(o->f, "R %lld %lld %s|%s|%s|%s|%lld|%lld|%d|%s|%s|%s|%s\n", (long long)r->id,
	        (long long)r->seq, r->path ? r->path : "", r->timestamp ? r->timestamp : "",
	        r->os_version ? r->os_version : "", r->headline ? r->headline : "", (long long)r->group_id,
	        (long long)r->group_count, r->archived, r->host ? r->host : "",
	        r->host_key ? r->host_key : "", r->kind ? r->kind : "", hash);
	return 0;
}

static int print_group(void *ctx, const kpi_group_row *g)
{
	printed *o = ctx;
	fprintf(o->f, "G %lld %s|%s|%lld|%lld|%s|%s|", (long long)g->group_id, g->title,
	        g->culprit ? g->culprit : "", (long long)g->count, (long long)g->hosts,
	        g->first_seen ? g->first_seen : "", g->last_seen ? g->last_seen : "");
	for (size_t i = 0; i < g->nreport_ids; i++)
		fprintf(o->f, "%lld,", (long long)g->report_ids[i]);
	fputc('\n', o->f);
	return 0;
}

static void print_list(FILE *f, const char *what, const kpi_scan_error *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s %s: %s\n", what, l[i].path, l[i].msg);
}

/* A fresh index at db over roots, scanned with KPBROWSE_INDEX_THREADS=
 * threads, printed (malloc'd; NULL when the scan failed). */
static char *scan_printed(const char *db, const char *const *roots, size_t nroots, const char *threads)
{
	setenv("KPBROWSE_INDEX_THREADS", threads, 1);
	kpi_db *h = NULL;
	kp_error err;
	kpi_summary s;
	char *out = NULL;
	size_t len = 0;
	bool ok = kpi_open(db, KPI_OPEN_CREATE, &h, &err) == KP_OK &&
	          kpi_scan(h, roots, nroots, NULL, NULL, NULL, NULL, &s, &err) == KP_OK;
	unsetenv("KPBROWSE_INDEX_THREADS");
	if (!ok) {
		printf("# %s threads: %s\n", threads, err.msg);
		kpi_close(&h);
		return NULL;
	}
	printed o = {open_memstream(&out, &len), h};
	fprintf(o.f, "S files %zu new %zu unchanged %zu dup %zu superseded %zu changing %zu skipped %zu errors %zu\n",
	        s.files, s.new_reports, s.unchanged, s.duplicates, s.superseded, s.changing, s.skipped,
	        s.errors);
	print_list(o.f, "E", s.error_list, s.nerror_list);
	print_list(o.f, "K", s.skip_list, s.nskip_list);
	print_list(o.f, "W", s.warning_list, s.nwarning_list);
	kpi_summary_free(&s);
	kpi_list_reports(h, print_row, &o, &err);
	kpi_list_groups(h, print_group, &o, &err);
	fclose(o.f);
	kpi_close(&h);
	return out;
}

/* Issue 25: files are read, hashed, parsed and packed on worker threads
 * and recorded in walk order, so an index made with workers is the one a
 * single thread makes: the same ids, rows, groups, archives (as they
 * decode) and summary lists, over many files and every kind of case
 * (duplicates, skips, a cut copy superseded, a colliding incident id,
 * binary and empty files, roots that overlap). */
static void test_workers_store_what_one_thread_stores(void)
{
	char d[1200], sub[1300], a[1300], b[1300];
	snprintf(d, sizeof d, "%s/workers", tmp);
	mkdir(d, 0755);
	snprintf(sub, sizeof sub, "%s/known", d);
	mkdir(sub, 0755);
	bool ok = gen_corpus(sub) == 0;
	snprintf(sub, sizeof sub, "%s/large", d);
	mkdir(sub, 0755);
	ok = ok && gen_large(sub, 700) == 0;
	snprintf(sub, sizeof sub, "%s/odd", d);
	mkdir(sub, 0755);
	ok = ok && gen_write(sub, "empty.panic", "", 0) == 0 &&
	     gen_write(sub, "binary.bin", "\x00\x01\x02\xff\xfe", 5) == 0;
	bool real = cut_copy("ips-full-ios26-iphone-sepkeystore-1.ips", 0, sub, "z-full.ips", 1000000) &&
	            cut_copy("ips-full-ios26-iphone-sepkeystore-1.ips", 20000, sub, "a-cut.ips", 1000000) &&
	            cut_copy("legacy-intel-1014-iousbfamily-iogmd-userclient-1.panic", 0, sub, "legacy.panic", 1000000);
	KT_CHECK(ok, "workers: corpus written");
	const char *roots[] = {d, sub};
	snprintf(a, sizeof a, "%s/workers-0.sqlite3", tmp);
	snprintf(b, sizeof b, "%s/workers-4.sqlite3", tmp);
	char *one = scan_printed(a, roots, 2, "0"), *four = scan_printed(b, roots, 2, "4");
	KT_CHECK(one && four && strstr(one, "S files ") && strcmp(one, four) == 0,
	         "4 workers store what one thread stores (%zu and %zu bytes printed)", one ? strlen(one) : 0,
	         four ? strlen(four) : 0);
	if (one && four && strcmp(one, four) != 0) {
		size_t i = 0;
		while (one[i] && one[i] == four[i])
			i++;
		printf("# first difference at byte %zu: %.120s\n# vs %.120s\n", i, one + i, four + i);
	}
	/* group counts are kept as reports are added (schema 7), never
	 * recounted in a cold scan: they are what a recount says */
	KT_CHECK(groups_off(a) == 0 && groups_off(b) == 0, "workers: group counts kept on add are a recount's (%d, %d off)",
	         groups_off(a), groups_off(b));
	/* the second root is walked twice: its reports unchanged, its
	 * non-reports skipped again; the cut .ips is superseded by the whole */
	if (!real)
		KT_SKIP("real corpus absent: the workers' corpus has no full .ips");
	else
		KT_CHECK(one && strstr(one, "S files 719 new 707 unchanged 3 dup 2 superseded 1 changing 0 skipped 6 "
		                            "errors 0\n") && strstr(one, "|-\n") == NULL,
		         "workers: the corpus is the one meant, every archive read back (%.100s)", one ? one : "");
	free(one);
	free(four);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--gen") == 0)
		return gen_corpus(argv[2]) == 0 ? 0 : 2;
	if (argc == 4 && strcmp(argv[1], "--gen-large") == 0)
		return gen_large(argv[2], atoi(argv[3])) == 0 ? 0 : 2;
	if (argc == 3 && strcmp(argv[1], "--check") == 0)
		return check_db(argv[2]);

	const char *td = getenv("TMPDIR");
	snprintf(tmp, sizeof tmp, "%s/kpi-test-XXXXXX", td && *td ? td : "/tmp");
	if (!mkdtemp(tmp)) {
		KT_CHECK(0, "mkdtemp");
		return kt_done();
	}
	snprintf(corpus, sizeof corpus, "%s/DiagnosticReports", tmp);
	mkdir(corpus, 0755);
	KT_CHECK(gen_corpus(corpus) == 0, "corpus generated in %s", corpus);
	const char *pgdb = getenv("KPT_DB");
	on_pg = pgdb && *pgdb;
	if (on_pg)
		snprintf(dbpath, sizeof dbpath, "%s", pgdb);
	else
		snprintf(dbpath, sizeof dbpath, "%s/new/folder/index.sqlite3", tmp);
	tree_hex(corpus, corpus_before);

	test_open_creates_folders();
	if (!db)
		return kt_done();
	test_text_search_is_the_stores_own();
	test_first_scan_counts();
	test_list_newest_first_grouped();
	test_groups_largest_first();
	test_search_uuid();
	test_search_kext();
	test_search_text();
	test_pages();
	test_rescan_leaves_files_alone();
	test_archive_outlives_files();
	test_move_is_a_duplicate();
	test_resign_regroups();
	test_empty_groups_removed();
	test_meta_and_seq();
	kpi_close(&db);
	if (!on_pg) /* after re-signing, superseding and pruning too */
		KT_CHECK(groups_off(dbpath) == 0, "group counts after re-signing are a recount's (%d off)",
		         groups_off(dbpath));
	if (on_pg)
		return kt_done(); /* the rest is about sqlite files */

	test_postgres_targets_recognised();
	test_password_masked();
	test_foreign();
	test_known_objects();
	test_incident();
	test_live_paths();
	test_real();
	test_complete_supersedes_cut();
	test_cut_kept_unless_completed();
	test_changing_file_read_later();
	test_progress_counts_total();
	test_flat_folder_rescan_is_fast();
	test_image_sets_shared();
	test_sha256_migration();
	test_workers_store_what_one_thread_stores();
	return kt_done();
}
