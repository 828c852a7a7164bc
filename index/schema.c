/* schema.c: the schema steps (schema.h): the one list, each step's SQL
 * for both dialects, and the fills the index layer runs after them (every
 * report's facts from its archive, as a store never reads report files). */
#include "schema.h"
#include "archive.h"
#include "kp_fs.h"
#include "scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOST_IDENT KPI__HOST_IDENT_SQL
#define DATED_TS KPI__DATED_TS_SQL

/* ---- the sqlite store's SQL ---- */

static const char sq_v1[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE groups("
	" id INTEGER PRIMARY KEY,"
	" key TEXT NOT NULL UNIQUE,"          /* hex SHA-1 group key */
	" title TEXT NOT NULL,"
	" culprit TEXT,"
	" count INTEGER NOT NULL DEFAULT 0,"
	" first_seen INTEGER, last_seen INTEGER);" /* epoch seconds */
	"CREATE TABLE reports("
	" id INTEGER PRIMARY KEY,"
	" content_hash TEXT NOT NULL UNIQUE," /* hex SHA-1 of the original bytes (v11: SHA-256) */
	" incident_id TEXT UNIQUE,"
	" size INTEGER NOT NULL,"
	" format TEXT,"
	" timestamp TEXT,"                    /* as the report wrote it */
	" ts INTEGER NOT NULL,"               /* epoch seconds: report time (v4: KPI__UNDATED without one) */
	" os_version TEXT,"
	" kernel_uuid TEXT,"
	" headline TEXT,"                     /* as the report says it */
	" exact_key TEXT NOT NULL,"
	" group_id INTEGER NOT NULL REFERENCES groups(id),"
	" indexed_at INTEGER NOT NULL,"
	" archive BLOB NOT NULL);"            /* v1 only: moved to archives by v2 */
	"CREATE INDEX reports_group ON reports(group_id, ts);"
	"CREATE INDEX reports_ts ON reports(ts);"
	"CREATE INDEX reports_exact ON reports(exact_key);"
	"CREATE TABLE paths("
	" path TEXT PRIMARY KEY,"
	" report_id INTEGER REFERENCES reports(id)," /* NULL: skipped, see skip_reason */
	" size INTEGER NOT NULL,"
	" mtime INTEGER NOT NULL,"            /* nanoseconds */
	" seen_at INTEGER NOT NULL,"
	" skip_reason TEXT) WITHOUT ROWID;"
	"CREATE INDEX paths_report ON paths(report_id);"
	"CREATE TABLE images("
	" report_id INTEGER NOT NULL REFERENCES reports(id),"
	" rank INTEGER NOT NULL,"             /* role: 0 kernel, 1 backtrace, 2 image, 3 dependency */
	" uuid_hex TEXT NOT NULL,"            /* 32 upper-case hex digits, '' when unknown */
	" name TEXT NOT NULL,"                /* '' when unknown */
	" PRIMARY KEY(report_id, rank, uuid_hex, name)) WITHOUT ROWID;"
	"CREATE INDEX images_uuid ON images(uuid_hex) WHERE uuid_hex <> '';"
	"CREATE INDEX images_name ON images(name COLLATE NOCASE) WHERE name <> '';";

/* v2: the original bytes (zlib-compressed) move to a table of their own, so
 * that listing reports never pages through them.  DROP COLUMN needs sqlite
 * 3.35 (macOS 12 ships 3.36). */
static const char sq_v2[] =
	"CREATE TABLE archives("
	" report_id INTEGER PRIMARY KEY REFERENCES reports(id),"
	" data BLOB NOT NULL);"
	"INSERT INTO archives(report_id, data) SELECT id, archive FROM reports;"
	"ALTER TABLE reports DROP COLUMN archive;";

/* v3: the Mac a report came from (issue 16): the pushing host's name, the
 * report's own key, the model; groups count distinct hosts.  Reports
 * indexed before keep NULLs (one unnamed host). */
static const char sq_v3[] =
	"ALTER TABLE reports ADD COLUMN host TEXT;"
	"ALTER TABLE reports ADD COLUMN host_key TEXT;"
	"ALTER TABLE reports ADD COLUMN model TEXT;"
	"ALTER TABLE groups ADD COLUMN hosts INTEGER NOT NULL DEFAULT 0;"
	"CREATE INDEX reports_host ON reports(host);"
	"CREATE INDEX reports_host_key ON reports(host_key COLLATE NOCASE);"
	"CREATE INDEX reports_ident ON reports(" HOST_IDENT ", os_version);"
	"UPDATE groups SET hosts = (SELECT count(DISTINCT " HOST_IDENT ") FROM reports "
	"WHERE group_id = groups.id);";

/* v4: what a report is (kind: panic, watchdog, stackshot, reset) and a
 * zone exhaustion panic's suspect zone (issue 14); an undated report's ts
 * is KPI__UNDATED, no longer the file's time.  Rows stored before get
 * kind and zone, and the date of those whose timestamp the index does not
 * understand, from their archives: the index layer's step at 4
 * (kpi__migrated_fn), not this store's. */
static const char sq_v4[] =
	"ALTER TABLE reports ADD COLUMN kind TEXT;"
	"ALTER TABLE reports ADD COLUMN zone TEXT;"
	"CREATE INDEX reports_zone ON reports(zone COLLATE NOCASE) WHERE zone IS NOT NULL;"
	"UPDATE reports SET ts = " KPI__UNDATED_SQL " WHERE timestamp IS NULL;"
	"UPDATE groups SET "
	"first_seen = (SELECT min(" DATED_TS ") FROM reports WHERE group_id = groups.id), "
	"last_seen = (SELECT max(" DATED_TS ") FROM reports WHERE group_id = groups.id);";

/* v6: a bundle id's last part indexed, so K and search --kext without a
 * dot (IOUSBHostFamily) read the index instead of every image row. */
static const char sq_v6[] =
	"CREATE INDEX IF NOT EXISTS images_last ON images(" KPI__LAST_PART_SQL("name") " COLLATE NOCASE) WHERE name <> '';";

/* v7: each group's hosts kept as rows (as the PostgreSQL store has from
 * its start), so that adding a report counts its group in a few row
 * writes instead of a recount of every report of the group (a count of
 * distinct hosts per batch was a seventh of a cold 100k scan, issue 25). */
static const char sq_v7[] =
	"CREATE TABLE group_hosts("
	" group_id INTEGER NOT NULL,"
	" ident TEXT NOT NULL,"               /* HOST_IDENT of a report of the group */
	" PRIMARY KEY(group_id, ident)) WITHOUT ROWID;"
	"INSERT OR IGNORE INTO group_hosts(group_id, ident) SELECT DISTINCT group_id, " HOST_IDENT
	" FROM reports;"
	"UPDATE groups SET hosts = (SELECT count(*) FROM group_hosts WHERE group_id = groups.id);";

/* v8: every loaded kext of a report, Apple's too (issue 20: search --kext
 * com.apple.iokit.IONVMeFamily), before only third-party ones (or ones
 * with a UUID) as images.  A list is kept once as a set (kext_sets, by
 * the SHA-1 of its sorted members) that every report which loaded the
 * same kexts names (reports.kext_set): a Mac's list changes little, so
 * a cold scan writes one column, not a hundred rows, per report.  Rows
 * stored before get theirs from their archives: the index layer's step at
 * 8 (kpi__migrated_fn). */
static const char sq_v8[] =
	"CREATE TABLE kexts("
	" id INTEGER PRIMARY KEY,"
	" name TEXT NOT NULL,"                /* bundle id, '' when unknown */
	" uuid_hex TEXT NOT NULL,"            /* 32 upper-case hex digits, '' when unknown */
	" UNIQUE(name, uuid_hex));"
	"CREATE INDEX kexts_name ON kexts(name COLLATE NOCASE) WHERE name <> '';"
	"CREATE INDEX kexts_last ON kexts(" KPI__LAST_PART_SQL("name") " COLLATE NOCASE) WHERE name <> '';"
	"CREATE INDEX kexts_uuid ON kexts(uuid_hex) WHERE uuid_hex <> '';"
	"CREATE TABLE kext_sets(id INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE);"
	"CREATE TABLE kext_set_members("
	" kext_id INTEGER NOT NULL REFERENCES kexts(id),"
	" set_id INTEGER NOT NULL REFERENCES kext_sets(id),"
	" PRIMARY KEY(kext_id, set_id)) WITHOUT ROWID;"
	"CREATE INDEX kext_set_members_set ON kext_set_members(set_id);"
	"ALTER TABLE reports ADD COLUMN kext_set INTEGER REFERENCES kext_sets(id);"
	"CREATE INDEX reports_kext_set ON reports(kext_set) WHERE kext_set IS NOT NULL;";

/* v9: the text search leaves out the loaded kext list (scan_file.c's
 * fts_text; searched by kext since schema 8): a contentless FTS5 row is
 * deleted by naming the words it was given, so rows made by the old rule
 * cannot stay beside the new.  Emptied by the store (empty_text_v9); the
 * index layer's fill at 9 adds every report's text again from its archive.
 * And reports_exact goes: no query reads it, and a key as random as a
 * hash cost each added report a B-tree insert and each commit the pages
 * it touched all over the index (issue 25).  And an image's last part
 * becomes a column (images.last, written by report_add), its index no
 * longer on KPI__LAST_PART_SQL: sqlite computed that expression (an rtrim
 * by a set as long as the name) for every image row added, half the cost
 * of recording one. */
static const char sq_v9[] =
	"DROP INDEX IF EXISTS reports_exact;"
	"UPDATE images SET last = " KPI__LAST_PART_SQL("name") " WHERE name <> '';"
	"DROP INDEX IF EXISTS images_last;"
	"CREATE INDEX images_last ON images(last COLLATE NOCASE) WHERE name <> '';";

/* v10: a report's images kept once per distinct list, as schema 8 keeps
 * loaded kexts: a set (image_sets, by kpi__images_canon's hash) that
 * every report with the same list names (reports.image_set).  A report
 * of five images cost five rows of four B-trees each, the largest part
 * of recording a small report (issue 25); the reports of a Mac and a bug
 * share a handful of lists.  The rows stored before are grouped by the
 * store (regroup_v10), a report at a time, in the images table's own order. */
static const char sq_v10[] =
	"CREATE TABLE image_sets(id INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE);"
	"CREATE TABLE image_members("
	" set_id INTEGER NOT NULL REFERENCES image_sets(id),"
	" rank INTEGER NOT NULL,"             /* role: 0 kernel, 1 backtrace, 2 image, 3 dependency */
	" uuid_hex TEXT NOT NULL,"            /* 32 upper-case hex digits, '' when unknown */
	" name TEXT NOT NULL,"                /* '' when unknown */
	" last TEXT NOT NULL,"                /* the name's last part (schema 9) */
	" PRIMARY KEY(set_id, rank, uuid_hex, name)) WITHOUT ROWID;"
	"CREATE INDEX image_members_uuid ON image_members(uuid_hex) WHERE uuid_hex <> '';"
	"CREATE INDEX image_members_name ON image_members(name COLLATE NOCASE) WHERE name <> '';"
	"CREATE INDEX image_members_last ON image_members(last COLLATE NOCASE) WHERE name <> '';"
	"ALTER TABLE reports ADD COLUMN image_set INTEGER REFERENCES image_sets(id);"
	"CREATE INDEX reports_image_set ON reports(image_set) WHERE image_set IS NOT NULL;";

/* v5 is the PostgreSQL store's covering UUID index; sqlite's images_uuid
 * covers already (a WITHOUT ROWID table's index rows carry its key). */

/* v11: a report's content hash is the SHA-256 of its bytes (issue 33
 * item 7; kpi_store.h's KPI__CONTENT_HASH): the same column, filled anew
 * from the archives by the index layer's step at 11.  And the image and
 * kext sets are keyed by the SHA-256 of their members (the store's
 * rekey_v11; the PostgreSQL store's kext set keys were SHA-256 already). */

/* v12: every report's cause class (issue 34, kp_triage.h), the id
 * kp_class_name spells: list --class and the TUI's filter read it with the
 * row.  Filled from the archives by the index layer's step at 12, the
 * schema 4 facts recomputed (fill_v4; the facts update leaves the column
 * out in a fill before 12). */
static const char sq_v12[] = "ALTER TABLE reports ADD COLUMN class TEXT;";

/* ---- the PostgreSQL store's SQL (schema "kpbrowse") ---- */

/* The schema every kpbrowse version up to KPI_SCHEMA_VERSION builds (the
 * PostgreSQL store starts at version 3, the sqlite schema with hosts). */
static const char pg_v3[] =
	"CREATE SCHEMA kpbrowse;"
	"CREATE TABLE kpbrowse.meta(key text PRIMARY KEY, value text NOT NULL);"
	"CREATE TABLE kpbrowse.groups("
	" id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
	" key text NOT NULL UNIQUE,"
	" title text NOT NULL,"
	" culprit text,"
	" count bigint NOT NULL DEFAULT 0,"
	" hosts bigint NOT NULL DEFAULT 0,"
	" first_seen bigint, last_seen bigint);"
	"CREATE INDEX groups_order ON kpbrowse.groups(count DESC, last_seen DESC, id);"
	"CREATE TABLE kpbrowse.reports("
	" id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
	" content_hash text NOT NULL UNIQUE,"
	" incident_id text UNIQUE,"
	" size bigint NOT NULL,"
	" format text, timestamp text,"
	" ts bigint NOT NULL,"
	" os_version text COLLATE \"C\", kernel_uuid text, headline text,"
	" exact_key text NOT NULL,"
	" group_id bigint NOT NULL REFERENCES kpbrowse.groups(id),"
	" indexed_at bigint NOT NULL,"
	" host text COLLATE \"C\", host_key text COLLATE \"C\", model text);"
	"CREATE INDEX reports_group ON kpbrowse.reports(group_id, ts DESC, id DESC);"
	"CREATE INDEX reports_ts ON kpbrowse.reports(ts DESC, id DESC);"
	"CREATE INDEX reports_host ON kpbrowse.reports(host);"
	"CREATE INDEX reports_host_key ON kpbrowse.reports(lower(host_key));"
	"CREATE INDEX reports_ident ON kpbrowse.reports((coalesce(host_key, host, '')), ts DESC);"
	"CREATE TABLE kpbrowse.archives("
	" report_id bigint PRIMARY KEY REFERENCES kpbrowse.reports(id),"
	" data bytea NOT NULL);"
	"CREATE TABLE kpbrowse.paths("
	" host text NOT NULL,"
	" path text COLLATE \"C\" NOT NULL,"
	" report_id bigint REFERENCES kpbrowse.reports(id),"
	" size bigint NOT NULL, mtime bigint NOT NULL, seen_at bigint NOT NULL,"
	" skip_reason text,"
	" PRIMARY KEY(host, path));"
	"CREATE INDEX paths_report ON kpbrowse.paths(report_id, seen_at DESC, path);"
	"CREATE TABLE kpbrowse.images("
	" report_id bigint NOT NULL REFERENCES kpbrowse.reports(id),"
	" rank int NOT NULL,"
	" uuid_hex text COLLATE \"C\" NOT NULL,"
	" name text NOT NULL,"
	" live boolean NOT NULL DEFAULT true,"   /* false: replaced (the writer has no DELETE) */
	" PRIMARY KEY(report_id, rank, uuid_hex, name));"
	"CREATE INDEX images_uuid ON kpbrowse.images(uuid_hex) WHERE uuid_hex <> '';"
	"CREATE INDEX images_name ON kpbrowse.images(lower(name)) WHERE name <> '';"
	"CREATE TABLE kpbrowse.panic_text("
	" report_id bigint PRIMARY KEY REFERENCES kpbrowse.reports(id),"
	" body tsvector NOT NULL);"
	"CREATE INDEX panic_text_body ON kpbrowse.panic_text USING gin(body);"
	"CREATE TABLE kpbrowse.group_hosts("
	" group_id bigint NOT NULL REFERENCES kpbrowse.groups(id),"
	" ident text NOT NULL,"
	" PRIMARY KEY(group_id, ident));"
	"INSERT INTO kpbrowse.meta VALUES ('application', 'kpbrowse'), ('text_search', 'postgresql');";

/* v4 (as the sqlite store's): kind and suspect zone of every report, an
 * undated report's ts KPI__UNDATED; rows stored before are filled from
 * their archives in the same transaction, by the index layer's step at 4
 * (kpi__migrated_fn). */
static const char pg_v4[] =
	"ALTER TABLE kpbrowse.reports ADD COLUMN kind text, ADD COLUMN zone text;"
	"CREATE INDEX reports_zone ON kpbrowse.reports(lower(zone)) WHERE zone IS NOT NULL;"
	"UPDATE kpbrowse.reports SET ts = " KPI__UNDATED_SQL " WHERE timestamp IS NULL;"
	"UPDATE kpbrowse.groups g SET first_seen = s.f, last_seen = s.l FROM (SELECT group_id, "
	"min(" DATED_TS ") AS f, max(" DATED_TS ") AS l FROM kpbrowse.reports GROUP BY group_id) s "
	"WHERE g.id = s.group_id;"
	/* a group without a dated report has no last seen: listed after the
	 * others, as sqlite orders NULLs */
	"DROP INDEX kpbrowse.groups_order;"
	"CREATE INDEX groups_order ON kpbrowse.groups(count DESC, last_seen DESC NULLS LAST, id);";

/* v5: UUID matches counted from the index alone (a search's total): the
 * report id in the key, only live rows (every query asks for those). */
static const char pg_v5[] =
	"CREATE INDEX IF NOT EXISTS images_uuid_report ON kpbrowse.images(uuid_hex, report_id) "
	"WHERE uuid_hex <> '' AND live;"
	"DROP INDEX IF EXISTS kpbrowse.images_uuid;";

/* v6 (as the sqlite store's): a bundle id's last part indexed for K and
 * search --kext without a dot. */
static const char pg_v6[] =
	"CREATE INDEX IF NOT EXISTS images_last ON kpbrowse.images(lower(" KPI__LAST_PART_SQL("name") ")) "
	"WHERE name <> '' AND live;";

/* v7 (the sqlite store's group_hosts): this store has kept them from its
 * start, but only ever adds rows (writers may not delete): a host left in
 * a group by a superseded report that moved is dropped, and hosts
 * recounted from the rows. */
static const char pg_v7[] =
	"DELETE FROM kpbrowse.group_hosts h WHERE NOT EXISTS (SELECT 1 FROM kpbrowse.reports r "
	"WHERE r.group_id = h.group_id AND coalesce(r.host_key, r.host, '') = h.ident);"
	"UPDATE kpbrowse.groups g SET hosts = (SELECT count(*) FROM kpbrowse.group_hosts h "
	"WHERE h.group_id = g.id);";

/* v8 (as the sqlite store's): every loaded kext of a report, as a set
 * shared by the reports that loaded the same kexts; rows stored before get
 * theirs from their archives, by the index layer's step at 8. */
static const char pg_v8[] =
	"CREATE TABLE kpbrowse.kexts("
	" id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
	" name text COLLATE \"C\" NOT NULL,"
	" uuid_hex text COLLATE \"C\" NOT NULL,"
	" UNIQUE(name, uuid_hex));"
	"CREATE INDEX kexts_name ON kpbrowse.kexts(lower(name)) WHERE name <> '';"
	"CREATE INDEX kexts_last ON kpbrowse.kexts(lower(" KPI__LAST_PART_SQL("name") ")) WHERE name <> '';"
	"CREATE INDEX kexts_uuid ON kpbrowse.kexts(uuid_hex) WHERE uuid_hex <> '';"
	"CREATE TABLE kpbrowse.kext_sets("
	" id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
	" hash text NOT NULL UNIQUE);"
	"CREATE TABLE kpbrowse.kext_set_members("
	" kext_id bigint NOT NULL REFERENCES kpbrowse.kexts(id),"
	" set_id bigint NOT NULL REFERENCES kpbrowse.kext_sets(id),"
	" PRIMARY KEY(kext_id, set_id));"
	"CREATE INDEX kext_set_members_set ON kpbrowse.kext_set_members(set_id);"
	"ALTER TABLE kpbrowse.reports ADD COLUMN kext_set bigint REFERENCES kpbrowse.kext_sets(id);"
	"CREATE INDEX reports_kext_set ON kpbrowse.reports(kext_set) WHERE kext_set IS NOT NULL;";

/* v9 (the sqlite store's refill of its text search without the loaded
 * kext list): nothing here; a report stored before keeps its tsvector
 * (a column of its own row: nothing is deleted by naming its words) and
 * new ones are stored without the list. */
static const char pg_v9[] = "DO $$BEGIN END$$;";

/* v10 (the sqlite store's image sets): nothing here; a server keeps
 * image rows per report, written by many pushers at once. */
static const char pg_v10[] = "DO $$BEGIN END$$;";

/* v11 (as the sqlite store's): content hashes become SHA-256, filled
 * from the archives by the index layer's step at 11 (the owner's UPDATE:
 * a writer never changes a hash). */
static const char pg_v11[] = "DO $$BEGIN END$$;";

/* v12 (as the sqlite store's): the cause class; report_add and
 * report_replace (writer_api 2) take it with the report. */
static const char pg_v12[] = "ALTER TABLE kpbrowse.reports ADD COLUMN IF NOT EXISTS class text;";

/* v13 (nothing in sqlite, which sums its reports in 27-44 ms): every
 * group's reports counted per day (floor(ts / 86400); an undated report's
 * day is its ts) and OS version, the rows the trends are made of
 * (kpi__pg_trend_rows), kept by triggers on reports, so every way a row
 * comes, goes or moves (report_add, report_replace, re-signing, an
 * owner's DELETE) counts.  A server otherwise scanned every report for
 * the groups screen, 45 MB for 80,000, more than psql's own GROUP BY took
 * with its start.  A count that falls to 0 keeps its row (n = 0, left out
 * when read).  The trigger's upsert locks its row until the report's
 * transaction commits, as report_add's group row: between the report keys
 * and the group row in store_pg.c's lock order, so pushers still cannot
 * deadlock.  os_version NULL is os_version '' with no_os (a primary key
 * has no NULLs).  Run again on a server set back to an older version by
 * hand, it counts anew. */
#define DAY_SQL(TS) "CASE WHEN " TS " >= 0 THEN " TS " / 86400 WHEN " TS " = " KPI__UNDATED_SQL " THEN " TS \
	" ELSE (" TS " - 86399) / 86400 END"
static const char pg_v13[] =
	"CREATE TABLE IF NOT EXISTS kpbrowse.group_days(group_id bigint NOT NULL, day bigint NOT NULL,"
	" os_version text COLLATE \"C\" NOT NULL, no_os boolean NOT NULL, n bigint NOT NULL,"
	" PRIMARY KEY(group_id, day, no_os, os_version));"
	"CREATE OR REPLACE FUNCTION kpbrowse.group_days_count() RETURNS trigger\n"
	"LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$\n"
	"BEGIN\n"
	"  IF TG_OP <> 'INSERT' THEN\n"
	"    UPDATE kpbrowse.group_days SET n = n - 1 WHERE group_id = OLD.group_id AND day = " DAY_SQL("OLD.ts")
	"      AND no_os = (OLD.os_version IS NULL) AND os_version = coalesce(OLD.os_version, '');\n"
	"  END IF;\n"
	"  IF TG_OP <> 'DELETE' THEN\n"
	"    INSERT INTO kpbrowse.group_days VALUES (NEW.group_id, " DAY_SQL("NEW.ts") ", coalesce(NEW.os_version, ''),"
	"      NEW.os_version IS NULL, 1)\n"
	"      ON CONFLICT (group_id, day, no_os, os_version) DO UPDATE SET n = kpbrowse.group_days.n + 1;\n"
	"  END IF;\n"
	"  RETURN NULL;\n"
	"END $f$;\n"
	"DROP TRIGGER IF EXISTS reports_group_days ON kpbrowse.reports;"
	"DROP TRIGGER IF EXISTS reports_group_days_moved ON kpbrowse.reports;"
	"CREATE TRIGGER reports_group_days AFTER INSERT OR DELETE ON kpbrowse.reports"
	" FOR EACH ROW EXECUTE PROCEDURE kpbrowse.group_days_count();"
	"CREATE TRIGGER reports_group_days_moved AFTER UPDATE OF group_id, ts, os_version ON kpbrowse.reports"
	" FOR EACH ROW WHEN (OLD.group_id IS DISTINCT FROM NEW.group_id OR OLD.ts IS DISTINCT FROM NEW.ts"
	" OR OLD.os_version IS DISTINCT FROM NEW.os_version) EXECUTE PROCEDURE kpbrowse.group_days_count();"
	"DELETE FROM kpbrowse.group_days;"
	"INSERT INTO kpbrowse.group_days SELECT group_id, " DAY_SQL("ts") ", coalesce(os_version, ''),"
	" os_version IS NULL, count(*) FROM kpbrowse.reports GROUP BY 1, 2, 3, 4;";

/* ---- the fills: from every archive ---- */

/* Calls fn on every report whose archive reads (a damaged one keeps its
 * row as it was: resign names it), in id order; the first error stops. */
typedef kp_status (*archived_fn)(kpi_db *db, int64_t id, const kp_report *r, int64_t gid, void *ctx,
                                 kp_error *err);

static kp_status each_archived(kpi_db *db, archived_fn fn, void *ctx, kp_error *err)
{
	int64_t *ids = NULL;
	size_t n = 0;
	kp_status st = db->ops->report_ids(db, &ids, &n, err);
	for (size_t i = 0; i < n && st == KP_OK; i++) {
		kp_report *r = NULL;
		int64_t gid = 0;
		kp_error lerr;
		kp_status ls = kpi__load_archived(db, ids[i], &r, &gid, &lerr);
		if (ls == KP_ERR_NOMEM)
			st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
		if (ls != KP_OK)
			continue;
		st = fn(db, ids[i], r, gid, ctx, err);
		kp_report_free(&r);
	}
	free(ids);
	return st;
}

static kp_status fill_facts(kpi_db *db, int64_t id, const kp_report *r, int64_t gid, void *ctx, kp_error *err)
{
	scan *s = ctx;
	kpi__facts f;
	kpi__report_facts(r, &f);
	kp_status st = db->ops->report_facts(db, id, &f, err);
	return st == KP_OK ? kpi__scan_mark_dirty(s, gid) : st;
}

static kp_status fill_v4(kpi_db *db, kp_error *err)
{
	scan s = {.db = db, .err = err};
	kp_status st = each_archived(db, fill_facts, &s, err);
	if (st == KP_OK)
		st = db->ops->groups_refresh(db, s.dirty, s.ndirty, err);
	free(s.dirty);
	return st;
}

static kp_status fill_kexts(kpi_db *db, int64_t id, const kp_report *r, int64_t gid, void *ctx, kp_error *err)
{
	(void)gid, (void)ctx;
	kpi__image *v = NULL;
	kpi__kext_set ks;
	kp_status st = KP_OK;
	if (kpi__report_kexts(r, &v, &ks) != KP_OK)
		st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
	else if (ks.n)
		st = db->ops->report_kexts(db, id, &ks, err);
	free(v);
	return st;
}

static kp_status fill_v8(kpi_db *db, kp_error *err)
{
	return each_archived(db, fill_kexts, NULL, err);
}

static kp_status fill_text(kpi_db *db, int64_t id, const kp_report *r, int64_t gid, void *ctx, kp_error *err)
{
	(void)gid, (void)ctx;
	bool oom;
	char *text = kpi__search_text(r, &oom);
	kp_status st = oom ? kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory")
	                   : text ? db->ops->report_text(db, id, text, err) : KP_OK;
	free(text);
	return st;
}

static kp_status fill_v9(kpi_db *db, kp_error *err)
{
	return db->ops->report_text ? each_archived(db, fill_text, NULL, err) : KP_OK;
}

/* ---- the schema 11 fill: content hashes become SHA-256 ---- */

typedef struct old_bytes {
	const char *sha1;             /* the stored content hash */
	int64_t size;                 /* the stored size */
	char sha256[KP_SHA256_HEX];   /* of the bytes once found, else "" */
} old_bytes;

/* One of the report's paths (kpi__path_fn): its file, when it still holds
 * the report's bytes (the stored size and SHA-1), gives the SHA-256. */
static int rehash_from_path(void *ctx, const char *path)
{
	old_bytes *ob = ctx;
	char *data = NULL;
	size_t len = 0;
	kp_error e;
	if (!*path || kp_fs_read_file(path, KP_REPORT_MAX_SIZE, &data, &len, NULL, &e) != KP_OK)
		return 0;
	char sha1[41];
	kp_sha1_hex(data, len, sha1);
	if ((int64_t)len == ob->size && strcmp(sha1, ob->sha1) == 0)
		KPI__CONTENT_HASH(data, len, ob->sha256);
	free(data);
	return ob->sha256[0] != '\0';
}

static kp_status fill_v11(kpi_db *db, kp_error *err)
{
	int64_t *ids = NULL;
	size_t n = 0, left = 0;
	kp_status st = db->ops->report_ids(db, &ids, &n, err);
	for (size_t i = 0; i < n && st == KP_OK; i++) {
		kpi__archive a = {0};
		kp_error lerr;
		kp_status as = db->ops->archive_get(db, ids[i], &a, &lerr);
		if (as == KP_ERR_NOMEM)
			st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
		if (st != KP_OK || strlen(a.hash) != 40) {
			free(a.z);   /* a SHA-256 already (an index taken back by hand), or no row */
			continue;
		}
		old_bytes ob = {.sha1 = a.hash, .size = a.size};
		if (as == KP_OK) {
			size_t len;
			kp_error ue;
			char *data = kpi__archive_unpack(&a, "a report", &len, &ue);
			if (data)
				KPI__CONTENT_HASH(data, len, ob.sha256);
			else if (ue.code == KP_ERR_NOMEM)
				st = kp_error_set(err, KP_ERR_NOMEM, 0, -1, "out of memory");
			free(data);
		}
		if (st == KP_OK && !ob.sha256[0])   /* no archive, or a damaged one */
			st = db->ops->report_paths(db, ids[i], rehash_from_path, &ob, err);
		if (st == KP_OK && ob.sha256[0])
			st = db->ops->report_rehash(db, ids[i], ob.sha256, err);
		else if (st == KP_OK)
			left++;
		free(a.z);
	}
	free(ids);
	if (st == KP_OK && left) {
		char v[24];
		snprintf(v, sizeof v, "%zu", left);
		st = db->ops->meta_set(db, KPI__META_SHA1_LEFT, v, err);
	}
	return st;
}

/* ---- the list ---- */

const kpi__step kpi__steps[KPI_SCHEMA_VERSION] = {
	{"creating the schema", sq_v1, NULL, NULL},
	{"moving the archives (schema v2)", sq_v2, NULL, NULL},
	{"recording hosts (schema v3)", sq_v3, pg_v3, NULL},
	{"recording kinds and zones (schema v4)", sq_v4, pg_v4, fill_v4},
	{"covering UUID search (schema v5)", NULL, pg_v5, NULL},
	{"indexing kexts' last parts (schema v6)", sq_v6, pg_v6, NULL},
	{"keeping groups' hosts (schema v7)", sq_v7, pg_v7, NULL},
	{"indexing every loaded kext (schema v8)", sq_v8, pg_v8, fill_v8},
	{"keeping images' last parts (schema v9)", sq_v9, pg_v9, fill_v9},
	{"grouping images (schema v10)", sq_v10, pg_v10, NULL},
	{"hashing contents with SHA-256 (schema v11)", NULL, pg_v11, fill_v11},
	{"recording cause classes (schema v12)", sq_v12, pg_v12, fill_v4},
	{"counting groups' days (schema v13)", NULL, pg_v13, NULL},
};

kp_status kpi__migrated(kpi_db *db, int version, kp_error *err)
{
	if (version < 1 || version > KPI_SCHEMA_VERSION || !kpi__steps[version - 1].fill)
		return KP_OK;
	return kpi__steps[version - 1].fill(db, err);
}
