/* test_index_store.c: the store contract (index/kpi_store.h) through the
 * ops table only, so that one test body runs against every store: each
 * backend opens a fresh, empty store and the behaviours below use nothing
 * but db->ops.  The PostgreSQL backend runs when KPT_PG names a fresh,
 * empty database on a throwaway server (tests/test_index_pg.sh starts
 * one); without it that backend is skipped, counted. */
#include "kpi_store.h"
#include "kt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp[1024];

typedef struct backend {
	const char *name;
	/* A fresh, empty store, or NULL with a reason to skip. */
	kpi_db *(*fresh)(const char *tag, char *why, size_t wsize);
} backend;

static kpi_db *sqlite_fresh(const char *tag, char *why, size_t wsize)
{
	char p[1200];
	snprintf(p, sizeof p, "%s/%s.sqlite3", tmp, tag);
	kpi_db *db = NULL;
	kp_error err;
	if (kpi_open(p, KPI_OPEN_CREATE, &db, &err) != KP_OK)
		snprintf(why, wsize, "%s", err.msg);
	return db;
}

static kpi_db *pg_fresh(const char *tag, char *why, size_t wsize)
{
	(void)tag;
	const char *t = getenv("KPT_PG");
	if (!t || !*t) {
		snprintf(why, wsize, "KPT_PG unset (tests/test_index_pg.sh runs it with a server)");
		return NULL;
	}
	kpi_db *db = NULL;
	kp_error err;
	if (kpi_open(t, KPI_OPEN_INIT, &db, &err) != KP_OK)
		snprintf(why, wsize, "%s", err.msg);
	return db;
}

static const backend backends[] = {
	{"sqlite", sqlite_fresh},
	{"postgresql", pg_fresh},
};

/* ---- helpers over the ops ---- */

static int64_t group(kpi_db *db, const char *key)
{
	int64_t gid = 0;
	kp_error err;
	if (db->ops->group_add(db, key, key, NULL, false, &gid, &err) != KP_OK)
		printf("# group_add: %s\n", err.msg);
	return gid;
}

static kpi__new_report report(const char *hash, const char *incident, int64_t ts, int64_t gid)
{
	static const kpi__image images[] = {
		{"5E7A1C2B9D444F1E8B3A77C0DE11A001", "com.example.driver.Widget", 1},
		{"5E7A1C2B9D444F1E8B3A77C0DE11A001", "com.example.driver.Widget", 1}, /* repeated */
		{"C2A94E1077B33E559D101AB2C3D4E5F6", "kernel", 0},
		{"", "org.sample.kext.NoUUID", 2},
	};
	return (kpi__new_report){
		.content_hash = hash, .incident_id = incident, .size = 3, .format = "text",
		.timestamp = "2022-03-01 10:00:00 +0000", .ts = ts, .os_version = "21E258",
		.headline = "Widget ring overflow", .exact_key = hash, .group_id = gid,
		.indexed_at = 1, .images = images, .nimages = 4,
		.text = "Widget ring overflow: slot busy",
	};
}

/* Adds a report in its own transaction; returns its id. */
static int64_t add(kpi_db *db, const kpi__new_report *r, bool *added)
{
	int64_t id = 0;
	kp_error err;
	bool a = false;
	if (db->ops->begin(db, &err) != KP_OK || kpi__report_add(db, r, &id, &a, &err) != KP_OK ||
	    db->ops->groups_refresh(db, &r->group_id, 1, &err) != KP_OK ||
	    db->ops->commit(db, &err) != KP_OK)
		printf("# add: %s\n", err.msg);
	if (added)
		*added = a;
	return id;
}

typedef struct found {
	int n;
	int64_t id[8], seq[8], count[8];
	char role[8][16];
	char path[8][64];
} found;

static int collect(void *ctx, const kpi_report_row *r)
{
	found *f = ctx;
	if (f->n < 8) {
		f->id[f->n] = r->id;
		f->seq[f->n] = r->seq;
		f->count[f->n] = r->group_count;
		snprintf(f->role[f->n], 16, "%s", r->match ? r->match->role : "");
		snprintf(f->path[f->n], 64, "%s", r->path ? r->path : "");
	}
	f->n++;
	return 0;
}

static int collect_group(void *ctx, const kpi_group_row *g)
{
	found *f = ctx;
	if (f->n < 8) {
		f->id[f->n] = g->group_id;
		f->count[f->n] = g->count;
		f->seq[f->n] = g->nreport_ids ? g->report_ids[0] : 0;
		snprintf(f->path[f->n], 64, "%s", g->first_seen ? g->first_seen : "");
	}
	f->n++;
	return 0;
}

/* ---- the behaviours ---- */

static void empty_store_lists_nothing(const char *be, kpi_db *db)
{
	found f = {0};
	kp_error err;
	int64_t *ids = NULL;
	size_t n = 9;
	char *v = (char *)"x";
	KT_CHECK(db->ops->list_reports(db, NULL, collect, &f, &err) == KP_OK && f.n == 0 &&
	         db->ops->list_groups(db, collect_group, &f, &err) == KP_OK && f.n == 0 &&
	         db->ops->report_ids(db, &ids, &n, &err) == KP_OK && n == 0 &&
	         db->ops->meta_get(db, "test.none", &v, &err) == KP_OK && v == NULL,
	         "%s: an empty store lists nothing", be);
	free(ids);
}

