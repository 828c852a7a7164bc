/* bench_tui.c: the browser's costs, measured on the real views drawn by
 * curses into /dev/null (so terminal emulator time is not included):
 *  - first paint from an index of 10,000 reports: open the db, list the
 *    reports and groups, open the panic view, draw;
 *  - keystroke to repaint with 100,000 panics in the list (j, PgDn, G, g,
 *    Ctrl-d) and the filter re-run over all 100,000 rows per typed key;
 *  - a 2 MB stackshot with 3,000 threads opened in the report view.
 * Usage: bench_tui [REPORTS] [ROWS] (default 10000 100000).  Prints figures
 * only; the targets are 200 ms and 16 ms. */
#include "kpt_bench.h"
#include "kpt_view.h"
#include "index_corpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void report(const char *what, double *t, size_t n)
{
	qsort(t, n, sizeof *t, cmp_d);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += t[i];
	printf("  %-34s n=%-5zu mean %7.3f ms  p50 %7.3f  p99 %7.3f  max %7.3f\n", what, n, sum / (double)n,
	       t[n / 2], t[(n * 99) / 100], t[n - 1]);
}

static void keys(kpt_app *app, const char *what, kpt_request req, size_t n)
{
	double *t = malloc(n * sizeof *t);
	for (size_t i = 0; i < n; i++) {
		double t0 = now_ms();
		kpt_app_key(app, req);
		t[i] = now_ms() - t0;
		if (req == KPT_REQ_END || req == KPT_REQ_HOME)   /* alternate so each key moves */
			req = req == KPT_REQ_END ? KPT_REQ_HOME : KPT_REQ_END;
	}
	report(what, t, n);
	free(t);
}

/* A bug_type 288 stackshot of about 2 MB: 60 processes of 50 threads (3,000
 * threads), each with kernel and user frames, waitInfo and turnstileInfo
 * lines making chains across processes.  0 on success. */
static int gen_stackshot(const char *path)
{
	FILE *fp = fopen(path, "w");
	if (!fp)
		return -1;
	fprintf(fp, "{\"bug_type\":\"288\",\"timestamp\":\"2026-11-21 09:00:00.00 +0100\",\"os_version\":\"macOS 26.1 (25B78)\"}\n");
	fprintf(fp, "{\"reason\":\"bench hang\",\"frontmostPids\":[100],\"binaryImages\":["
	            "[\"4c4c44bd-5555-3144-a14b-0078ec5e31e1\",18446741874686296064,\"U\"],"
	            "[\"4c4c44a3-5555-3144-a151-249d146ed38d\",4294967296,\"P\"]],\"processByPid\":{");
	for (int p = 0; p < 60; p++) {
		int pid = 100 + p;
		fprintf(fp, "%s\"%d\":{\"pid\":%d,\"procname\":\"proc%d\",\"flags\":[\"dirty\"],\"waitInfo\":[", p ? "," : "",
		        pid, pid, p);
		for (int t = 0; t < 50; t += 2)   /* even threads wait on the next process's first thread */
			fprintf(fp, "%s\"thread %d: kernel mutex 0xfffffe1000aa%04x owned by thread %d\"", t ? "," : "",
			        pid * 1000 + t, t, (pid + 1) * 1000);
		fprintf(fp, "],\"turnstileInfo\":[");
		for (int t = 0; t < 50; t += 2)
			fprintf(fp, "%s\"thread %d: blocked on %d, hops: 1, priority: 47\"", t ? "," : "", pid * 1000 + t,
			        (pid + 1) * 1000);
		fprintf(fp, "],\"threadById\":{");
		for (int t = 0; t < 50; t++) {
			int tid = pid * 1000 + t;
			fprintf(fp, "%s\"%d\":{\"id\":%d,\"name\":\"worker %d\",\"state\":[\"%s\"],\"schedPriority\":47,"
			            "\"basePriority\":31,\"qosEffective\":\"QOS_CLASS_USER_INITIATED\",\"schedFlags\":[\"TH_SFLAG_RW_PROMOTED\"],"
			            "\"dispatch_queue_label\":\"com.example.queue.%d\",\"continuation\":[0,804],\"kernelFrames\":[",
			        t ? "," : "", tid, tid, t, t % 2 ? "TH_RUN" : "TH_WAIT", t);
			for (int f = 0; f < 15; f++)
				fprintf(fp, "%s[0,%d]", f ? "," : "", 0x348 + f * 16);
			fprintf(fp, "],\"userFrames\":[");
			for (int f = 0; f < 15; f++)
				fprintf(fp, "%s[1,%d]", f ? "," : "", 0xc1f0 + f * 8);
			fprintf(fp, "]}");
		}
		fprintf(fp, "}}");
	}
	fprintf(fp, "}}\n");
	return fclose(fp) == 0 ? 0 : -1;
}

