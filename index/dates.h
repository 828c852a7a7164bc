/* dates.h: private to index/: a report's date as the index keeps it,
 * seconds since the epoch (UTC), read from the report's own timestamp by
 * kpi_report_time (kp_index.h, the one parser: the scanner's ts and the
 * TUI's dates alike); KPI__UNDATED (kpi_store.h) when it has none. */
#ifndef KPI_DATES_H
#define KPI_DATES_H

#include "kp_index.h"

/* "2024-05-01T10:00:00Z" (a result row's date); "" for none. */
void kpi__iso_time(int64_t t, char out[32]);
/* A group's or host's first or last seen: the report's own timestamp raw
 * in kp_timestamp_iso's form (its offset, or none when it states none:
 * never a "Z" on a Mac's wall clock); kpi__iso_time(t) when raw is NULL
 * or unreadable. */
void kpi__seen_time(int64_t t, const char *raw, char out[32]);

#endif