static void report_find_or_add(const char *be, kpi_db *db)
{
	int64_t gid = group(db, "g-find");
	bool added = false, again = true, inc = true;
	kpi__new_report r = report("h-find-1", "INC-1", 100, gid);
	int64_t id = add(db, &r, &added);
	int64_t id2 = add(db, &r, &again);
	kpi__new_report other = report("h-find-2", "INC-1", 100, gid);
	int64_t id3 = add(db, &other, &inc);
	KT_CHECK(id > 0 && added && id2 == id && !again && id3 == id && !inc,
	         "%s: find-or-add: the same hash or incident id is one report", be);
	/* the op alone adds or says it did not (kpi__report_add finds) */
	int64_t none_id = 7;
	bool none_added = true;
	kp_error e;
	kp_status st = db->ops->begin(db, &e);
	if (st == KP_OK)
		st = db->ops->report_add(db, &other, &none_id, &none_added, &e);
	db->ops->rollback(db);
	KT_CHECK(st == KP_OK && !none_added && none_id == 0, "%s: report_add of a stored report adds nothing, "
	         "id 0 (%s)", be, st == KP_OK ? "ok" : e.msg);
	int64_t by_hash = 0, by_inc = 0, none = 1;
	kp_error err;
	KT_CHECK(db->ops->report_find(db, "h-find-1", NULL, &by_hash, &err) == KP_OK && by_hash == id &&
	         db->ops->report_find(db, NULL, "INC-1", &by_inc, &err) == KP_OK && by_inc == id &&
	         db->ops->report_find(db, "h-none", NULL, &none, &err) == KP_OK && none == 0,
	         "%s: report_find by hash and by incident id", be);
}

static void rollback_leaves_nothing(const char *be, kpi_db *db)
{
	kp_error err;
	int64_t gid = group(db, "g-rollback"), id = 0, found_id = 1;
	bool added;
	kpi__new_report r = report("h-rollback", NULL, 100, gid);
	KT_CHECK(db->ops->begin(db, &err) == KP_OK && db->ops->report_add(db, &r, &id, &added, &err) == KP_OK,
	         "%s: add inside a transaction", be);
	db->ops->rollback(db);
	KT_CHECK(db->ops->report_find(db, "h-rollback", NULL, &found_id, &err) == KP_OK && found_id == 0,
	         "%s: rolled back: no report", be);
}

static int collect_path(void *ctx, const char *path)
{
	found *f = ctx;
	if (f->n < 8)
		snprintf(f->path[f->n], 64, "%s", path);
	f->n++;
	return 0;
}

static void paths_recorded(const char *be, kpi_db *db)
{
	kp_error err;
	int64_t gid = group(db, "g-paths");
	kpi__new_report r = report("h-paths", NULL, 100, gid);
	int64_t rid = add(db, &r, NULL);
	kpi__path_rec skip, rec, unknown;
	KT_CHECK(db->ops->begin(db, &err) == KP_OK &&
	         db->ops->path_put(db, "/r/notes.txt", 0, 14, 7, 1000, "not a panic report", &err) == KP_OK &&
	         db->ops->path_put(db, "/r/a.panic", rid, 3, 8, 1000, NULL, &err) == KP_OK &&
	         db->ops->path_put(db, "/r/Retired/a.panic", rid, 3, 9, 2000, NULL, &err) == KP_OK &&
	         db->ops->commit(db, &err) == KP_OK, "%s: paths recorded", be);
	KT_CHECK(db->ops->path_get(db, "/r/notes.txt", &skip, &err) == KP_OK && skip.known &&
	         skip.report_id == 0 && skip.size == 14 && skip.mtime_ns == 7 &&
	         db->ops->path_get(db, "/r/a.panic", &rec, &err) == KP_OK && rec.report_id == rid &&
	         db->ops->path_get(db, "/r/none", &unknown, &err) == KP_OK && !unknown.known,
	         "%s: path_get: skipped, a report's, unknown", be);
	found f = {0};
	KT_CHECK(db->ops->report_paths(db, rid, collect_path, &f, &err) == KP_OK && f.n == 2 &&
	         strcmp(f.path[0], "/r/Retired/a.panic") == 0, "%s: a report's paths, most recent first",
	         be);
}

static void archive_round_trip(const char *be, kpi_db *db)
{
	kp_error err;
	int64_t gid = group(db, "g-archive");
	kpi__new_report r = report("h-archive", NULL, 100, gid);
	int64_t id = add(db, &r, NULL);
	static const unsigned char z[] = {0x78, 0x9c, 0x00, 0xff, 0x10};
	KT_CHECK(db->ops->begin(db, &err) == KP_OK && db->ops->archive_add(db, id, z, sizeof z, &err) == KP_OK &&
	         db->ops->commit(db, &err) == KP_OK, "%s: archive stored", be);
	kpi__archive a = {0};
	KT_CHECK(db->ops->archive_get(db, id, &a, &err) == KP_OK && a.zlen == sizeof z &&
	         memcmp(a.z, z, sizeof z) == 0 && a.size == 3 && strcmp(a.hash, "h-archive") == 0 &&
	         a.group_id == gid, "%s: archive bytes, size, hash and group come back", be);
	free(a.z);
	KT_CHECK(db->ops->archive_get(db, 999999, &a, &err) == KP_ERR_NOTFOUND, "%s: unknown id: NOTFOUND",
	         be);
}

