/* dates.c: a report's date as the index keeps it (dates.h): its timestamp
 * read into seconds since the epoch (kp_index.h's kpi_report_time) and
 * those written back for result rows. */
#include "dates.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* "2024-05-01 10:00:00.00 -0700" and "Wed May  1 10:00:00 2024". */
bool kpi_report_time(const char *ts, int64_t *out)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	if (!ts)
		return false;
	while (*ts == ' ')
		ts++;
	int y, mo, d, h, mi, s, n = 0;
	int64_t off = 0;
	if (sscanf(ts, "%4d-%2d-%2d %2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &n) == 6) {
		const char *p = ts + n;
		if (*p == '.')
			for (p++; *p >= '0' && *p <= '9'; p++)
				;
		while (*p == ' ')
			p++;
		int oh, om;
		if ((*p == '+' || *p == '-') && sscanf(p + 1, "%2d%2d", &oh, &om) == 2)
			off = (*p == '-' ? -1 : 1) * (int64_t)(oh * 3600 + om * 60);
	} else {
		char wd[4], mon[4];
		if (sscanf(ts, "%3s %3s %d %d:%d:%d %d", wd, mon, &d, &h, &mi, &s, &y) != 7)
			return false;
		const char *m = strstr(months, mon);
		if (!m || strlen(mon) != 3 || (m - months) % 3)
			return false;
		mo = (int)(m - months) / 3 + 1;
	}
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
		return false;
	*out = days_from_civil(y, mo, d) * 86400 + (int64_t)h * 3600 + (int64_t)mi * 60 + s - off;
	return true;
}

bool kpi_date_utc(const char *ts, char *out, size_t size)
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

void kpi__iso_time(int64_t v, char out[32])
{
	out[0] = '\0';
	time_t t = (time_t)v;
	struct tm tm;
	if (gmtime_r(&t, &tm))
		strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
