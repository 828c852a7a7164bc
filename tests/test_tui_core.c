/* test_tui_core.c: the TUI's pieces without a terminal (kpt_bench.h: curses
 * on /dev/null): the catalog read from a real index of the fixture
 * reports, list filtering through the panics view, the worker symbolicating
 * a document the UI holds (with no index to reopen), and the one place
 * options become symbol options. */
#include "kpt_bench.h"
#include "kpt_catalog.h"
#include "kpt_clipboard.h"
#include "kpt_columns.h"
#include "kpt_doc.h"
#include "kpt_draw.h"
#include "kp_exit.h"
#include "kpt_list.h"
#include "kpt_loader.h"
#include "kpt_options.h"
#include "kp_sanitize.h"
#include "kpt_view.h"
#include "kpt_worker.h"
#include "kt.h"

#include "kp_index.h"
#include "kp_symbols.h"
#include "index_corpus.h"

#include <locale.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char tmpdir[256], db_path[512];

/* An index of tests/fixtures/reports in a temporary folder. */
static bool make_index(void)
{
	snprintf(tmpdir, sizeof tmpdir, "%s/kpt-core-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir))
		return false;
	snprintf(db_path, sizeof db_path, "%s/index.sqlite3", tmpdir);
	kpi_db *db = NULL;
	kp_error err;
	kpi_summary sum;
	memset(&sum, 0, sizeof sum);
	const char *paths[] = {KP_FIXTURES "/reports"};
	bool ok = kpi_open(db_path, KPI_OPEN_CREATE, &db, &err) == KP_OK &&
	          kpi_scan(db, paths, 1, NULL, NULL, NULL, NULL, &sum, &err) == KP_OK;
	kpi_summary_free(&sum);
	kpi_close(&db);
	return ok;
}

static kpt_app *open_app(void)
{
	kpt_app *app = kpt_bench_open(24, 80);
	snprintf(app->cfg.db_path, sizeof app->cfg.db_path, "%s", db_path);
	kp_error err;
	if (kpi_open(db_path, 0, &app->db, &err) != KP_OK || kpt_catalog_open(&app->cat, app->db, "", &err) != KP_OK)
		KT_CHECK(0, "open the index: %s", err.msg);
	return app;
}

static void close_app(kpt_app *app)
{
	kpt_app_close_views(app);
	kpt_catalog_free(&app->cat);
	kpt_docs_free(&app->docs);
	kpi_close(&app->db);
	kpt_bench_close(app);
}

static void test_catalog(void)
{
	kpt_app *app = open_app();
	KT_CHECK(app->cat.n == 4, "catalog: the 4 fixture reports (got %zu)", app->cat.n);
	KT_CHECK(app->cat.ng >= 1 && app->cat.ng <= app->cat.n, "catalog: groups (got %zu)", app->cat.ng);
	unsigned gen = app->cat.generation;
	kp_error err;
	KT_CHECK(kpt_catalog_reload(&app->cat, &err) == KP_OK && app->cat.generation == gen + 1,
	         "catalog: a reload bumps the generation");
	bool all_found = true, headlines = true;
	for (size_t i = 0; i < app->cat.n; i++) {
		all_found &= kpt_catalog_find(&app->cat, app->cat.e[i].id) == &app->cat.e[i];
		headlines &= app->cat.e[i].headline && app->cat.e[i].headline[0];
	}
	KT_CHECK(all_found, "catalog: kpt_catalog_find finds every id");
	KT_CHECK(headlines, "catalog: every entry has a headline");
	KT_CHECK(kpt_catalog_find(&app->cat, 999999) == NULL, "catalog: an unknown id is not found");
	close_app(app);
}

static void test_list_filter(void)
{
	kpt_app *app = open_app();
	kpt_app_push(app, &kpt_view_panics, NULL);
	KT_CHECK(app->depth == 1, "filter: the panics view opens");
	if (app->depth != 1) {
		close_app(app);
		return;
	}
	kpt_view *v = app->stack[0];
	size_t all = kpt_list_visible(&v->list);
	KT_CHECK(all == app->cat.n, "filter: every report visible (%zu)", all);
	/* the three FakeDriver panics, by a word of their headline in other case */
	snprintf(v->list.filter, sizeof v->list.filter, "%s", "fakedriver: REPORT");
	kpt_list_refilter(v);
	size_t vis = kpt_list_visible(&v->list);
	KT_CHECK(v->list.filtered && vis == 3, "filter: a case-insensitive phrase hides the other row (%zu of %zu)", vis, all);
	size_t row;
	char buf[1024];
	bool matches = kpt_list_current(&v->list, &row) &&
	               strstr(v->ops->row_text(v, row, buf, sizeof buf), "FakeDriver: report") != NULL;
	KT_CHECK(matches, "filter: the current row matches");
	snprintf(v->list.filter, sizeof v->list.filter, "%s", "no such text anywhere");
	kpt_list_refilter(v);
	KT_CHECK(kpt_list_visible(&v->list) == 0 && !kpt_list_current(&v->list, &row),
	         "filter: no match leaves no row");
	kpt_app_key(app, KPT_REQ_BACK);   /* the first Esc clears the filter */
	KT_CHECK(kpt_list_visible(&v->list) == all && !v->list.filter[0] && app->depth == 1,
	         "filter: Esc clears it and keeps the view");
	kpt_app_key(app, KPT_REQ_END);
	KT_CHECK(v->list.cur + 1 == all, "filter: End goes to the last row");
	close_app(app);
}

/* Waits for the worker's answers until frames [0,n) are done or 20 s pass. */
static bool wait_frames(kpt_app *app, kpt_sym *syms, size_t n)
{
	for (int i = 0; i < 400; i++) {
		size_t done = 0;
		for (size_t f = 0; f < n; f++)
			done += syms[f].state == KPT_SYM_DONE;
		if (done == n)
			return true;
		struct pollfd pf = {.fd = kpt_worker_fd(app), .events = POLLIN};
		if (poll(&pf, 1, 50) > 0)
			kpt_worker_poll(app);
	}
	return false;
}

static void test_worker(void)
{
	kpt_app *app = open_app();
	static const char *dsyms[1];
	app->cfg.dsyms = dsyms;
	app->cfg.dsyms[app->cfg.ndsyms++] = KP_FIXTURES "/bin";
	app->cfg.demo = true;   /* only the fixture dSYMs: no environment, no cache */
	app->cfg.no_system = true;
	const kpt_entry *e = NULL;
	for (size_t i = 0; i < app->cat.n; i++)
		if (strstr(app->cat.e[i].path, "panic-full-2026-11-20-101500.0001.ips"))
			e = &app->cat.e[i];
	KT_CHECK(e != NULL, "worker: the fixture report is indexed");
	kp_error err;
	kpt_doc *d = e ? kpt_doc_acquire(&app->docs, app->db, e->id, e->path, &err) : NULL;
	KT_CHECK(d != NULL, "worker: the document loads from the index");
	if (!d) {
		close_app(app);
		return;
	}
	/* the worker must need neither the index nor the report file */
	kpi_close(&app->db);
	snprintf(app->cfg.db_path, sizeof app->cfg.db_path, "%s/absent/index.sqlite3", tmpdir);
	KT_CHECK(kpt_worker_start(app, &err) == KP_OK, "worker: starts");
	size_t proc = 0, thread = 0;
	bool found = false;
	for (size_t p = 0; p < d->r->nprocesses && !found; p++)
		for (size_t t = 0; t < d->r->processes[p].nthreads && !found; t++)
			if (d->r->processes[p].threads[t].panicked)
				proc = p, thread = t, found = true;
	KT_CHECK(found, "worker: the report has a panicked thread");
	size_t n = d->r->processes[proc].threads[thread].nframes;
	kpt_sym *syms = kpt_doc_syms(d, proc, thread);
	for (size_t f = 0; f < n; f++)
		syms[f].state = KPT_SYM_PENDING;
	kpt_worker_request(app, d, proc, thread, 0, n, true);
	KT_CHECK(d->refs == 2, "worker: a request retains its document (refs %d)", d->refs);
	KT_CHECK(wait_frames(app, syms, n), "worker: every frame answered");
	KT_CHECK(syms[0].status == 0 && syms[0].nlines >= 1 && syms[0].lines[0].function &&
	         strcmp(syms[0].lines[0].function, "panic_trap_to_debugger") == 0,
	         "worker: frame 0 is panic_trap_to_debugger (got %s)",
	         syms[0].nlines && syms[0].lines[0].function ? syms[0].lines[0].function : syms[0].note ? syms[0].note : "?");
	KT_CHECK(syms[0].nlines >= 1 && syms[0].lines[0].line == 62, "worker: frame 0 at fakekernel.c:62");
	KT_CHECK(d->refs == 1, "worker: the last answer drops the request's reference (refs %d)", d->refs);
	/* a request still queued at stop releases its reference too */
	kpt_worker_request(app, d, proc, thread, 0, n, false);
	kpt_worker_stop(app);
	KT_CHECK(d->refs == 1 && app->worker == NULL, "worker: stop drops queued references (refs %d)", d->refs);
	kpt_doc_release(&app->docs, &d);
	KT_CHECK(app->docs.n == 0, "worker: the document is freed with its last reference");
	close_app(app);
}

static void test_symbol_options(void)
{
	kpt_config c;
	memset(&c, 0, sizeof c);
	const char *dsyms[1];
	c.dsyms = dsyms;
	c.dsyms[c.ndsyms++] = "/somewhere";
	kp_symbols_opts o;
	kpt_options_symbols(&c, &o);
	KT_CHECK(o.npaths == 1 && o.paths[0] == c.dsyms[0] && !o.no_env && !o.no_system && o.cache_dir == NULL,
	         "options: --dsym paths, environment, system search and default cache");
	c.demo = true;
	c.no_system = true;
	kpt_options_symbols(&c, &o);
	KT_CHECK(o.no_env && o.no_system && o.cache_dir && !o.cache_dir[0],
	         "options: --demo ignores the environment, the system and the cache (worker and scanner alike)");
}

/* The views' own column layouts (kpt_columns.h) at every width from 20 to
 * 240, against the layout each promises, written out as arithmetic here. */
static void test_columns(void)
{
	bool flat = true, hosts = true, groups = true, process = true, search = true, thread = true;
	for (int w = 20; w <= 240; w++) {
		bool wide = w >= 120;
		int os = wide ? 12 : 9, culprit = wide ? 32 : 18, mac = wide ? 20 : 14;

		/* the flat list: mark 3, date 17 (a Mac's clock marked ~), OS, dups 4,
		 * the panic (the rest), the culprit, dropped before the panic gets
		 * under 10 */
		kpt_catalog one = {.many_hosts = false}, many = {.many_hosts = true};
		kpt_col c[KPT_PANICS_COLS];
		int n = kpt_panics_layout(&one, c, w);
		/* the class 5 (and its gap) goes with the culprit */
		int head = w - (34 + os + culprit), cul = culprit, cls = 5;
		if (head < 10)
			cul = cls = 0, head = w - (27 + os);
		int hx = cls ? 33 + os : 27 + os;
		bool ok = n == 7 && c[0].x == 0 && c[0].w == 3 && c[1].x == 3 && c[1].w == 17 && c[2].x == 21 &&
		          c[2].w == os && c[3].x == 22 + os && c[3].w == 4 && c[4].w == cls && (!cls || c[4].x == 27 + os) &&
		          c[5].x == hx && c[5].w == head && c[6].w == cul && (!cul || c[6].x == 34 + os + head) && c[7].w == 0;
		if (!ok && flat)
			printf("# flat list at %d: class %d/%d panic %d/%d culprit %d/%d\n", w, c[4].w, cls, c[5].w, head, c[6].w,
			       cul);
		flat &= ok;
		/* ... and from more than one Mac, the Mac column last; all go together */
		n = kpt_panics_layout(&many, c, w);
		int mw = mac;
		head = w - (35 + os + culprit + mac), cul = culprit, cls = 5;
		if (head < 10)
			cul = mw = cls = 0, head = w - (27 + os);
		hx = cls ? 33 + os : 27 + os;
		ok = n == 8 && c[4].w == cls && c[5].x == hx && c[5].w == head && c[6].w == cul && c[7].w == mw &&
		     (!cul || (c[6].x == 34 + os + head && c[7].x == 35 + os + head + culprit));
		if (!ok && hosts)
			printf("# many Macs at %d: panic %d/%d culprit %d/%d Mac %d/%d\n", w, c[5].w, head, c[6].w, cul,
			       c[7].w, mw);
		hosts &= ok;

		/* groups: count 5, marks 2, the trend 13 (optional), last seen 17,
		 * the title (the rest), the culprit (optional: both go together) */
		kpt_col g[KPT_GROUPS_COLS];
		kpt_groups_layout(g, w);
		int title = w - (42 + culprit), spark = 13;
		cul = culprit;
		if (title < 10)
			cul = 0, spark = 0, title = w - 27;
		int dx = spark ? 23 : 9;
		ok = g[0].x == 0 && g[0].w == 5 && g[1].x == 6 && g[1].w == 2 && g[2].w == spark && (!spark || g[2].x == 9) &&
		     g[3].x == dx && g[3].w == 17 && g[4].x == dx + 18 && g[4].w == title && g[5].w == cul &&
		     (!cul || g[5].x == dx + 19 + title);
		if (!ok && groups)
			printf("# groups at %d: trend %d/%d title %d/%d culprit %d/%d\n", w, g[2].w, spark, g[4].w, title, g[5].w, cul);
		groups &= ok;

		/* a process's threads: mark 2, id 13, name (28 from 140), state (28
		 * from 100), frames 8, what it waits on (the rest, at least 10 before
		 * the name shrinks to 8) */
		kpt_col p[KPT_PROCESS_COLS];
		kpt_process_layout(p, w);
		int name = w >= 140 ? 28 : 18, state = w >= 100 ? 28 : 22;
		if (w - (24 + name + state) < 10)
			name = 8;
		ok = p[1].x == 2 && p[1].w == 13 && p[2].x == 15 && p[2].w == name && p[3].x == 16 + name &&
		     p[3].w == state && p[4].x == 16 + name + state && p[4].w == 8 && p[5].x == 24 + name + state &&
		     p[5].w == w - (24 + name + state);
		if (!ok && process)
			printf("# process at %d: name %d/%d waits on %d\n", w, p[2].w, name, p[5].w);
		process &= ok;

		/* a UUID or kext search: date 20, role 11, image name (30 from 110),
		 * the headline (the rest); under 10 the role goes and the name is 10 */
		kpt_col h[KPT_SEARCH_COLS];
		kpt_search_layout(h, w);
		name = w >= 110 ? 30 : 20;
		int role = 11;
		if (w - (32 + name) < 10)
			role = 0, name = 10;
		ok = h[0].x == 0 && h[0].w == 20 && h[1].w == role && h[2].x == 20 + role && h[2].w == name &&
		     h[3].x == 21 + role + name && h[3].w == w - (21 + role + name);
		if (!ok && search)
			printf("# search at %d: role %d/%d name %d/%d\n", w, h[1].w, role, h[2].w, name);
		search &= ok;

		/* a thread's frames: number 4, image (30 from 140), offset 10, the
		 * function (the rest), file:line (36 from 140); the function keeps 26
		 * while the image shrinks to 14, then the offset goes, then file:line
		 * shrinks to 16 and goes, then the image goes */
		kpt_col t[KPT_THREAD_COLS];
		kpt_thread_layout(t, w);
		const int steps[][3] = {{w >= 140 ? 30 : 22, 10, w >= 140 ? 36 : 22}, {14, 10, w >= 140 ? 36 : 22},
		                        {14, 0, w >= 140 ? 36 : 22}, {14, 0, 16}, {14, 0, 0}, {0, 0, 0}};
		int s = 0;
		while (s < 5 && w - (4 + (steps[s][0] ? steps[s][0] + 1 : 0) + (steps[s][1] ? steps[s][1] + 1 : 0) +
		                     (steps[s][2] ? steps[s][2] + 1 : 0)) < 26)
			s++;
		int img = steps[s][0], off = steps[s][1], file = steps[s][2];
		int fx = 4 + (img ? img + 1 : 0) + (off ? off + 1 : 0), fw = w - fx - (file ? file + 1 : 0);
		if (fw < 0)
			fw = 0;
		ok = t[0].x == 0 && t[0].w == 4 && t[1].x == 4 && t[1].w == img && t[2].x == 4 + (img ? img + 1 : 0) &&
		     t[2].w == off && t[3].x == fx && t[3].w == fw && t[4].x == fx + fw + 1 && t[4].w == file;
		if (!ok && thread)
			printf("# thread at %d: image %d/%d offset %d/%d function %d/%d file %d/%d\n", w, t[1].w, img,
			       t[2].w, off, t[3].w, fw, t[4].w, file);
		thread &= ok;
	}
	KT_CHECK(flat, "columns: the flat list's layout at every width (culprit dropped before the panic is under 10)");
	KT_CHECK(hosts, "columns: from more than one Mac, the Mac column last, dropped with the culprit");
	KT_CHECK(groups, "columns: the groups' layout at every width");
	KT_CHECK(process, "columns: a process's threads at every width (the name shrinks to 8 first)");
	KT_CHECK(search, "columns: a search's hits at every width (the role goes, the name shrinks to 10)");
	KT_CHECK(thread, "columns: a thread's frames at every width (the function keeps 26 columns longest)");
}

/* Issue 11 item 10: no silent limit on how many paths, --dsym and
 * --source-map are given (64 were kept before, the rest dropped). */
static void test_options_many(void)
{
	enum { N = 100 };
	static char bufs[3 * N][32];
	char *argv[1 + 5 * N + 1];
	int argc = 0;
	argv[argc++] = "kpbrowse";
	for (int i = 0; i < N; i++) {
		snprintf(bufs[i], sizeof bufs[i], "dsym%d", i);
		argv[argc++] = "--dsym";
		argv[argc++] = bufs[i];
		snprintf(bufs[N + i], sizeof bufs[N + i], "/from%d=/to%d", i, i);
		argv[argc++] = "--source-map";
		argv[argc++] = bufs[N + i];
	}
	for (int i = 0; i < N; i++) {
		snprintf(bufs[2 * N + i], sizeof bufs[2 * N + i], "path%d", i);
		argv[argc++] = bufs[2 * N + i];
	}
	argv[argc] = NULL;
	kpt_config c;
	memset(&c, 0, sizeof c);
	snprintf(c.db_path, sizeof c.db_path, "/nonexistent/index.sqlite3");
	KT_CHECK(kpt_options_parse(&c, argc, argv) == 0, "options: 100 of each parse");
	KT_CHECK(c.npaths == N && c.ndsyms == N && c.nmaps == N, "options: all kept (%zu paths, %zu dsyms, %zu maps)",
	         c.npaths, c.ndsyms, c.nmaps);
	KT_STREQ(c.npaths == N ? c.paths[N - 1] : NULL, "path99", "options: the last path");
	KT_STREQ(c.ndsyms == N ? c.dsyms[N - 1] : NULL, "dsym99", "options: the last --dsym");
	KT_STREQ(c.nmaps == N ? c.map_to[N - 1] : NULL, "/to99", "options: the last --source-map");
	kpt_options_free(&c);
}

static int parse_demo(const char *tmp)
{
	char *argv[] = {"kpbrowse", "--demo", NULL};
	kpt_config c;
	memset(&c, 0, sizeof c);
	setenv("TMPDIR", tmp, 1);
	int rc = kpt_options_parse(&c, 2, argv);
	kpt_options_free(&c);
	return rc;
}

/* Issue 11 item 4: the demo's folder in a shared $TMPDIR is used only when
 * it is ours, a directory and 0700; anything else is refused. */
static void test_demo_folder(void)
{
	char *old = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
	char base[300], dir[400], cmd[900];
	snprintf(base, sizeof base, "%s/kpt-demo-XXXXXX", old ? old : "/tmp");
	if (!mkdtemp(base)) {
		KT_CHECK(0, "demo folder: mkdtemp");
		return;
	}
	snprintf(dir, sizeof dir, "%s/kpbrowse-demo-%ld", base, (long)getuid());
	struct stat st;
	KT_CHECK(parse_demo(base) == 0 && lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700,
	         "demo folder: created 0700 when absent");
	KT_CHECK(parse_demo(base) == 0, "demo folder: our own 0700 folder is used again");
	chmod(dir, 0755);
	KT_CHECK(parse_demo(base) == KP_EXIT_BAD, "demo folder: refused when others may enter it");
	rmdir(dir);
	char target[420];
	snprintf(target, sizeof target, "%s/elsewhere", base);
	mkdir(target, 0700);
	KT_CHECK(symlink(target, dir) == 0 && parse_demo(base) == KP_EXIT_BAD, "demo folder: refused when a symlink");
	unlink(dir);
	if (old)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	free(old);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
	(void)!system(cmd);
}

/* Issue 11 item 10: the dups column (4 wide) showed 2,500 as "x250". */
static void test_count_label(void)
{
	static const struct { long long n; const char *want; } cases[] = {
		{2, "x2"}, {999, "x999"}, {1000, "1.0k"}, {2500, "2.5k"}, {9999, "9.9k"}, {25000, "x25k"},
		{250000, "250k"}, {999999, "999k"}, {2500000, "2.5M"}, {4000000000LL, "4.0G"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char buf[16];
		kpt_count_label(cases[i].n, buf, sizeof buf);
		KT_STREQ(buf, cases[i].want, "dups label");
		KT_CHECK(strlen(buf) <= 4, "dups label %lld fits the 4-column dups column", cases[i].n);
	}
}

static long peak_rss_kib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
#ifdef __APPLE__
	return ru.ru_maxrss / 1024;
#else
	return ru.ru_maxrss;
#endif
}

/* The text the source view's list holds for row (what `/` searches). */
static const char *source_row(kpt_view *v, size_t row)
{
	static char buf[1024];
	return v->ops->row_text(v, row, buf, sizeof buf);
}

/* Issue 11 items 8 and 5 (the source view's part): a 32 MiB file of
 * newlines raised peak memory by 1.3 GB (a malloc per line) and kept 1 GB
 * after the view was left; a FIFO as the source file hung the TUI. */
static void test_source_view(void)
{
	char small[600], big[600], fifo[600];
	snprintf(small, sizeof small, "%s/small.c", tmpdir);
	snprintf(big, sizeof big, "%s/newlines.c", tmpdir);
	snprintf(fifo, sizeof fifo, "%s/fifo.c", tmpdir);
	FILE *fp = fopen(small, "w");
	for (int i = 1; i <= 200; i++)
		fprintf(fp, "%sline %d\n", i == 3 ? "\t" : "", i);
	fputs("last, no newline", fp);
	fclose(fp);
	kpt_app *app = open_app();
	kpt_source_arg a = {.file = small, .line = 150};
	kpt_app_push(app, &kpt_view_source, &a);
	kpt_app_draw(app);
	kpt_view *v = app->stack[app->depth - 1];
	KT_CHECK(v->ops == &kpt_view_source && v->list.n == 201, "source: every line (%zu of 201)", v->list.n);
	KT_STREQ(source_row(v, 2), "        line 3", "source: line 3, tab expanded");
	KT_STREQ(source_row(v, 149), "line 150", "source: line 150");
	KT_STREQ(source_row(v, 64), "line 65", "source: line 65 (past a checkpoint)");
	KT_STREQ(source_row(v, 200), "last, no newline", "source: the last line without a newline");
	KT_STREQ(source_row(v, 0), "line 1", "source: back to line 1");
	kpt_app_key(app, KPT_REQ_BACK);

	fp = fopen(big, "w");
	for (size_t i = 0; i < ((size_t)32 << 20); i++)
		fputc('\n', fp);
	fclose(fp);
	long before = peak_rss_kib();
	a = (kpt_source_arg){.file = big, .line = 30000000};
	kpt_app_push(app, &kpt_view_source, &a);
	kpt_app_draw(app);
	v = app->stack[app->depth - 1];
	KT_CHECK(v->ops == &kpt_view_source && v->list.n == ((size_t)32 << 20), "source: 32 MiB of newlines is %zu lines",
	         v->list.n);
	kpt_app_key(app, KPT_REQ_END);
	kpt_app_key(app, KPT_REQ_HOME);
	long grew = peak_rss_kib() - before;
	KT_CHECK(grew < 16384, "source: 32 MiB of newlines raised peak memory by %ld KiB (1.3 GB before)", grew);
	kpt_app_key(app, KPT_REQ_BACK);
	KT_CHECK(app->depth == 1, "source: left");

	if (mkfifo(fifo, 0600) == 0) {
		alarm(20);   /* a hang fails the test instead of blocking it */
		a = (kpt_source_arg){.file = fifo, .line = 1};
		kpt_app_push(app, &kpt_view_source, &a);
		kpt_app_draw(app);
		alarm(0);
		v = app->stack[app->depth - 1];
		KT_CHECK(v->ops == &kpt_view_source && v->list.n == 0, "source: a FIFO is refused at once, not read");
		kpt_app_key(app, KPT_REQ_BACK);
	}
	close_app(app);
	unlink(small);
	unlink(big);
	unlink(fifo);
}

/* kp_sanitize_next walks text unit by unit with the widths kpt_put draws. */
/* What is copied is what is shown (issue 32 item 2): one clipboard line per
 * line given, every control inside a line escaped, a newline included. */
static void test_clipboard_text(void)
{
	const char *lines[] = {"fn\ntouch /tmp/x", "a\tb\r", "\x1b[201~\xef\xb8\x8f"};
	bool cut = true;
	char *t = kpt_clipboard_text(lines, 3, &cut);
	KT_CHECK(strcmp(t, "fn\\x0atouch /tmp/x\na b\n\\e[201~<U+FE0F>") == 0,
	         "clipboard: lines joined by newlines, a newline, tab or ESC in a line as shown");
	KT_CHECK(!cut, "clipboard: not cut");
	free(t);
	size_t big = KPT_CLIPBOARD_MAX + 10;
	char *x = malloc(big + 1);
	memset(x, 'x', big);
	x[big] = '\0';
	const char *two[] = {"first", x};
	t = kpt_clipboard_text(two, 2, &cut);
	KT_CHECK(cut && strlen(t) == KPT_CLIPBOARD_MAX && strncmp(t, "first\nxxx", 9) == 0,
	         "clipboard: capped at KPT_CLIPBOARD_MAX and says so");
	free(t);
	free(x);
}

static void test_sanitize_next(void)
{
	if (!setlocale(LC_CTYPE, "C.UTF-8") && !setlocale(LC_CTYPE, "en_US.UTF-8")) {
		KT_SKIP("sanitize_next: no UTF-8 locale");
		return;
	}
	static const char *const cases[] = {
		"plain ascii", "tab\there", "esc \033[31m red", "c1 \xc2\x9b csi", "bidi \xe2\x80\xae rlo",
		"bad \xff byte", "wide \xe6\xbc\xa2\xe5\xad\x97", "crlf\r", "bel\a nul-free",
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *s = cases[i];
		size_t len = strlen(s), off = 0;
		int w = 0;
		while (off < len) {
			size_t k;
			w += kp_sanitize_next(s + off, len - off, &k);
			off += k;
		}
		KT_CHECK(off == len && w == kpt_text_width(s), "sanitize_next: case %zu is %d columns (%d drawn)", i, w,
		         kpt_text_width(s));
	}
	setlocale(LC_CTYPE, "C");
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Issue 11 item 1: a report whose panic string is one 16 MB line opened
 * in 3.8 s per 4 MB, quadratically (a strlen per wrapped row); now the
 * view lays out what the screen shows, and the rest in slices. */
static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_long_panic_string(void)
{
	char path[600];
	snprintf(path, sizeof path, "%s/long.ips", tmpdir);
	FILE *in = fopen(KP_FIXTURES "/reports/panic-full-2026-11-20-101500.0001.ips", "rb");
	FILE *out = fopen(path, "wb");
	char line[8192];
	size_t big = (size_t)16 << 20;
	while (in && out && fgets(line, sizeof line, in)) {
		char *at = strstr(line, "exceeds buffer");
		if (!at) {
			fputs(line, out);
			continue;
		}
		fwrite(line, 1, (size_t)(at - line) + 14, out);
		for (size_t i = 0; i < big; i++)
			fputc('A', out);
		fputs(at + 14, out);
	}
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	kpt_app *app = open_app();
	kpt_entry e = {.id = -1, .path = path};
	double t0 = now_s();
	kpt_app_push(app, &kpt_view_report, &e);
	kpt_app_draw(app);
	double t_open = now_s() - t0;
	kpt_view *v = app->depth ? app->stack[app->depth - 1] : NULL;
	KT_CHECK(v && v->ops == &kpt_view_report, "long panic string: the report view opens");
	KT_CHECK(t_open < 10.0, "long panic string: open and first draw in %.2f s (parse included; minutes before)", t_open);
	if (!v || v->ops != &kpt_view_report) {
		close_app(app);
		return;
	}
	double worst = 0;
	int slices = 0;
	unsigned f;
	/* a slice's own work (this thread's CPU time): a loaded machine's
	 * scheduler is not the layout's fault */
	do {
		double s0 = cpu_s();
		f = v->ops->idle(v);
		double d = cpu_s() - s0;
		worst = d > worst ? d : worst;
		slices++;
	} while ((f & KPT_MORE) && slices < 100000);
	KT_CHECK(!(f & KPT_MORE), "long panic string: laid out in %d slices", slices);
	KT_CHECK(worst < 0.1, "long panic string: the longest slice took %.1f ms of CPU (a key waits no longer)", worst * 1e3);
	size_t want = big / 77;   /* 80 columns less the indent and margin */
	KT_CHECK(v->list.n > want && v->list.n < want + 100, "long panic string: every row is there (%zu rows)",
	         v->list.n);
	kpt_app_key(app, KPT_REQ_END);
	size_t row;
	KT_CHECK(kpt_list_current(&v->list, &row) && row == v->list.n - 1, "long panic string: End reaches the last row");
	close_app(app);
	unlink(path);
}

/* Issue 15 defect 3: one date rule (UTC, with the year; "-" when undated)
 * and undated reports last, not first by their file's time. */
static void test_dates(void)
{
	char d[32];
	KT_CHECK(kpi_date_label("2026-11-27 18:30:05.00 +0100", d, sizeof d) == KPI_DATE_UTC &&
	             strcmp(d, "2026-11-27 17:30") == 0,
	         "date: a report's local time with its zone shows as UTC (got %s)", d);
	/* issue 31 item 9: ctime's line gives no zone: the Mac's clock, marked, never UTC */
	KT_CHECK(kpi_date_label("Mon Aug  3 09:45:12 2020", d, sizeof d) == KPI_DATE_LOCAL &&
	             strcmp(d, "2020-08-03 09:45~") == 0,
	         "date: a ctime date keeps its year and is marked the Mac's local time (got %s)", d);
	KT_CHECK(strstr(kpi_date_zone(KPI_DATE_LOCAL), "UTC") == NULL && strcmp(kpi_date_zone(KPI_DATE_UTC), " UTC") == 0,
	         "date: only a zoned date is said to be UTC");
	KT_CHECK(kpi_date_label("2024-05-01T10:00:00Z", d, sizeof d) == KPI_DATE_UTC && strcmp(d, "2024-05-01 10:00") == 0,
	         "date: the index's ISO 8601 UTC (got %s)", d);
	KT_CHECK(kpi_date_label("2026-01-13T12:23:35-05:00", d, sizeof d) == KPI_DATE_UTC &&
	             strcmp(d, "2026-01-13 17:23") == 0,
	         "date: JSON's ISO 8601 with an offset (got %s)", d);
	KT_CHECK(!kpi_date_label(NULL, d, sizeof d) && strcmp(d, "-") == 0, "date: none shows as -");
	KT_CHECK(!kpi_date_label("yesterday", d, sizeof d) && strcmp(d, "-") == 0, "date: unreadable shows as -");

	/* an undated copy of the .panic report, its file newer than every report */
	char dir[300], cmd[4000], db[400];
	snprintf(dir, sizeof dir, "%s/undated", tmpdir);
	snprintf(db, sizeof db, "%s/undated.sqlite3", tmpdir);
	snprintf(cmd, sizeof cmd,
	         "mkdir -p '%s' && grep -v '^Mon Aug  3' '%s/reports/Kernel_2020-08-03-094512_kpbrowse-demo.panic' "
	         ">'%s/undated.panic' && cp '%s/reports/Kernel-2020-09-14-201744.panic' '%s/' && touch '%s/undated.panic'",
	         dir, KP_FIXTURES, dir, KP_FIXTURES, dir, dir);
	KT_CHECK(system(cmd) == 0, "date: make an undated report");
	kpi_db *idx = NULL;
	kp_error err;
	kpi_summary sum;
	memset(&sum, 0, sizeof sum);
	const char *paths[] = {dir};
	bool ok = kpi_open(db, KPI_OPEN_CREATE, &idx, &err) == KP_OK &&
	          kpi_scan(idx, paths, 1, NULL, NULL, NULL, NULL, &sum, &err) == KP_OK;
	kpi_summary_free(&sum);
	kpi_close(&idx);
	KT_CHECK(ok, "date: index the undated report");
	kpt_app *app = kpt_bench_open(24, 80);
	if (kpi_open(db, 0, &app->db, &err) == KP_OK && kpt_catalog_open(&app->cat, app->db, "", &err) == KP_OK && app->cat.n == 2) {
		KT_CHECK(app->cat.e[0].date != NULL, "date: the dated report comes first");
		KT_CHECK(app->cat.e[1].date == NULL, "date: the undated report comes last");
	} else {
		KT_CHECK(0, "date: catalog of 2 reports (got %zu)", app->cat.n);
	}
	kpt_app_close_views(app);
	kpt_catalog_free(&app->cat);
	kpt_docs_free(&app->docs);
	kpi_close(&app->db);
	kpt_bench_close(app);
}

/* Gives frame f of d's panicked thread the function name (as the worker
 * would). */
static void set_function(kpt_doc *d, size_t f, const char *name)
{
	const kp_process *pp = NULL;
	const kp_thread *t = kp_report_panicked_thread(d->r, &pp);
	kpt_sym *s = kpt_doc_syms(d, (size_t)(pp - d->r->processes), (size_t)(t - pp->threads));
	kpt_sym_clear(&s[f]);
	s[f].state = KPT_SYM_DONE;
	s[f].status = KP_SYM_OK;
	s[f].lines = calloc(1, sizeof *s[f].lines);
	s[f].lines[0].function = strdup(name);
	s[f].nlines = 1;
}

static const kpt_entry *entry_named(kpt_app *app, const char *suffix)
{
	for (size_t i = 0; i < app->cat.n; i++) {
		const char *p = app->cat.e[i].path;
		if (p && strlen(p) >= strlen(suffix) && strcmp(p + strlen(p) - strlen(suffix), suffix) == 0)
			return &app->cat.e[i];
	}
	return NULL;
}

/* Issue 15: c aligns the two backtraces by function name (a longest
 * common subsequence), each row marked = same, ! differs, < only A, > only
 * B; stacked (below 100 columns) a "!" pair is two rows.  And the marks. */
static void test_compare(void)
{
	kpt_marks m = {0};
	kpt_marks_toggle(&m, 7);
	kpt_marks_toggle(&m, 8);
	kpt_marks_toggle(&m, 9);   /* a third: 7 goes */
	KT_CHECK(m.n == 2 && m.id[0] == 8 && m.id[1] == 9 && kpt_marks_label(&m, 9) == '2' &&
	         kpt_marks_label(&m, 7) == ' ', "marks: two at most, the oldest goes");
	kpt_marks_toggle(&m, 8);
	KT_CHECK(m.n == 1 && m.id[0] == 9 && kpt_marks_label(&m, 9) == '1', "marks: m again unmarks");

	kpt_app *app = open_app();
	const kpt_entry *ea = entry_named(app, "panic-full-2026-11-27-183005.0002.ips");
	const kpt_entry *eb = entry_named(app, "Kernel-2020-09-14-201744.panic");
	kp_error err;
	kpt_doc *a = ea ? kpt_doc_open(app, ea->id, ea->path, &err) : NULL;
	kpt_doc *b = eb ? kpt_doc_open(app, eb->id, eb->path, &err) : NULL;
	KT_CHECK(a && b && a->r && b->r, "compare: the two reports load");
	if (!a || !b || !a->r || !b->r) {
		close_app(app);
		return;
	}
	static const char *const fa[] = {"x", "a", "b", "c", "y"}, *const fb[] = {"x", "b", "d", "c", "z"};
	for (size_t f = 0; f < 5; f++) {
		set_function(a, f, fa[f]);
		set_function(b, f, fb[f]);
	}
	kpt_compare_arg arg = {ea->id, eb->id};
	kpt_app_push(app, &kpt_view_compare, &arg);
	KT_CHECK(app->depth == 1, "compare: the view opens");
	if (app->depth == 1) {
		kpt_view *v = app->stack[0];
		kpt_app_draw(app);
		char marks[16] = "", buf[1024];
		for (size_t i = 0; i < v->list.n && i < 15; i++)
			marks[i] = v->ops->row_text(v, i, buf, sizeof buf)[0];
		KT_STREQ(marks, "=<=>=!!", "compare: x a b c y against x b d c z, stacked");
		KT_CHECK(strcmp(v->ops->row_text(v, 1, buf, sizeof buf), "< a\t") == 0,
		         "compare: the frame only A has, on A's side (%s)", buf);
	}
	kpt_doc_release(&app->docs, &a);
	kpt_doc_release(&app->docs, &b);
	close_app(app);
}

/* An index bigger than the first page: kpt_catalog_open shows the newest
 * KPT_CATALOG_FIRST at once, the rest comes through the catalog's event
 * source; the list is then the one a full reload reads. */
static void test_catalog_first_page(void)
{
	char dir[600], db[600];
	snprintf(dir, sizeof dir, "%s/many", tmpdir);
	snprintf(db, sizeof db, "%s/many.sqlite3", tmpdir);
	mkdir(dir, 0755);
	int want = KPT_CATALOG_FIRST + 150;
	kpi_db *idx = NULL;
	kp_error err;
	kpi_summary sum;
	memset(&sum, 0, sizeof sum);
	const char *paths[] = {dir};
	bool ok = gen_large(dir, want) == 0 && kpi_open(db, KPI_OPEN_CREATE, &idx, &err) == KP_OK &&
	          kpi_scan(idx, paths, 1, NULL, NULL, NULL, NULL, &sum, &err) == KP_OK;
	kpi_summary_free(&sum);
	kpi_close(&idx);
	KT_CHECK(ok, "first page: index %d reports", want);
	kpt_app *app = kpt_bench_open(24, 80);
	snprintf(app->cfg.db_path, sizeof app->cfg.db_path, "%s", db);
	if (!ok || kpi_open(db, 0, &app->db, &err) != KP_OK || kpt_catalog_open(&app->cat, app->db, db, &err) != KP_OK) {
		KT_CHECK(0, "first page: open");
		kpt_bench_close(app);
		return;
	}
	KT_CHECK(app->cat.n == KPT_CATALOG_FIRST && app->cat.partial && app->cat.total == (size_t)want,
	         "first page: %d of %zu reports, partial (got %zu)", KPT_CATALOG_FIRST, app->cat.total,
	         app->cat.n);
	int64_t first_id = app->cat.n ? app->cat.e[0].id : -1;
	KT_CHECK(kpt_catalog_fd(&app->cat) >= 0, "first page: the rest is loading");
	unsigned gen = app->cat.generation, f = kpt_bench_rest(app);
	KT_CHECK(app->cat.n == (size_t)want && !app->cat.partial && app->cat.generation == gen + 1 &&
	         (f & KPT_REDRAW), "first page: the rest came in: %zu reports, a new generation", app->cat.n);
	int64_t *ids = malloc((app->cat.n + 1) * sizeof *ids);
	for (size_t i = 0; i < app->cat.n; i++)
		ids[i] = app->cat.e[i].id;
	size_t n = app->cat.n;
	KT_CHECK(n && ids[0] == first_id, "first page: its rows lead the whole list");
	kpt_catalog_reload(&app->cat, &err);
	bool same = app->cat.n == n;
	for (size_t i = 0; same && i < n; i++)
		same = app->cat.e[i].id == ids[i];
	KT_CHECK(same, "first page: the whole list is the one a reload reads");
	free(ids);
	/* a reload while the rest loads wins: the older load is dropped */
	kpt_catalog_free(&app->cat);
	memset(&app->cat, 0, sizeof app->cat);
	kpt_catalog_open(&app->cat, app->db, db, &err);
	kpt_catalog_reload(&app->cat, &err);
	gen = app->cat.generation;
	kpt_bench_rest(app);
	KT_CHECK(app->cat.generation == gen && app->cat.n == (size_t)want,
	         "first page: a load older than a reload is dropped");
	/* the UUID search view: a page of hits, the next as the cursor nears the end */
	kpt_app_push(app, &kpt_view_search, (void *)gen_dep_uuid);
	kpt_view *sv = app->depth ? app->stack[app->depth - 1] : NULL;
	KT_CHECK(sv && sv->ops == &kpt_view_search && sv->list.n > 0 && sv->list.n < (size_t)want,
	         "search view: the first page of hits (%zu of %d)", sv ? sv->list.n : 0, want);
	kpt_app_draw(app);
	size_t first_n = sv ? sv->list.n : 0;
	for (int i = 0; sv && i < 5 && sv->list.n < (size_t)want; i++) {
		kpt_app_key(app, KPT_REQ_END);
		kpt_app_draw(app);
	}
	KT_CHECK(sv && sv->list.n == (size_t)want && first_n < (size_t)want,
	         "search view: End loads the rest page by page (%zu)", sv ? sv->list.n : 0);
	kpt_app_close_views(app);
	kpt_catalog_free(&app->cat);
	kpt_docs_free(&app->docs);
	kpi_close(&app->db);
	kpt_bench_close(app);
}

int main(void)
{
	test_sanitize_next();
	test_clipboard_text();
	test_count_label();
	test_options_many();
	test_demo_folder();
	test_columns();
	if (!make_index()) {
		KT_CHECK(0, "index the fixture reports");
		return kt_done();
	}
	test_catalog();
	test_catalog_first_page();
	test_dates();
	test_list_filter();
	test_worker();
	test_symbol_options();
	test_source_view();
	test_long_panic_string();
	test_compare();
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	(void)!system(cmd);
	return kt_done();
}