/* Every row of a search: the store's page op without a limit. */
static kp_status store_search(kpi_db *db, kpi__search kind, const char *arg, kpi_report_fn fn,
                              void *ctx, size_t *n, kp_error *err)
{
	kpi_page page = {0};
	kp_status st = db->ops->search_page(db, kind, arg, &page, fn, ctx, err);
	*n = page.rows;
	return st;
}

/* A record cut short is replaced in place by the complete report: fields,
 * keys, group, images, search text and archive; id and paths stay. */
static void report_replace_in_place(const char *be, kpi_db *db)
{
	kp_error err;
	int64_t g1 = group(db, "g-replace-cut"), g2 = group(db, "g-replace-full");
	kpi__new_report cut = report("h-replace-cut", "INC-REPLACE", 500, g1);
	cut.text = "Quokkaring overfl";
	static const unsigned char z1[] = {1, 2, 3}, z2[] = {4, 5, 6, 7};
	int64_t id = add(db, &cut, NULL);
	KT_CHECK(db->ops->begin(db, &err) == KP_OK && db->ops->archive_add(db, id, z1, sizeof z1, &err) == KP_OK &&
	         db->ops->path_put(db, "/r/cut.ips", id, 3, 1, 1000, NULL, &err) == KP_OK &&
	         db->ops->commit(db, &err) == KP_OK, "%s: cut record stored", be);

	static const kpi__image img[] = {{"AB7A1C2B9D444F1E8B3A77C0DE11A0FF", "com.example.Whole", 1}};
	kpi__new_report full = report("h-replace-full", "INC-REPLACE", 600, g2);
	full.size = 4;
	full.headline = "Quokkaring overflow at slot 9";
	full.images = img;
	full.nimages = 1;
	full.text = "Quokkaring overflow at slot nine";
	KT_CHECK(db->ops->begin(db, &err) == KP_OK &&
	         db->ops->report_replace(db, id, &full, cut.text, z2, sizeof z2, &err) == KP_OK &&
	         db->ops->groups_refresh(db, (int64_t[]){g1, g2}, 2, &err) == KP_OK &&
	         db->ops->commit(db, &err) == KP_OK, "%s: report_replace (%s)", be, err.msg);
	int64_t by_full = 0, by_cut = -1, by_inc = 0;
	KT_CHECK(db->ops->report_find(db, "h-replace-full", NULL, &by_full, &err) == KP_OK && by_full == id &&
	         db->ops->report_find(db, "h-replace-cut", NULL, &by_cut, &err) == KP_OK && by_cut == 0 &&
	         db->ops->report_find(db, NULL, "INC-REPLACE", &by_inc, &err) == KP_OK && by_inc == id,
	         "%s: the same id now has the complete report's hash", be);
	kpi__archive a = {0};
	KT_CHECK(db->ops->archive_get(db, id, &a, &err) == KP_OK && a.zlen == sizeof z2 &&
	         memcmp(a.z, z2, sizeof z2) == 0 && a.size == 4 && a.group_id == g2,
	         "%s: archive, size and group replaced", be);
	free(a.z);
	found f = {0};
	size_t n = 0;
	KT_CHECK(store_search(db, KPI__SEARCH_TEXT, "nine", collect, &f, &n, &err) == KP_OK && n == 1 &&
	         f.id[0] == id, "%s: the new text is searchable", be);
	f = (found){0};
	KT_CHECK(store_search(db, KPI__SEARCH_TEXT, "overfl", collect, &f, &n, &err) == KP_OK && n == 0,
	         "%s: the cut text is forgotten", be);
	f = (found){0};
	KT_CHECK(store_search(db, KPI__SEARCH_UUID, "AB7A1C2B", collect, &f, &n, &err) == KP_OK && n == 1,
	         "%s: the new image finds it", be);
	f = (found){0};
	store_search(db, KPI__SEARCH_UUID, "C2A94E10", collect, &f, &n, &err);
	bool old_image = false;
	for (int i = 0; i < f.n && i < 8; i++)
		old_image |= f.id[i] == id;
	KT_CHECK(!old_image, "%s: the old images are gone", be);
	f = (found){0};
	KT_CHECK(db->ops->report_paths(db, id, collect_path, &f, &err) == KP_OK && f.n == 1,
	         "%s: paths kept", be);
	KT_CHECK(db->ops->begin(db, &err) == KP_OK &&
	         db->ops->report_replace(db, 999999, &full, NULL, z2, sizeof z2, &err) == KP_ERR_NOTFOUND,
	         "%s: unknown id: NOTFOUND", be);
	db->ops->rollback(db);
}

static void seq_follows_storing_order(const char *be, kpi_db *db)
{
	int64_t gid = group(db, "g-seq");
	kpi__new_report newer = report("h-seq-newer", NULL, 5000, gid);
	kpi__new_report older = report("h-seq-older", NULL, 10, gid); /* stored later, dated earlier */
	int64_t n = add(db, &newer, NULL), o = add(db, &older, NULL);
	found f = {0};
	kp_error err;
	db->ops->list_reports(db, NULL, collect, &f, &err);
	int64_t sn = -1, so = -1;
	for (int i = 0; i < f.n && i < 8; i++) {
		if (f.id[i] == n)
			sn = f.seq[i];
		if (f.id[i] == o)
			so = f.seq[i];
	}
	KT_CHECK(sn > 0 && so > sn, "%s: seq grows with storing order, not report time (%lld > %lld)", be,
	         (long long)so, (long long)sn);
}

