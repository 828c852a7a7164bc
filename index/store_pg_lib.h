/* store_pg_lib.h: private to the PostgreSQL store: libpq, loaded when a
 * PostgreSQL target is first opened (dlopen), so that every other run of
 * kpbrowse (the sqlite index, show, lookup) starts without libpq and the
 * two dozen libraries it pulls in (TLS, Kerberos, LDAP).
 *
 * The one file that includes libpq-fe.h; store_pg.h includes it: the PQ* names the store
 * calls become calls through kpi__pq, a table filled by kpi__pq_load, which
 * kpi__pg_open calls before anything else.  A PQ* function used by the
 * store must be listed here (KPI__PQ_FUNCS and a #define below), else the
 * program does not link: libpq itself is not linked. */
#ifndef KPI_STORE_PG_LIB_H
#define KPI_STORE_PG_LIB_H

#include "kp_error.h"

#include <libpq-fe.h>

#define KPI__PQ_FUNCS(X) \
	X(PQclear) X(PQcmdStatus) X(PQcmdTuples) X(PQconnectdbParams) X(PQerrorMessage) \
	X(PQexec) X(PQexecParams) X(PQexecPrepared) X(PQfinish) X(PQgetisnull) \
	X(PQgetlength) X(PQgetvalue) X(PQntuples) X(PQprepare) X(PQresultErrorField) \
	X(PQresultErrorMessage) X(PQresultStatus) X(PQsetNoticeProcessor) X(PQstatus) \
	X(PQtransactionStatus)

#define KPI__PQ_MEMBER(f) __typeof__(f) *f;
struct kpi__pq {
	KPI__PQ_FUNCS(KPI__PQ_MEMBER)
};
#undef KPI__PQ_MEMBER
extern struct kpi__pq kpi__pq;

/* Loads libpq once (thread-safe; later calls return at once): KP_OK, or
 * KP_ERR_DB saying which library could not be loaded and why. */
kp_status kpi__pq_load(kp_error *err);

#ifndef KPI__PQ_LIB_IMPL
#define PQclear (kpi__pq.PQclear)
#define PQcmdStatus (kpi__pq.PQcmdStatus)
#define PQcmdTuples (kpi__pq.PQcmdTuples)
#define PQconnectdbParams (kpi__pq.PQconnectdbParams)
#define PQerrorMessage (kpi__pq.PQerrorMessage)
#define PQexec (kpi__pq.PQexec)
#define PQexecParams (kpi__pq.PQexecParams)
#define PQexecPrepared (kpi__pq.PQexecPrepared)
#define PQfinish (kpi__pq.PQfinish)
#define PQgetisnull (kpi__pq.PQgetisnull)
#define PQgetlength (kpi__pq.PQgetlength)
#define PQgetvalue (kpi__pq.PQgetvalue)
#define PQntuples (kpi__pq.PQntuples)
#define PQprepare (kpi__pq.PQprepare)
#define PQresultErrorField (kpi__pq.PQresultErrorField)
#define PQresultErrorMessage (kpi__pq.PQresultErrorMessage)
#define PQresultStatus (kpi__pq.PQresultStatus)
#define PQsetNoticeProcessor (kpi__pq.PQsetNoticeProcessor)
#define PQstatus (kpi__pq.PQstatus)
#define PQtransactionStatus (kpi__pq.PQtransactionStatus)
#endif

#endif
