/* bench_kcnames SOURCE REPORT [RUNS]: issue 35 item 2's kernelcache
 * figure, in process: every frame of REPORT (bench_kernelcache.sh's
 * 3,000-thread stackshot) named from SOURCE (a kernelcache, given as
 * show's --dsym gives it), timed from the first lookup (which finds and
 * opens the kernelcache: nothing is read before a frame asks) to the
 * last frame named.  The report is parsed and the kp_symbols made before
 * the clock starts (a whole process's other costs: bench_kernelcache.sh's
 * "all frames" column).  Each run a fresh kp_symbols, the cache folder
 * the caller's (KPBROWSE_CACHE_DIR).  Prints one line:
 *   frames named open_ms(min med max) all_ms(min med max) cpu_ms(min med max)
 * open: to the first frame named (finding and opening the kernelcache
 * and the entry that frame is in); all: every frame, the
 * open included; cpu: the process's CPU time (user + system, every
 * thread) over the same span.  Asserts nothing. */
#include "kp_report.h"
#include "kp_symbols.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#define MAX_RUNS 50

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cpu(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void spread(double *t, int n)
{
	qsort(t, (size_t)n, sizeof *t, cmp);
	printf(" %.1f %.1f %.1f", t[0] * 1e3, t[n / 2] * 1e3, t[n - 1] * 1e3);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench_kcnames SOURCE REPORT [RUNS]\n");
		return 2;
	}
	int runs = argc > 3 ? atoi(argv[3]) : 7;
	if (runs < 1 || runs > MAX_RUNS)
		return 2;
	kp_report *r = NULL;
	kp_error err;
	if (kp_report_load(argv[2], &r, &err) != KP_OK) {
		fprintf(stderr, "bench_kcnames: %s: %s\n", argv[2], err.msg);
		return 1;
	}
	double open[MAX_RUNS], all[MAX_RUNS], used[MAX_RUNS];
	size_t frames = 0, named = 0;
	for (int k = 0; k < runs; k++) {
		const char *paths[1] = {argv[1]};
		kp_symbols_opts so = {.paths = paths, .npaths = 1, .no_system = true, .batch = true};
		kp_symbols *s = NULL;
		if (kp_symbols_new(&so, &s, &err) != KP_OK) {
			fprintf(stderr, "bench_kcnames: %s\n", err.msg);
			return 1;
		}
		kp_symbols_set_report(s, r);
		frames = named = 0;
		double c0 = cpu(), t0 = now(), t1 = -1;
		for (size_t p = 0; p < r->nprocesses; p++)
			for (size_t i = 0; i < r->processes[p].nthreads; i++) {
				const kp_thread *t = &r->processes[p].threads[i];
				for (size_t f = 0; f < t->nframes; f++) {
					kp_symresult res;
					bool ok = kp_symbols_frame(s, r, t, f, &res) == KP_SYM_OK;
					frames++;
					if (ok && !named++)
						t1 = now();
				}
			}
		all[k] = now() - t0;
		used[k] = cpu() - c0;
		open[k] = t1 < 0 ? 0 : t1 - t0;
		kp_symbols_free(&s);
	}
	printf("%zu %zu", frames, named);
	spread(open, runs);
	spread(all, runs);
	spread(used, runs);
	printf("\n");
	kp_report_free(&r);
	return 0;
}