static void groups_count_and_regroup(const char *be, kpi_db *db)
{
	kp_error err;
	int64_t g1 = group(db, "g-regroup-1"), g2 = group(db, "g-regroup-2");
	kpi__new_report r1 = report("h-regroup-1", NULL, 1714557600, g1);
	kpi__new_report r2 = report("h-regroup-2", NULL, 1714561200, g1);
	int64_t i1 = add(db, &r1, NULL), i2 = add(db, &r2, NULL);
	found f = {0};
	db->ops->list_groups(db, collect_group, &f, &err);
	int k = -1;
	for (int i = 0; i < f.n && i < 8; i++)
		if (f.id[i] == g1)
			k = i;
	KT_CHECK(k >= 0 && f.count[k] == 2 && f.seq[k] == i2 && strcmp(f.path[k], "2022-03-01T10:00:00+00:00") == 0,
	         "%s: a group counts its reports, newest first, first seen as its first report states it (ISO 8601)", be);
	KT_CHECK(db->ops->begin(db, &err) == KP_OK &&
	         db->ops->report_regroup(db, i1, "moved", "h-regroup-1", g2, &err) == KP_OK &&
	         db->ops->report_regroup(db, i2, "moved", "h-regroup-2", g2, &err) == KP_OK &&
	         db->ops->groups_refresh(db, (int64_t[]){g1, g2}, 2, &err) == KP_OK &&
	         db->ops->groups_prune(db, &err) == KP_OK && db->ops->commit(db, &err) == KP_OK,
	         "%s: regroup and prune", be);
	int64_t again = 0;
	memset(&f, 0, sizeof f);
	db->ops->list_groups(db, collect_group, &f, &err);
	bool g1_gone = true;
	for (int i = 0; i < f.n && i < 8; i++)
		if (f.id[i] == g1)
			g1_gone = false;
	KT_CHECK(g1_gone, "%s: the emptied group is gone", be);
	KT_CHECK(db->ops->group_add(db, "g-regroup-2", "new title", "com.example.Culprit", true, &again,
	                            &err) == KP_OK && again == g2, "%s: group_add finds the group by key", be);
}

static void search_by_uuid_kext_text(const char *be, kpi_db *db)
{
	kp_error err;
	int64_t gid = group(db, "g-search");
	kpi__new_report r = report("h-search", NULL, 100, gid);
	r.text = "Gadget watchdog: firmware stopped responding";
	int64_t id = add(db, &r, NULL);
	found f = {0};
	size_t n = 0;
	KT_CHECK(store_search(db, KPI__SEARCH_UUID, "C2A94E10", collect, &f, &n, &err) == KP_OK &&
	         n >= 1 && strcmp(f.role[0], "kernel") == 0, "%s: UUID prefix finds the kernel role", be);
	memset(&f, 0, sizeof f);
	KT_CHECK(store_search(db, KPI__SEARCH_KEXT, "ORG.sample.kext.nouuid", collect, &f, &n, &err) ==
	         KP_OK && n >= 1, "%s: kext by bundle id, any case", be);
	memset(&f, 0, sizeof f);
	KT_CHECK(store_search(db, KPI__SEARCH_KEXT_LAST, "nouuid", collect, &f, &n, &err) == KP_OK &&
	         n >= 1, "%s: kext by the last part of its bundle id, any case", be);
	memset(&f, 0, sizeof f);
	KT_CHECK(store_search(db, KPI__SEARCH_KEXT_LAST, "UUID", collect, &f, &n, &err) == KP_OK &&
	         n == 0, "%s: only a whole last part matches", be);
	memset(&f, 0, sizeof f);
	KT_CHECK(store_search(db, KPI__SEARCH_KEXT_LAST, "kernel", collect, &f, &n, &err) == KP_OK &&
	         n >= 1, "%s: a name without dots matches itself", be);
	memset(&f, 0, sizeof f);
	KT_CHECK(store_search(db, KPI__SEARCH_TEXT, "firmware stopped", collect, &f, &n, &err) == KP_OK &&
	         n == 1 && f.id[0] == id, "%s: text search", be);
	KT_CHECK(store_search(db, KPI__SEARCH_TEXT, "\"firmware OR NEAR(", collect, &f, &n, &err) == KP_OK &&
	         n == 0, "%s: query syntax in the text is text", be);
}

/* Every loaded kext is searched (schema 8), by bundle id, last part and
 * UUID, through the set reports that loaded the same kexts share: a match
 * of rank 2 (image) where the report's images hold none; report_kexts
 * gives a stored report its set. */
