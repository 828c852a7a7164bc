/* write.c: `w` writes the report (kpt_write.h). */
#include "kpt_app.h"
#include "kpt_options.h"
#include "kpt_prompt.h"
#include "kp_report_text.h"
#include "kpt_write.h"
#include "kp_fs.h"

#include <errno.h>
#include <unistd.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void kpt_write_default_path(const kpt_doc *d, char *out, size_t size)
{
	if (d->id >= 0)
		snprintf(out, size, "kpbrowse-report-%" PRId64 ".txt", d->id);
	else
		snprintf(out, size, "kpbrowse-report.txt");
}

void kpt_write_report(kpt_app *app, const kpt_doc *d, const char *path)
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
	kp_report_text(f, d->r, sym);
	kp_symbols_free(&sym);
	bool bad = ferror(f) != 0;
	long n = ftell(f);
	if (fclose(f) != 0 || bad)
		kpt_set_msg(app, "cannot write %s: %s", used, strerror(errno));
	else if (strcmp(used, path) != 0)
		kpt_set_msg(app, "%s exists: wrote the report (%ld bytes) to %s instead", path, n, used);
	else
		kpt_set_msg(app, "wrote the report (%ld bytes, as kpbrowse show prints it) to %s", n, used);
}
