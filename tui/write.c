/* write.c: `w` writes the report (kpt_write.h). */
#include "kpt_app.h"
#include "kpt_options.h"
#include "kpt_prompt.h"
#include "kp_report_text.h"
#include "kpt_write.h"

#include <errno.h>
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
	FILE *f = fopen(path, "w");
	if (!f) {
		kpt_set_msg(app, "cannot write %s: %s", path, strerror(errno));
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
		kpt_set_msg(app, "cannot write %s: %s", path, strerror(errno));
	else
		kpt_set_msg(app, "wrote the report (%ld bytes, as kpbrowse show prints it) to %s", n, path);
}