static void loaded_kexts_searched(const char *be, kpi_db *db)
{
	kp_error err;
	static const kpi__image set_a[] = {
		{"", "com.apple.iokit.KptOnlyLoaded", 2},
		{"AB12CD34EF5640718293A4B5C6D7E8F9", "com.apple.driver.KptWithUUID", 2},
		{"5E7A1C2B9D444F1E8B3A77C0DE11A001", "com.example.driver.Widget", 2},
	};
	static const kpi__image set_b[] = {{"", "com.apple.iokit.KptOther", 2}};
	int64_t gid = group(db, "g-loaded");
	kpi__new_report r1 = report("h-loaded-1", NULL, 100, gid), r2 = report("h-loaded-2", NULL, 101, gid),
	                r3 = report("h-loaded-3", NULL, 102, gid), r4 = report("h-loaded-4", NULL, 103, gid);
	r1.kexts = r2.kexts = (kpi__kext_set){set_a, 3, "aaaa000000000000000000000000000000000001"};
	r3.kexts = (kpi__kext_set){set_b, 1, "bbbb000000000000000000000000000000000002"};
	int64_t id1 = add(db, &r1, NULL), id2 = add(db, &r2, NULL), id3 = add(db, &r3, NULL),
	        id4 = add(db, &r4, NULL);
	found f = {0};
	size_t n = 0;
	KT_CHECK(store_search(db, KPI__SEARCH_KEXT, "COM.APPLE.iokit.kptonlyloaded", collect, &f, &n, &err) ==
	                 KP_OK && n == 2 && f.id[0] == id2 && f.id[1] == id1 && strcmp(f.role[0], "image") == 0,
	         "%s: a kext only loaded, Apple's, by bundle id: the two reports of its set", be);
	memset(&f, 0, sizeof f);
	KT_CHECK(store_search(db, KPI__SEARCH_KEXT_LAST, "kptwithuuid", collect, &f, &n, &err) == KP_OK && n == 2,
	         "%s: by its last part", be);
	memset(&f, 0, sizeof f);
	KT_CHECK(store_search(db, KPI__SEARCH_UUID, "AB12CD34EF", collect, &f, &n, &err) == KP_OK && n == 2 &&
	                 strcmp(f.role[0], "image") == 0,
	         "%s: by a loaded kext's UUID", be);
	memset(&f, 0, sizeof f);
	KT_CHECK(store_search(db, KPI__SEARCH_KEXT, "com.apple.iokit.KptOther", collect, &f, &n, &err) == KP_OK &&
	                 n == 1 && f.id[0] == id3,
	         "%s: another set, its report alone", be);
	/* a kext the images hold too keeps the images' match (backtrace) */
	memset(&f, 0, sizeof f);
	KT_CHECK(store_search(db, KPI__SEARCH_KEXT, "com.example.driver.Widget", collect, &f, &n, &err) == KP_OK &&
	                 n >= 4 && strcmp(f.role[0], "backtrace") == 0,
	         "%s: a kext in the images too: their role", be);
	kpi__kext_set ks = {set_b, 1, "bbbb000000000000000000000000000000000002"};
	KT_CHECK(db->ops->begin(db, &err) == KP_OK && db->ops->report_kexts(db, id4, &ks, &err) == KP_OK &&
	                 db->ops->commit(db, &err) == KP_OK,
	         "%s: report_kexts gives a stored report its set", be);
	memset(&f, 0, sizeof f);
	KT_CHECK(store_search(db, KPI__SEARCH_KEXT, "com.apple.iokit.KptOther", collect, &f, &n, &err) == KP_OK &&
	                 n == 2 && f.id[0] == id4 && f.id[1] == id3,
	         "%s:   found by it then", be);
	kpi_page page = {.limit = 1};
	memset(&f, 0, sizeof f);
	KT_CHECK(db->ops->search_page(db, KPI__SEARCH_KEXT, "com.apple.iokit.KptOnlyLoaded", &page, collect, &f,
	                              &err) == KP_OK && page.total == 2 && page.rows == 1 && f.id[0] == id2,
	         "%s: a page of one: the newest, of 2", be);
}

typedef struct hostrows {
	int n;
	char host[8][32], key[8][48], builds[8][64];
	int64_t reports[8];
} hostrows;

static int collect_host(void *ctx, const kpi_host_row *h)
{
	hostrows *f = ctx;
	if (f->n < 8) {
		snprintf(f->host[f->n], 32, "%s", h->host ? h->host : "");
		snprintf(f->key[f->n], 48, "%s", h->host_key ? h->host_key : "");
		snprintf(f->builds[f->n], 64, "%s", h->builds ? h->builds : "");
		f->reports[f->n] = h->reports;
	}
	f->n++;
	return 0;
}

/* Reports know their Mac; groups count distinct Macs (the report's key,
 * else the pushing host's name); hosts list and filter. */
