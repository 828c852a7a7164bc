/* scan_summary.c: what a scan records as it goes (scan.h): the summary's
 * lists of errors, warnings and skips, the groups its open batch touched,
 * and the frees of both summaries.  Below scan.c and scan_file.c, which
 * both record here; it calls neither. */
#include "scan.h"
#include "kp_vec.h"

#include <stdlib.h>
#include <string.h>

/* Adds path: msg to one of the summary's lists. */
static kp_status add(scan *s, kpi_scan_error **list, size_t *n, size_t *cap, const char *path,
                     const char *msg)
{
	kpi_scan_error *e = kp_vec_push((void **)list, n, cap, sizeof *e);
	if (!e)
		return kp_error_set(s->err, KP_ERR_NOMEM, 0, -1, "out of memory");
	e->path = strdup(path);
	e->msg = strdup(msg);
	return KP_OK;
}

kp_status kpi__scan_add_error(scan *s, const char *path, const char *msg)
{
	kpi_summary *m = s->sum;
	kp_status st = add(s, &m->error_list, &m->nerror_list, &s->errors_cap, path, msg);
	m->errors = m->nerror_list;
	return st;
}

kp_status kpi__scan_add_warning(scan *s, const char *path, const char *msg)
{
	kpi_summary *m = s->sum;
	return add(s, &m->warning_list, &m->nwarning_list, &s->warnings_cap, path, msg);
}

kp_status kpi__scan_add_skip(scan *s, const char *path, const char *why)
{
	kpi_summary *m = s->sum;
	m->skipped++;
	return add(s, &m->skip_list, &m->nskip_list, &s->skips_cap, path, why);
}

kp_status kpi__scan_mark_dirty(scan *s, int64_t gid)
{
	for (size_t i = 0; i < s->ndirty; i++)
		if (s->dirty[i] == gid)
			return KP_OK;
	int64_t *slot = kp_vec_push((void **)&s->dirty, &s->ndirty, &s->dirty_cap, sizeof *slot);
	if (!slot)
		return kp_error_set(s->err, KP_ERR_NOMEM, 0, -1, "out of memory");
	*slot = gid;
	return KP_OK;
}

/* ---- frees ---- */

/* Frees a summary's error list (both summaries keep one). */
static void free_errors(kpi_scan_error *list, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(list[i].path);
		free(list[i].msg);
	}
	free(list);
}

void kpi_summary_free(kpi_summary *s)
{
	if (!s)
		return;
	free_errors(s->error_list, s->nerror_list);
	free_errors(s->skip_list, s->nskip_list);
	free_errors(s->warning_list, s->nwarning_list);
	memset(s, 0, sizeof *s);
}

void kpi_resign_summary_free(kpi_resign_summary *s)
{
	if (!s)
		return;
	free_errors(s->error_list, s->nerror_list);
	memset(s, 0, sizeof *s);
}
