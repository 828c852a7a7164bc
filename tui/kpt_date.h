/* kpt_date.h: the TUI's one date rule (date.c): every date on screen is
 * UTC as "YYYY-MM-DD HH:MM", with the column or line labelled UTC; a
 * report without a date it can read shows "-" (and sorts last). */
#ifndef KPT_DATE_H
#define KPT_DATE_H

#include <stdbool.h>
#include <stddef.h>

/* ts as a report wrote it, or the index's ISO 8601 UTC ("...T...Z");
 * false (and "-" in out) when it cannot be read. */
bool kpt_date_utc(const char *ts, char *out, size_t size);

#endif