static void hosts_counted(const char *be, kpi_db *db)
{
	kp_error err;
	int64_t gid = group(db, "g-hosts");
	kpi__new_report a = report("h-host-a", NULL, 7000, gid), b = report("h-host-b", NULL, 7001, gid),
	                c = report("h-host-c", NULL, 7002, gid);
	a.host = "lab-mac-01", a.host_key = "KEY-ONE", a.model = "Mac14,3";
	b.host = "lab-mac-02", b.os_version = "22A380";
	c.host = "lab-mac-01-renamed", c.host_key = "KEY-ONE"; /* same Mac, new name */
	add(db, &a, NULL), add(db, &b, NULL), add(db, &c, NULL);
	found f = {0};
	db->ops->list_groups(db, collect_group, &f, &err);
	int64_t hosts = -1;
	for (int i = 0; i < f.n && i < 8; i++)
		if (f.id[i] == gid)
			hosts = f.count[i];
	KT_CHECK(hosts == 3, "%s: the group counts 3 reports (%lld)", be, (long long)hosts);
	memset(&f, 0, sizeof f);
	KT_CHECK(db->ops->list_reports(db, "lab-mac-02", collect, &f, &err) == KP_OK && f.n == 1,
	         "%s: list by host name (%d)", be, f.n);
	memset(&f, 0, sizeof f);
	KT_CHECK(db->ops->list_reports(db, "key-one", collect, &f, &err) == KP_OK && f.n == 2,
	         "%s: list by host key, any case (%d)", be, f.n);
	hostrows h = {0};
	KT_CHECK(db->ops->list_hosts(db, collect_host, &h, &err) == KP_OK && h.n >= 2,
	         "%s: hosts listed (%d)", be, h.n);
	int one = -1, two = -1;
	for (int i = 0; i < h.n && i < 8; i++) {
		if (strcmp(h.key[i], "KEY-ONE") == 0)
			one = i;
		if (strcmp(h.host[i], "lab-mac-02") == 0)
			two = i;
	}
	KT_CHECK(one >= 0 && h.reports[one] == 2 && strcmp(h.host[one], "lab-mac-01-renamed") == 0 &&
	         two >= 0 && strcmp(h.builds[two], "22A380") == 0 && one < two,
	         "%s: one host per key under its latest name, newest first, with its builds", be);
}

static int group_hosts_of(void *ctx, const kpi_group_row *g)
{
	int64_t *want = ctx;
	if (g->group_id == want[0])
		want[1] = g->hosts;
	return 0;
}

static void groups_count_hosts(const char *be, kpi_db *db)
{
	kp_error err;
	int64_t v[2] = {0, -1};
	/* hosts_counted's group: KEY-ONE (two names) and lab-mac-02 */
	db->ops->group_add(db, "g-hosts", "g-hosts", NULL, false, &v[0], &err);
	db->ops->list_groups(db, group_hosts_of, v, &err);
	KT_CHECK(v[1] == 2, "%s: 3 reports on 2 Macs (%lld)", be, (long long)v[1]);
}

typedef struct bad_row {
	int64_t id;
	char headline[64], host[64];
} bad_row;

static int collect_bad(void *ctx, const kpi_report_row *r)
{
	bad_row *b = ctx;
	if (r->id == b->id) {
		snprintf(b->headline, sizeof b->headline, "%s", r->headline ? r->headline : "");
		snprintf(b->host, sizeof b->host, "%s", r->host ? r->host : "");
	}
	return 0;
}

/* Issue 19 item 2: text that is not UTF-8 (a report's headline and text,
 * the pushing Mac's name, a file name) is stored with U+FFFD for each bad
 * byte, the same on every store: a UTF8 server refused the whole push. */
static void bad_bytes_stored_alike(const char *be, kpi_db *db)
{
	kp_error err;
	int64_t gid = group(db, "g-bad-\xff");
	kpi__new_report r = report("h-bad-bytes", NULL, 100, gid);
	r.headline = "bad \xff byte";
	r.text = "slot \xc0\xaf busy";
	r.host = "mac-\xfe";
	static const kpi__image bad_image[] = {{"", "org.bad.\xfe", 2}};
	static const kpi__image bad_kext[] = {{"", "com.bad.\xff", 2}};
	r.images = bad_image;
	r.nimages = 1;
	r.kexts = (kpi__kext_set){bad_kext, 1, "badbad0000000000000000000000000000000003"};
	bad_row b = {.id = add(db, &r, NULL)};
	KT_CHECK(b.id > 0 && db->ops->begin(db, &err) == KP_OK &&
	         db->ops->path_put(db, "/r/\xff.panic", b.id, 3, 8, 1000, NULL, &err) == KP_OK &&
	         db->ops->commit(db, &err) == KP_OK, "%s: bad bytes stored", be);
	found f = {0};
	KT_CHECK(db->ops->list_reports(db, NULL, collect_bad, &b, &err) == KP_OK &&
	         strcmp(b.headline, "bad \xef\xbf\xbd byte") == 0 && strcmp(b.host, "mac-\xef\xbf\xbd") == 0 &&
	         db->ops->report_paths(db, b.id, collect_path, &f, &err) == KP_OK && f.n == 1 &&
	         strcmp(f.path[0], "/r/\xef\xbf\xbd.panic") == 0,
	         "%s: each bad byte read back as U+FFFD (headline, host, path)", be);
	size_t ni = 0, nk = 0;
	found fi = {0}, fk = {0};
	KT_CHECK(store_search(db, KPI__SEARCH_KEXT, "org.bad.\xef\xbf\xbd", collect, &fi, &ni, &err) == KP_OK &&
	                 ni == 1 && fi.id[0] == b.id &&
	                 store_search(db, KPI__SEARCH_KEXT, "com.bad.\xef\xbf\xbd", collect, &fk, &nk, &err) == KP_OK &&
	                 nk == 1 && fk.id[0] == b.id,
	         "%s: an image's and a loaded kext's bad bytes stored as U+FFFD, found by them", be);
}

static void meta_set_and_get(const char *be, kpi_db *db)
{
	kp_error err;
	char *v = NULL;
	KT_CHECK(db->ops->meta_set(db, "test.k", "1", &err) == KP_OK &&
	         db->ops->meta_set(db, "test.k", "two", &err) == KP_OK &&
	         db->ops->meta_get(db, "test.k", &v, &err) == KP_OK && v && strcmp(v, "two") == 0,
	         "%s: meta set overwrites, get reads it back", be);
	free(v);
}