/* A 2 MB stackshot with 3,000 threads opened in the report view (parse,
 * wait chains, summary rows, first draw), then the process and thread
 * views: no visible pause means well under 200 ms. */
static void bench_stackshot(const char *dir)
{
	char path[600];
	snprintf(path, sizeof path, "%s/stackshot-3000.ips", dir);
	if (gen_stackshot(path) != 0) {
		fprintf(stderr, "cannot write %s\n", path);
		return;
	}
	struct stat st;
	stat(path, &st);
	kpt_app *app = kpt_bench_open(30, 100);
	kpt_entry e = {.id = -1, .path = path};
	double a = now_ms();
	kpt_app_push(app, &kpt_view_report, &e);
	kpt_app_draw(app);
	double b = now_ms();
	kpt_view *v = app->stack[app->depth - 1];
	const kp_report *r = NULL;
	for (size_t i = 0; i < app->docs.n && !r; i++)
		r = app->docs.v[i]->r;
	size_t nt = 0;
	for (size_t i = 0; r && i < r->nprocesses; i++)
		nt += r->processes[i].nthreads;
	printf("  stackshot %.1f MB, %zu processes, %zu threads, %zu chains: report view open + first draw %.1f ms"
	       "   target < 200 ms\n", (double)st.st_size / 1e6, r ? r->nprocesses : 0, nt, r ? r->nchains : 0, b - a);
	(void)v;
	keys(app, "j in the stackshot summary", KPT_REQ_DOWN, 200);
	kpt_bench_close(app);
	unlink(path);
}

