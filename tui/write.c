/* write.c: `w` writes the report (kpt_write.h). */
#include "kpt_app.h"
#include "kpt_options.h"
#include "kpt_prompt.h"
#include "kp_report_md.h"
#include "kp_report_text.h"
#include "kpt_write.h"
#include "kpt_xalloc.h"
#include "kpt_pipe.h"
#include "kpt_term.h"
#include "kp_fs.h"

#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kpt_write_default_path(const kpt_doc *d, char *out, size_t size)
{
	if (d->id >= 0)
		snprintf(out, size, "kpbrowse-report-%" PRId64 ".txt", d->id);
	else
		snprintf(out, size, "kpbrowse-report.txt");
}

/* The report written on a thread of its own while this one waits for it
 * and for keys: symbol sources may take up to their deadline
 * (KPBROWSE_SYMBOL_DEADLINE), and q, Q, Esc or Ctrl-C cancel it at once
 * (kp_symbols_cancel ends every program and transfer); q and Q then do
 * what they do.  Other keys pressed meanwhile are dropped. */
struct wjob {
	const kp_report *r;
	kp_symbols *sym;
	FILE *f;
	const kp_md_context *md;   /* B: the Markdown bug report, else show's text */
	int done[2];
};

static void write_body(struct wjob *j)
{
	if (j->md)
		kp_report_markdown(j->f, j->r, j->sym, j->md);
	else
		kp_report_text(j->f, j->r, j->sym);
}

static void *write_job(void *arg)
{
	struct wjob *j = arg;
	if (j->sym)
		kp_symbols_prefetch_report(j->sym, j->r);   /* every image at once, one deadline */
	write_body(j);
	(void)!write(j->done[1], "", 1);
	return NULL;
}

/* True when cancelled. */
static bool write_waiting(kpt_app *app, const kp_report *r, kp_symbols *sym, FILE *f, const kp_md_context *md)
{
	struct wjob j = {.r = r, .sym = sym, .f = f, .md = md};
	pthread_t th;
	if (!kpt_pipe_open(j.done)) {
		write_body(&j);   /* no pipe: no thread either */
		return false;
	}
	if (pthread_create(&th, NULL, write_job, &j) != 0) {
		write_job(&j);
		kpt_pipe_close(j.done);
		return false;
	}
	bool cancelled = false, said = false;
	for (;;) {
		struct pollfd fds[3] = {{.fd = j.done[0], .events = POLLIN},
		                        {.fd = STDIN_FILENO, .events = POLLIN},
		                        {.fd = kpt_term_signal_fd(), .events = POLLIN}};
		int n = poll(fds, cancelled ? 1 : 3, said ? -1 : 300);
		if (n < 0 && errno != EINTR)
			break;
		if (fds[0].revents)
			break;
		if (n == 0 && !said) {   /* not done at once: say what it waits for */
			kpt_set_msg(app, "writing the report: asking the symbol sources (q, Esc or Ctrl-C cancels)");
			kpt_app_draw(app);
			said = true;
			continue;
		}
		if (cancelled)
			continue;
		if (fds[2].revents & POLLIN) {
			kpt_term_drain_signals();
			cancelled = kpt_term_quit_signal() != 0;   /* the loop then quits */
		}
		if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			int ch = getch();
			if (ch == 'q' || ch == 'Q' || ch == 27 || ch == 3) {
				cancelled = true;
				if (ch == 'q' || ch == 'Q')
					ungetch(ch);   /* and it does what it does */
			}
		}
		if (cancelled && sym)
			kp_symbols_cancel(sym);
	}
	pthread_join(th, NULL);
	kpt_pipe_close(j.done);
	return cancelled;
}

