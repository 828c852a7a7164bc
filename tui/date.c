/* date.c: the one date rule of kpt_date.h. */
#include "kpt_date.h"
#include "kp_index.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

bool kpt_date_utc(const char *ts, char *out, size_t size)
{
	char buf[64];
	int64_t t;
	snprintf(out, size, "-");
	if (!ts)
		return false;
	snprintf(buf, sizeof buf, "%s", ts);
	size_t n = strlen(buf);
	if (n > 10 && buf[10] == 'T' && buf[n - 1] == 'Z') {   /* the index's ISO 8601 UTC */
		buf[10] = ' ';
		buf[n - 1] = '\0';
	}
	if (!kpi_report_time(buf, &t))
		return false;
	time_t tt = (time_t)t;
	struct tm tm;
	if (!gmtime_r(&tt, &tm))
		return false;
	snprintf(out, size, "%04d-%02d-%02d %02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	         tm.tm_min);
	return true;
}