int main(int argc, char **argv)
{
	int nreports = argc > 1 ? atoi(argv[1]) : 10000;
	size_t nrows = argc > 2 ? (size_t)atol(argv[2]) : 100000;
	char dir[] = "/tmp/kpt-bench.XXXXXX";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char reports[256], db_path[512];
	snprintf(reports, sizeof reports, "%s/reports", dir);
	snprintf(db_path, sizeof db_path, "%s/index.sqlite3", dir);
	mkdir(reports, 0755);

	printf("bench_tui: %d indexed reports, %zu list rows (curses output to /dev/null)\n", nreports, nrows);
	double t0 = now_ms();
	if (gen_large(reports, nreports) != 0) {
		fprintf(stderr, "cannot generate reports in %s\n", reports);
		return 1;
	}
	kp_error err;
	kpi_db *db = NULL;
	if (kpi_open(db_path, KPI_OPEN_CREATE, &db, &err) != KP_OK) {
		fprintf(stderr, "kpi_open: %s\n", err.msg);
		return 1;
	}
	const char *paths[] = {reports};
	kpi_summary sum;
	double t1 = now_ms();
	if (kpi_scan(db, paths, 1, NULL, NULL, NULL, NULL, &sum, &err) != KP_OK) {
		fprintf(stderr, "kpi_scan: %s\n", err.msg);
		return 1;
	}
	printf("  setup: generated in %.0f ms, indexed %zu new reports in %.0f ms (background scan in the TUI)\n",
	       t1 - t0, sum.new_reports, now_ms() - t1);
	kpi_summary_free(&sum);
	kpi_close(&db);

	kpt_app *app = kpt_bench_open(30, 100);
	snprintf(app->cfg.db_path, sizeof app->cfg.db_path, "%s", db_path);

	/* first paint: what launch does before the first poll() */
	double ts = now_ms();
	if (kpi_open(db_path, 0, &app->db, &err) != KP_OK || kpt_catalog_open(&app->cat, app->db, app->cfg.db_path, &err) != KP_OK) {
		fprintf(stderr, "open/list: %s\n", err.msg);
		return 1;
	}
	double tl = now_ms();
	kpt_app_push(app, &kpt_view_panics, NULL);
	kpt_app_draw(app);
	double te = now_ms();
	printf("  first paint from %zu reports: %.1f ms (open+first page of %zu %.1f ms, view+draw %.1f ms)   target < 200 ms\n",
	       app->cat.partial ? app->cat.total : app->cat.n, te - ts, app->cat.n, tl - ts, te - tl);
	kpt_bench_rest(app);
	printf("  the whole list loaded in the background by %.1f ms\n", now_ms() - ts);
	double rl[5];
	for (int i = 0; i < 5; i++) {
		double a = now_ms();
		kpt_catalog_reload(&app->cat, &err);
		kpt_app_draw(app);
		rl[i] = now_ms() - a;
	}
	report("catalog reload + redraw", rl, 5);
	keys(app, "j on the 10k list", KPT_REQ_DOWN, 500);

	/* 100,000 rows: a synthetic catalog, the same view code */
	kpt_catalog_free(&app->cat);
	kpt_entry *e = calloc(nrows, sizeof *e);
	char (*heads)[96] = malloc(nrows * sizeof *heads);
	if (!e || !heads)
		return 1;
	static const char *culprits[] = {"com.example.FakeDriver", "com.apple.iokit.IOPCIFamily", "kernel+0x544",
	                                 "com.vendor.NetFilter"};
	for (size_t i = 0; i < nrows; i++) {
		snprintf(heads[i], sizeof heads[i], "%s: page ADDR has bad magic ADDR (variant %zu)",
		         i % 7 == 0 ? "vm_page_check_sanity" : i % 3 ? "Kernel data abort" : "zalloc: zone map exhausted", i % 997);
		e[i] = (kpt_entry){.id = (int64_t)(nrows - i), .date = "2024-05-01 10:22:13.00 +0200",
		                   .os = "macOS 14.4.1 (23E224)", .headline = heads[i], .culprit = culprits[i % 4],
		                   .group_id = (int64_t)(i % 997), .count = (int64_t)(i % 5 + 1), .is_new = i % 11 == 0};
	}
	app->cat.e = e;
	app->cat.n = nrows;
	app->cat.generation++;
	double a = now_ms();
	kpt_app_draw(app);   /* the view rebuilds on the new generation */
	printf("  100k list rebuild + first draw: %.2f ms\n", now_ms() - a);
	keys(app, "j (down)", KPT_REQ_DOWN, 2000);
	keys(app, "PgDn", KPT_REQ_PGDN, 500);
	keys(app, "Ctrl-d", KPT_REQ_HALFDN, 500);
	keys(app, "G / g (alternating)", KPT_REQ_END, 200);
	keys(app, "k (up)", KPT_REQ_UP, 2000);

	/* the filter: worst case, every key re-filters all rows from scratch */
	kpt_view *v = app->stack[app->depth - 1];
	const char *typed = "zone map";
	double ft[16];
	size_t nf = 0;
	for (size_t k = 1; k <= strlen(typed); k++) {
		snprintf(v->list.filter, sizeof v->list.filter, "%.*s", (int)k, typed);
		double b = now_ms();
		kpt_list_refilter(v);
		kpt_app_draw(app);
		ft[nf++] = now_ms() - b;
	}
	printf("  filter over %zu rows: %zu matches for \"%s\"\n", nrows, kpt_list_visible(&v->list), typed);
	report("filter key (full re-filter) + draw", ft, nf);
	keys(app, "j in the filtered list", KPT_REQ_DOWN, 500);
	printf("  target: keystroke to repaint < 16 ms\n");

	app->cat.e = NULL;
	app->cat.n = 0;
	kpt_catalog_free(&app->cat);
	kpi_close(&app->db);
	kpt_bench_close(app);
	bench_stackshot(dir);
	free(e);
	free(heads);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return 0;
}