static void write_file(kpt_app *app, const kpt_doc *d, const char *path, const kp_md_context *md)
{
	if (!d->r) {
		kpt_set_msg(app, "the report is still loading");
		return;
	}
	/* a new file only: never follows a link, never overwrites (an existing
	 * name gets -1, -2 ... before its extension), never blocks on a FIFO */
	char used[4096];
	int fd;
	kp_error cerr;
	if (kp_fs_create_new(path, true, used, sizeof used, &fd, &cerr) != KP_OK) {
		kpt_set_msg(app, "cannot write: %s", cerr.msg);
		return;
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		kpt_set_msg(app, "cannot write %s: %s", used, strerror(errno));
		close(fd);
		return;
	}
	kp_symbols_opts o;
	kp_symbols *sym = NULL;
	kpt_options_symbols(&app->cfg, &o);
	if (kp_symbols_new(&o, &sym, NULL) != KP_OK)
		sym = NULL;
	if (sym)
		kp_symbols_set_report(sym, d->r);
	bool cancelled = write_waiting(app, d->r, sym, f, md);
	kp_symbols_free(&sym);
	bool bad = ferror(f) != 0;
	long n = ftell(f);
	if (cancelled) {
		fclose(f);
		unlink(used);
		kpt_set_msg(app, "%s cancelled: %s not written", md ? "B" : "w", used);
	} else if (fclose(f) != 0 || bad)
		kpt_set_msg(app, "cannot write %s: %s", used, strerror(errno));
	else if (strcmp(used, path) != 0)
		kpt_set_msg(app, "%s exists: wrote the %s (%ld bytes) to %s instead", path, md ? "bug report" : "report",
		            n, used);
	else if (md)
		kpt_set_msg(app, "wrote the bug report to %s (%ld bytes of Markdown, as export --markdown writes it)", used,
		            n);
	else
		kpt_set_msg(app, "wrote the report (%ld bytes, as kpbrowse show prints it) to %s", n, used);
}

void kpt_write_report(kpt_app *app, const kpt_doc *d, const char *path)
{
	write_file(app, d, path, NULL);
}

void kpt_write_bug_default_path(const kpt_doc *d, char *out, size_t size)
{
	if (d->id >= 0)
		snprintf(out, size, "kpbrowse-bug-%" PRId64 ".md", d->id);
	else
		snprintf(out, size, "kpbrowse-bug.md");
}

/* path's folder is the report's own (a bug report is never written among
 * the reports it would be indexed with). */
static bool in_report_folder(const char *path, const char *report)
{
	char a[PATH_MAX], b[PATH_MAX], ra[PATH_MAX], rb[PATH_MAX];
	if (!report)
		return false;
	snprintf(a, sizeof a, "%s", path);
	snprintf(b, sizeof b, "%s", report);
	return realpath(dirname(a), ra) && realpath(dirname(b), rb) && strcmp(ra, rb) == 0;
}

void kpt_write_bug_report(kpt_app *app, const kpt_doc *d, const char *path)
{
	if (d->r && in_report_folder(path, d->r->path)) {
		kpt_set_msg(app, "B: %s is in the report's own folder: write the bug report elsewhere", path);
		return;
	}
	/* its group from the catalog: count, dates, the builds of its reports */
	const kpt_catalog *c = &app->cat;
	kp_md_context md = {.id = d->id > 0 ? d->id : 0};
	for (size_t i = 0; i < c->n && d->id > 0; i++)
		if (c->e[i].id == d->id)
			md.group_id = c->e[i].group_id;
	const char **builds = kpt_xcalloc(c->n ? c->n : 1, sizeof *builds);
	for (size_t i = 0; md.group_id && i < c->n; i++) {
		if (c->e[i].group_id != md.group_id)
			continue;
		md.count++;
		bool seen = !c->e[i].os;
		for (size_t k = 0; k < md.nbuilds && !seen; k++)
			seen = strcmp(builds[k], c->e[i].os) == 0;
		if (!seen)
			builds[md.nbuilds++] = c->e[i].os;
	}
	for (size_t i = 0; md.group_id && i < c->ng; i++)
		if (c->g[i].id == md.group_id) {
			md.first_seen = c->g[i].first_seen;
			md.last_seen = c->g[i].last_seen;
		}
	md.builds = builds;
	write_file(app, d, path, &md);
	free(builds);
}
