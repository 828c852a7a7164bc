/* dates.c: a report's date as the index keeps it (dates.h): its timestamp
 * read (kp_report.h's kp_timestamp_parse, the one parser) into seconds
 * since the epoch (kp_index.h's kpi_report_time), shown on screens and
 * tables (kpi_date_label) and written back for result rows. */
#include "dates.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

bool kpi_report_time(const char *ts, int64_t *out)
{
	kp_timestamp t;
	if (!kp_timestamp_parse(ts, &t))
		return false;
	*out = kp_timestamp_seconds(&t);
	return true;
}

kpi_date_kind kpi_date_label(const char *ts, char *out, size_t size)
{
	kp_timestamp t;
	snprintf(out, size, "-");
	if (!kp_timestamp_parse(ts, &t))
		return KPI_DATE_NONE;
	if (t.zoned) {
		time_t tt = (time_t)kp_timestamp_seconds(&t);
		struct tm tm;
		if (!gmtime_r(&tt, &tm))
			return KPI_DATE_NONE;
		snprintf(out, size, "%04d-%02d-%02d %02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		         tm.tm_hour, tm.tm_min);
		return KPI_DATE_UTC;
	}
	snprintf(out, size, "%04d-%02d-%02d %02d:%02d" KPI_DATE_LOCAL_MARK, t.year, t.month, t.day, t.hour, t.min);
	return KPI_DATE_LOCAL;
}

const char *kpi_date_zone(kpi_date_kind k)
{
	return k == KPI_DATE_UTC ? " UTC" : k == KPI_DATE_LOCAL ? " (the Mac's local time)" : "";
}

void kpi__seen_time(int64_t t, const char *raw, char out[32])
{
	if (!kp_timestamp_iso(raw, out, 32))
		kpi__iso_time(t, out);
}

void kpi__iso_time(int64_t v, char out[32])
{
	out[0] = '\0';
	time_t t = (time_t)v;
	struct tm tm;
	if (gmtime_r(&t, &tm))
		strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
