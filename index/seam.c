/* seam.c: the store logic above the seam (kpi_store.h) that every store
 * shares: what a store does differently is its ops'; what follows from
 * them is here once. */
#include "kpi_store.h"

kp_status kpi__report_add(kpi_db *db, const kpi__new_report *r, int64_t *id, bool *added, kp_error *err)
{
	kp_status st = db->ops->report_add(db, r, id, added, err);
	if (st != KP_OK || *added)
		return st;
	/* stored before, or by another writer who committed while this one
	 * waited on its key (a shared server: a new statement sees it) */
	st = db->ops->report_find(db, r->content_hash, NULL, id, err);
	if (st == KP_OK && !*id && r->incident_id)
		st = db->ops->report_find(db, NULL, r->incident_id, id, err);
	if (st == KP_OK && !*id)
		st = kp_error_set(err, KP_ERR_DB, 0, -1, "%s: a report vanished while recording it", db->ops->name);
	return st;
}
