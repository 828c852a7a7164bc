/* kpt_options.h: the TUI's command line (options.c) and the one place its
 * options become symbol options, used by both the worker and the scanner
 * so that --demo means the same to both.  kpt_options_parse fills a zeroed
 * kpt_config; the config borrows argv's strings and owns its buffers and
 * arrays (kpt_options_free), and is read-only afterwards (the worker and
 * scanner threads read it). */
#ifndef KPT_OPTIONS_H
#define KPT_OPTIONS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "kp_symbols.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* --load BUNDLE_ID=0xADDR: a kext placed in reports that do not say where
 * kexts were loaded; uuid[0] / uuid[1] the x86_64 / arm64 UUID of the dSYM
 * found for the bundle id at start-up ("" when none). */
typedef struct kpt_load {
	char bundle[256];
	uint64_t addr;
	char uuid[2][37];
} kpt_load;

/* No limit on how many paths or maps are given: the arrays are sized from
 * argc by kpt_options_parse (freed by kpt_options_free). */
typedef struct kpt_config {
	bool demo;
	char db_path[1024];
	const char **dsyms;
	size_t ndsyms;
	const char **kernelcaches;         /* --kernelcache */
	size_t nkernelcaches;
	const char **sigs;                 /* --signatures DIR */
	size_t nsigs;
	const char **map_from, **map_to;
	size_t nmaps;
	const char **paths;                /* folders/files to index */
	size_t npaths;
	bool default_paths;                /* paths are the platform's defaults */
	bool no_reports_folder;            /* none of the default folders exists */
	bool no_system;                    /* demo: skip KDKs/Spotlight */
	/* storage for paths the options made up (demo, defaults) */
	char demo_root[PATH_MAX + 64], demo_reports[PATH_MAX + 64], demo_bin[PATH_MAX + 64];
	char default_dirs[2][PATH_MAX];
	kpt_load *loads;                   /* --load, resolved by kpt_options_parse */
	size_t nloads;
} kpt_config;

/* Parses argv (argv[0] the program name) into c.  Returns 0 to run, -1
 * when --help was printed, or KP_EXIT_BAD after printing the error. */
int kpt_options_parse(kpt_config *c, int argc, char **argv);
/* Frees the arrays kpt_options_parse allocated (the borrowed strings stay). */
void kpt_options_free(kpt_config *c);
/* The symbol options for c (paths borrowed from c): --demo uses only the
 * demo's dSYMs (no environment, no system search, no cache folder). */
void kpt_options_symbols(const kpt_config *c, kp_symbols_opts *o);
/* Places every --load kext in r (kp_report_set_load, with the UUID for
 * r's arch); false only when out of memory.  On the thread that owns r,
 * before anything else reads it. */
bool kpt_options_apply_loads(const kpt_config *c, kp_report *r);
/* A source path recorded in DWARF, rewritten by the first --source-map
 * FROM=TO whose FROM matches whole leading path components. */
void kpt_options_map_source(const kpt_config *c, const char *in, char *out, size_t size);

#endif