/* ---- trends (kpi_group_trends over the store's trend_rows) ---- */

#define TDAY 86400
#define TNOW 20513   /* 2026-03-01, days since the epoch */

/* n reports of group key, one every step days from day first, on build */
static int64_t trend_reports(kpi_db *db, const char *key, int first, int n, int step, const char *build)
{
	int64_t gid = group(db, key);
	for (int i = 0; i < n; i++) {
		char hash[96], os[64];
		snprintf(hash, sizeof hash, "trend-%s-%d-%s", key, first + i * step, build);
		snprintf(os, sizeof os, "macOS 14 (%s)", build);
		kpi__new_report r = report(hash, NULL, (int64_t)(TNOW + first + i * step) * TDAY + 3600, gid);
		r.os_version = os;
		r.images = NULL;
		r.nimages = 0;
		add(db, &r, NULL);
	}
	return gid;
}

static void trends_flags(const char *be, kpi_db *db)
{
	/* the fleet before the window: 23C64 then 23D56 */
	trend_reports(db, "t-base", -120, 1, 1, "23C64");
	trend_reports(db, "t-base", -100, 1, 1, "23D56");
	int64_t steady = trend_reports(db, "t-steady", -80, 40, 1, "23C64");
	trend_reports(db, "t-steady", -40, 40, 1, "23D56");
	int64_t fresh = trend_reports(db, "t-new", -2, 1, 1, "23D56");
	int64_t buildnew = trend_reports(db, "t-buildnew", -20, 3, 1, "24A335");
	int64_t quiet = trend_reports(db, "t-quiet", -70, 2, 1, "23D56");
	trend_reports(db, "t-quiet", -10, 1, 1, "23D56");
	/* 11 on 23C64 until day -30, none on 23D56 (which the fleet ran: 42
	 * reports), then 24A335: stopped, and back on a newer build */
	int64_t stopped = trend_reports(db, "t-stopped", -60, 11, 3, "23C64");
	trend_reports(db, "t-stopped", -12, 2, 1, "24A335");
	/* one each side of 23D56: too few to say it stopped there */
	int64_t rare = trend_reports(db, "t-rare", -30, 1, 1, "23C64");
	trend_reports(db, "t-rare", -15, 1, 1, "24A335");
	kpi__new_report u = report("trend-undated", NULL, KPI__UNDATED, rare);
	u.os_version = NULL;
	u.images = NULL;
	u.nimages = 0;
	add(db, &u, NULL);

	setenv("KPBROWSE_NOW", "2026-03-01", 1);
	kpi_trends *t = NULL;
	kp_error err;
	kp_status st = kpi_group_trends(db, &t, &err);
	KT_CHECK(st == KP_OK, "%s: trends read (%s)", be, st == KP_OK ? "" : err.msg);
	KT_CHECK(kpi_trends_today(t) == TNOW, "%s: now is KPBROWSE_NOW's day (%lld)", be,
	         (long long)kpi_trends_today(t));
	const kpi_trend *s = kpi_trends_get(t, steady), *n = kpi_trends_get(t, fresh),
	                *b = kpi_trends_get(t, buildnew), *q = kpi_trends_get(t, quiet),
	                *x = kpi_trends_get(t, stopped), *r = kpi_trends_get(t, rare);
	KT_CHECK(s && n && b && q && x && r, "%s: every group has a trend", be);
	if (s && n && b && q && x && r) {
		KT_CHECK(s->ndays == 81 && s->day0 == TNOW - 80 && s->days[0] == 1 && s->days[79] == 1 &&
		         s->days[80] == 0, "%s: steady: one a day from its first day to yesterday (%d days)", be,
		         s->ndays);
		KT_CHECK(s->last7 == 6 && s->prev7 == 7, "%s: steady: 6 in the last 7 days, 7 before (%lld, %lld)", be,
		         (long long)s->last7, (long long)s->prev7);
		KT_CHECK(s->nbuilds == 2 && strcmp(s->first_build, "23C64") == 0 && strcmp(s->last_build, "23D56") == 0 &&
		         s->builds[0].count == 40 && s->builds[1].count == 40, "%s: steady: builds oldest first, counted", be);
		KT_CHECK(!s->is_new && !s->regressed, "%s: steady is neither new nor regressed", be);
		KT_CHECK(n->is_new && !n->new_build && !n->regressed, "%s: first seen 2 days ago: new", be);
		KT_CHECK(b->is_new && b->new_build && kpi_trend_growth(b) == 0 && b->last7 == 0,
		         "%s: first seen 20 days ago on a build newer than all before: new", be);
		KT_CHECK(q->regressed && q->quiet_days == 58 && !q->stopped_build,
		         "%s: back after 58 quiet days: regressed (%lld)", be, (long long)q->quiet_days);
		KT_CHECK(x->regressed && !x->quiet_days && x->stopped_build && strcmp(x->stopped_build, "23D56") == 0,
		         "%s: none on 23D56 where it was expected, back on 24A335: regressed (%s)", be,
		         x->stopped_build ? x->stopped_build : "-");
		KT_CHECK(!r->regressed && !r->is_new && r->undated == 1 && r->nday == 2,
		         "%s: two reports around 23D56 say nothing; its undated one counted apart", be);
	}
	kpi_trends_free(&t);
	setenv("KPBROWSE_NOW", "yesterday", 1);
	KT_CHECK(kpi_group_trends(db, &t, &err) == KP_ERR_USAGE && !t && strstr(err.msg, "KPBROWSE_NOW"),
	         "%s: a KPBROWSE_NOW that is no date is refused, said", be);
	unsetenv("KPBROWSE_NOW");
}

