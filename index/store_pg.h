/* store_pg.h: private to the PostgreSQL store (store_pg*.c, the only files
 * that see libpq-fe.h, through store_pg_lib.h): the handle, bound parameters, and running a
 * statement.  store_pg.c opens, migrates and holds the ops table;
 * store_pg_write.c stores reports, paths, archives and groups;
 * store_pg_query.c lists and searches.
 *
 * Ownership: a kpi__pg_params holds pointers to the caller's values (live
 * until the statement ran) and its own digits for integers; results of
 * kpi__pg_run belong to the caller (PQclear). */
#ifndef KPI_STORE_PG_H
#define KPI_STORE_PG_H

#include "kpi_store.h"
#include "schema.h"

#include "store_pg_lib.h"   /* libpq-fe.h, its PQ* called through kpi__pq (dlopen) */

#define MAX_PREPARED 64

typedef struct kpi__pg {
	kpi_db base;            /* first: a kpi_db * is a kpi__pg * */
	PGconn *conn;
	char display[512];      /* the target, password masked: in every message */
	char *target;           /* as given: what kpi_mask_secrets masks in libpq's messages */
	char **scratch;         /* text made valid UTF-8 for this transaction */
	size_t nscratch, scratch_cap;
	/* statements prepared on this connection, by their (static) text */
	const char *prepared[MAX_PREPARED];
	int nprepared;
	int migrating;          /* the schema version a migration's fill runs at; 0 otherwise */
} kpi__pg;

#define PG(h) ((kpi__pg *)(h))

#define MAXP 24

typedef struct kpi__pg_params {
	int n;
	const char *v[MAXP];
	int len[MAXP];
	int fmt[MAXP];
	char num[MAXP][24];
} kpi__pg_params;

#define DATED_TS KPI__DATED_TS_SQL   /* schema.h */

/* Bound parameters $1, $2, ... in order: text (NULL is SQL NULL; bytes that
 * are not UTF-8 are sent as U+FFFD, which the server's UTF8 encoding would
 * otherwise refuse, failing the whole push), an integer, bytes. */
void kpi__pg_text(kpi__pg_params *p, const char *s);
void kpi__pg_int(kpi__pg_params *p, int64_t x);
void kpi__pg_bin(kpi__pg_params *p, const void *b, size_t n);
/* KP_ERR_DB naming the target and what was being done; a lost connection
 * and a missing privilege are named as such. */
kp_status kpi__pg_fail(kpi__pg *db, const PGresult *res, kp_error *err, const char *what);
/* Runs sql (a string literal: prepared once per connection, known by its
 * address) with p, its text made valid UTF-8 first (p's pointers then name
 * copies that live until the transaction ends); NULL and err set unless
 * the status is want. */
PGresult *kpi__pg_run(kpi__pg *db, const char *sql, kpi__pg_params *p, ExecStatusType want,
                      kp_error *err, const char *what);
/* kpi__pg_run for a command: KP_OK or KP_ERR_DB. */
kp_status kpi__pg_cmd(kpi__pg *db, const char *sql, kpi__pg_params *p, kp_error *err,
                      const char *what);
/* A column's text, NULL for SQL NULL or ""; as an integer, 0 for none. */
const char *kpi__pg_val(const PGresult *r, int row, int col);
int64_t kpi__pg_val_int(const PGresult *r, int row, int col);

/* The ops of store_pg_write.c */
kp_status kpi__pg_path_get(kpi_db *h, const char *path, kpi__path_rec *out, kp_error *err);
kp_status kpi__pg_path_put(kpi_db *h, const char *path, int64_t report_id, int64_t size,
                           int64_t mtime_ns, int64_t seen_at, const char *skip, kp_error *err);
kp_status kpi__pg_report_paths(kpi_db *h, int64_t id, kpi__path_fn fn, void *ctx, kp_error *err);
kp_status kpi__pg_report_find(kpi_db *h, const char *hash, const char *incident, int64_t *id,
                              kp_error *err);
kp_status kpi__pg_report_add(kpi_db *h, const kpi__new_report *r, int64_t *id, bool *added,
                             kp_error *err);
kp_status kpi__pg_archive_add(kpi_db *h, int64_t id, const void *z, size_t zlen, kp_error *err);
kp_status kpi__pg_report_replace(kpi_db *h, int64_t id, const kpi__new_report *r,
                                 const char *old_text, const void *z, size_t zlen, kp_error *err);
kp_status kpi__pg_archive_get(kpi_db *h, int64_t id, kpi__archive *out, kp_error *err);
kp_status kpi__pg_report_ids(kpi_db *h, int64_t **out, size_t *nout, kp_error *err);
kp_status kpi__pg_report_regroup(kpi_db *h, int64_t id, const char *headline,
                                 const char *exact_key, int64_t gid, kp_error *err);
/* s as the server's UTF8 encoding takes it (U+FFFD for each invalid byte),
 * valid until the transaction ends: for parameters not sent through
 * kpi__pg_run, which does this itself. */
const char *kpi__pg_valid_text(kpi__pg *db, const char *s);
kp_status kpi__pg_report_facts(kpi_db *h, int64_t id, const kpi__facts *f, kp_error *err);
kp_status kpi__pg_report_kexts(kpi_db *h, int64_t id, const kpi__kext_set *ks, kp_error *err);
kp_status kpi__pg_report_rehash(kpi_db *h, int64_t id, const char *hash, kp_error *err);
kp_status kpi__pg_group_add(kpi_db *h, const char *key, const char *title, const char *culprit,
                            bool retitle, int64_t *gid, kp_error *err);
kp_status kpi__pg_groups_refresh(kpi_db *h, const int64_t *gids, size_t n, kp_error *err);
kp_status kpi__pg_groups_prune(kpi_db *h, kp_error *err);

/* The ops of store_pg_query.c */
kp_status kpi__pg_list_reports(kpi_db *h, const char *host, kpi_report_fn fn, void *ctx,
                               kp_error *err);
kp_status kpi__pg_list_groups(kpi_db *h, kpi_group_fn fn, void *ctx, kp_error *err);
kp_status kpi__pg_list_group_counts(kpi_db *h, kpi_group_fn fn, void *ctx, kp_error *err);
kp_status kpi__pg_trend_rows(kpi_db *h, kpi__trend_fn fn, void *ctx, kp_error *err);
kp_status kpi__pg_list_hosts(kpi_db *h, kpi_host_fn fn, void *ctx, kp_error *err);
kp_status kpi__pg_search_page(kpi_db *h, kpi__search kind, const char *arg, kpi_page *page,
                              kpi_report_fn fn, void *ctx, kp_error *err);
kp_status kpi__pg_list_page(kpi_db *h, kpi_page *page, kpi_report_fn fn, void *ctx,
                            kp_error *err);

#endif
