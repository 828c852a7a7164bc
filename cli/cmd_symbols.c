/* cmd_symbols.c: `kpbrowse symbols where UUID`: every symbol source asked
 * for a UUID, in the one order (kp_symbols_where), what each tried and
 * said, and where the answer came from.  Everything printed may come from
 * folders, config files or a lab's dsymForUUID program: all of it goes out
 * through kp_sanitize_write. */
#include "kp_sanitize.h"
#include "kp_symbols.h"
#include "kpc_cmd.h"
#include "kpc_common.h"

#include <getopt.h>
#include <string.h>

static void put(const char *s)
{
	kp_sanitize_write(stdout, s, strlen(s), 0);
}

/* "  label: value\n", value sanitised; nothing when value is NULL. */
static void field(const char *label, const char *value)
{
	if (!value)
		return;
	printf("  %s: ", label);
	put(value);
	putchar('\n');
}

static void print_where(const char *uuid, const kp_symwhere *w)
{
	printf("UUID %s\n", uuid);
	for (size_t i = 0; i < w->nsteps; i++) {
		const kp_symwhere_step *st = &w->steps[i];
		printf("%zu. ", i + 1);
		put(st->source);
		putchar('\n');
		if (st->tried[0])
			field("tried", st->tried);
		field("said", st->said);
	}
	if (!w->path) {
		printf("not found: no source holds %s\n", uuid);
		return;
	}
	fputs("found: ", stdout);
	put(w->path);
	putchar('\n');
	field("from", w->source);
	printf("  kind: %s, %s\n", w->is_dsym ? "dSYM" : "binary (symbol table only)",
	       w->arch ? w->arch : "?");
	field("executable", w->exec);
	field("DBGBuildSourcePath", w->build_source_path);
	field("DBGSourcePath", w->source_path);
	for (size_t i = 0; i < w->nremap; i++) {
		fputs("  remap: ", stdout);
		put(w->remap[2 * i]);
		fputs(" -> ", stdout);
		put(w->remap[2 * i + 1]);
		putchar('\n');
	}
}

int kpc_cmd_symbols(int argc, char **argv)
{
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
		return KPC_HELP;
	if (argc < 2 || strcmp(argv[1], "where") != 0)
		return KPC_USAGE;
	argc--, argv++;
	const char *paths[KPC_MAX_DSYM], *kcs[KPC_MAX_DSYM], *sigs[KPC_MAX_DSYM];
	size_t npaths, nkcs, nsigs;
	int rc = kpc_source_options("symbols where", argc, argv, false, paths, &npaths, kcs, &nkcs,
	                            sigs, &nsigs);
	if (rc != KP_EXIT_OK)
		return rc;
	if (optind != argc - 1)
		return KPC_USAGE;
	const char *uuid = argv[optind];
	char canon[37];
	if (!kp_uuid_canon(uuid, strlen(uuid), canon)) {
		kp_usage_error("symbols where: '%s' is not a UUID", uuid);
		return KP_EXIT_BAD;
	}
	kp_symbols_opts so = {.paths = paths, .npaths = npaths, .kernelcaches = kcs,
	                      .nkernelcaches = nkcs, .signatures = sigs, .nsignatures = nsigs};
	kp_symbols *sym = NULL;
	kp_error err;
	if (kp_symbols_new(&so, &sym, &err) != KP_OK) {
		kp_report_error("symbols", &err);
		return KP_EXIT_BAD;
	}
	kp_symwhere w;
	kp_status st = kp_symbols_where(sym, canon, &w, &err);
	if (st == KP_OK || st == KP_ERR_NOTFOUND) {
		print_where(canon, &w);
		rc = st == KP_OK ? KP_EXIT_OK : KP_EXIT_NONE;
	} else {
		kp_report_error("symbols", &err);
		rc = KP_EXIT_BAD;
	}
	kp_symbols_free(&sym);
	return rc;
}
