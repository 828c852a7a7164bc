/* schema.h: private to index/: the one list of schema steps, above the
 * store seam (kpi_store.h), and the index layer's fills.
 *
 * kpi__steps[v - 1] takes an index from schema version v - 1 to v: what
 * it is for (in messages), the SQL each dialect runs for it (NULL: none
 * in that dialect; the PostgreSQL store starts at 3, its step 3 creating
 * what sqlite's 1 to 3 do), and the fill the index layer runs after it
 * (reports' facts recomputed from their archives: a store never reads
 * report files).  A store runs the steps from its version up, in one
 * transaction, each step's SQL with what only its dialect needs around
 * it (store_sqlite.c: the text search's kind, images regrouped;
 * store_pg.c: the writer's functions), then kpi__migrated. */
#ifndef KPI_SCHEMA_H
#define KPI_SCHEMA_H

#include "kpi_store.h"

typedef struct kpi__step {
	const char *what;      /* "recording hosts (schema v3)" */
	const char *sqlite;    /* the sqlite store's SQL, or NULL */
	const char *pg;        /* the PostgreSQL store's SQL (schema "kpbrowse"), or NULL */
	kp_status (*fill)(kpi_db *db, kp_error *err);   /* the index layer's, or NULL */
} kpi__step;

extern const kpi__step kpi__steps[KPI_SCHEMA_VERSION];

/* The index layer's part of a migration (kpi__migrated_fn, which
 * kpi_open hands to the store): kpi__steps[version - 1].fill, inside
 * the migration's transaction, through the ops only. */
kp_status kpi__migrated(kpi_db *db, int version, kp_error *err);

/* SQL both dialects' steps and queries share: what makes two reports the
 * same Mac (the report's own key, else the pushing host's name; '' for
 * reports indexed before hosts were kept), and a report's ts when it has
 * a date, else NULL (min/max leave it out). */
#define KPI__HOST_IDENT_SQL "coalesce(host_key, host, '')"
#define KPI__DATED_TS_SQL "CASE WHEN ts > " KPI__UNDATED_SQL " THEN ts END"

#endif