static void builds_compare(void)
{
	KT_CHECK(kpi_build_cmp("23C64", "23D56") < 0 && kpi_build_cmp("23D56", "24A335") < 0 &&
	         kpi_build_cmp("9A1", "10A1") < 0 && kpi_build_cmp("23A344", "23A5286i") < 0 &&
	         kpi_build_cmp("23C64", "23C64a") < 0 && kpi_build_cmp("23C64a", "23C64b") < 0 &&
	         kpi_build_cmp("23C64", "23C64") == 0 && kpi_build_cmp("junk", "1A1") < 0,
	         "builds compare by major, letter, number, trailing letters");
	char b[32];
	KT_CHECK(kpi_build_of("macOS 14.2.1 (23C71)", b, sizeof b) && strcmp(b, "23C71") == 0 &&
	         kpi_build_of("Mac OS X 10.15.7 (19H2)", b, sizeof b) && strcmp(b, "19H2") == 0 &&
	         kpi_build_of("16B2555", b, sizeof b) && strcmp(b, "16B2555") == 0 &&
	         kpi_build_of("macOS 15.0 (24A5286i)", b, sizeof b) && strcmp(b, "24A5286i") == 0 &&
	         !kpi_build_of("macOS 14", b, sizeof b) && !b[0] && !kpi_build_of("(23C71", b, sizeof b) &&
	         !kpi_build_of("(\x1b[31m)", b, sizeof b),
	         "a build is taken from an OS version, nothing else");
}

/* report_rehash (the schema 11 fill): the report is found by its new hash
 * only; a hash another report holds is refused, nothing changed; and
 * meta_set inside the open transaction is that transaction's. */
static void report_rehash_in_tx(const char *be, kpi_db *db)
{
	kp_error err;
	int64_t gid = group(db, "g-rehash");
	kpi__new_report r = report("h-rehash-old", NULL, 100, gid), o = report("h-rehash-other", NULL, 100, gid);
	int64_t id = add(db, &r, NULL), other = add(db, &o, NULL), by_new = 0, by_old = 1, still = 0;
	KT_CHECK(db->ops->begin(db, &err) == KP_OK && db->ops->report_rehash(db, id, "h-rehash-new", &err) == KP_OK &&
	         db->ops->meta_set(db, "test.rehash", "in tx", &err) == KP_OK && db->ops->commit(db, &err) == KP_OK,
	         "%s: report_rehash and meta_set in one transaction (%s)", be, err.msg);
	KT_CHECK(db->ops->report_find(db, "h-rehash-new", NULL, &by_new, &err) == KP_OK && by_new == id &&
	         db->ops->report_find(db, "h-rehash-old", NULL, &by_old, &err) == KP_OK && by_old == 0,
	         "%s: a rehashed report is found by its new hash only", be);
	kp_status st = db->ops->begin(db, &err);
	if (st == KP_OK)
		st = db->ops->report_rehash(db, other, "h-rehash-new", &err);
	db->ops->rollback(db);
	KT_CHECK(st == KP_ERR_DB && db->ops->report_find(db, "h-rehash-other", NULL, &still, &err) == KP_OK &&
	         still == other, "%s: a hash another report holds is refused", be);
	db->ops->begin(db, &err);
	db->ops->meta_set(db, "test.rehash", "rolled back", &err);
	db->ops->rollback(db);
	char *v = NULL;
	KT_CHECK(db->ops->meta_get(db, "test.rehash", &v, &err) == KP_OK && v && strcmp(v, "in tx") == 0,
	         "%s: meta_set in an open transaction goes with its rollback (%s)", be, v ? v : "unset");
	free(v);
}

int main(void)
{
	builds_compare();
	const char *td = getenv("TMPDIR");
	snprintf(tmp, sizeof tmp, "%s/kpi-store-XXXXXX", td && *td ? td : "/tmp");
	if (!mkdtemp(tmp)) {
		KT_CHECK(0, "mkdtemp");
		return kt_done();
	}
	for (size_t b = 0; b < sizeof backends / sizeof *backends; b++) {
		const char *be = backends[b].name;
		char why[300] = "";
		kpi_db *db = backends[b].fresh("store", why, sizeof why);
		if (!db) {
			char msg[400];
			snprintf(msg, sizeof msg, "%s store unavailable: %s", be, why);
			KT_SKIP(msg);
			continue;
		}
		empty_store_lists_nothing(be, db);
		report_find_or_add(be, db);
		rollback_leaves_nothing(be, db);
		paths_recorded(be, db);
		archive_round_trip(be, db);
		report_replace_in_place(be, db);
		seq_follows_storing_order(be, db);
		groups_count_and_regroup(be, db);
		search_by_uuid_kext_text(be, db);
		loaded_kexts_searched(be, db);
		meta_set_and_get(be, db);
		report_rehash_in_tx(be, db);
		hosts_counted(be, db);
		groups_count_hosts(be, db);
		bad_bytes_stored_alike(be, db);
		trends_flags(be, db);
		db->ops->close(db);
	}
	return kt_done();
}
