/* kt.h: a minimal TAP-style test harness for kpbrowse's C tests.
 *
 * Each check prints "ok N - what" or "not ok N - what (file:line)".  A test
 * program ends with `return kt_done();`: exit 0 when all passed, 1 when any
 * failed, 77 (ctest's SKIP_RETURN_CODE) when everything was skipped. */
#ifndef KT_H
#define KT_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int kt_n, kt_failed, kt_skipped;

#define KT_CHECK(cond, ...) kt_check_((cond) != 0, __FILE__, __LINE__, __VA_ARGS__)

static void kt_check_(int ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), unused));
#include <stdarg.h>
static void kt_check_(int ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	kt_n++;
	printf("%s %d - ", ok ? "ok" : "not ok", kt_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (!ok) {
		printf(" (%s:%d)", file, line);
		kt_failed++;
	}
	printf("\n");
}

/* String equality where NULL equals only NULL. */
#define KT_STREQ(got, want, what)                                                        \
	do {                                                                             \
		const char *g_ = (got), *w_ = (want);                                    \
		int eq_ = (g_ == NULL || w_ == NULL) ? g_ == w_ : strcmp(g_, w_) == 0;   \
		KT_CHECK(eq_, "%s: got \"%s\", want \"%s\"", (what), g_ ? g_ : "(null)", \
		         w_ ? w_ : "(null)");                                            \
	} while (0)

#define KT_U64EQ(got, want, what)                                                     \
	do {                                                                          \
		uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want);                 \
		KT_CHECK(g_ == w_, "%s: got 0x%" PRIx64 ", want 0x%" PRIx64, (what), g_, w_); \
	} while (0)

#define KT_SKIP(why)                                  \
	do {                                          \
		kt_skipped++;                         \
		printf("ok %d - # SKIP %s\n", ++kt_n, (why)); \
	} while (0)

static int kt_done(void) __attribute__((unused));
static int kt_done(void)
{
	printf("1..%d\n# %d passed, %d failed, %d skipped\n", kt_n, kt_n - kt_failed - kt_skipped,
	       kt_failed, kt_skipped);
	if (kt_failed)
		return 1;
	if (kt_skipped && kt_skipped == kt_n)
		return 77;
	return 0;
}

#endif
