/* options.c: the TUI's command line (kpt_options.h): the flags, --demo's
 * bundled reports and dSYMs, the default report folders and database, and
 * the one translation of these options into symbol options. */
#include "kp_exit.h"
#include "kpt_main.h"
#include "kpt_options.h"

#include "kpt_xalloc.h"

#include "kp_index.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __APPLE__
#include <mach-o/dyld.h>
#endif

const char kpt_synopsis[] = "[--demo] [--db PATH] [--dsym PATH]... [--kernelcache FILE|FOLDER]... [--signatures DIR]... [--source-map FROM=TO]... [--load BUNDLE_ID=0xADDR]... [PATH...]";
const char kpt_options_help[] =
	"  --demo              browse the bundled demo reports with their dSYMs\n"
	"  --db PATH           the index database (default: per-user data folder)\n"
	"  --dsym PATH         a dSYM, binary, folder or KDK to symbolicate with\n"
	"  --kernelcache PATH  a kernelcache or a folder of them, asked before the\n"
	"                      environment's and the config's\n"
	"  --signatures DIR    symbolicator signature files naming stripped kernelcaches'\n"
	"                      functions\n"
	"  --source-map F=T    show source files under F from T instead\n"
	"  --load ID=0xADDR    where kext ID was loaded (kextstat), for reports without it\n"
	"  PATH                report files or folders to index (default: the system's)\n";

static void tui_usage(FILE *fp)
{
	fprintf(fp, "Usage: kpbrowse %s\n%s", kpt_synopsis, kpt_options_help);
}

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The running binary's own path, links resolved, into exe (PATH_MAX):
 * what the system says, else argv0 when it names a path. */
static bool own_path(const char *argv0, char *exe)
{
#ifdef __APPLE__
	char buf[PATH_MAX];
	uint32_t n = sizeof buf;
	if (_NSGetExecutablePath(buf, &n) == 0 && realpath(buf, exe))
		return true;
#else
	if (realpath("/proc/self/exe", exe))
		return true;
#endif
	return strchr(argv0, '/') && realpath(argv0, exe);
}

/* The demo folder: reports/, bin/ and src/ of the fixtures, installed in
 * share/kpbrowse/demo of the binary's prefix (its folder's parent; the
 * build tree stages the same layout, so build/cli/kpbrowse finds
 * build/share/kpbrowse/demo).  *out is set to where it was looked for. */
static bool find_demo(const char *argv0, char *out, size_t size)
{
	char exe[PATH_MAX], p[PATH_MAX + 64];
	snprintf(out, size, "../share/kpbrowse/demo beside the kpbrowse binary");
	if (!own_path(argv0, exe))
		return false;
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(out, size, "%s/../share/kpbrowse/demo", exe);
	snprintf(p, sizeof p, "%s/reports", out);
	if (!is_dir(p) || !realpath(out, exe))
		return false;
	snprintf(out, size, "%s", exe);   /* one spelling, no ".." */
	return true;
}

/* The demo's database folder is a fixed name in a shared $TMPDIR, so it
 * must be ours alone: created 0700 here, or else already a directory (not
 * a symlink) that we own with no access for group or others.  Another
 * user's folder, or one that others can write, is refused with a message:
 * whoever owns it could plant symlinks where the demo writes. */
static bool demo_dir_ok(const char *dir)
{
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		fprintf(stderr, "kpbrowse: cannot create the demo folder %s: %s\n", dir, strerror(errno));
		return false;
	}
	struct stat st;
	const char *why = NULL;
	if (lstat(dir, &st) != 0)
		why = strerror(errno);
	else if (!S_ISDIR(st.st_mode))
		why = "it is not a directory (a symlink?)";
	else if (st.st_uid != getuid())
		why = "another user owns it";
	else if (st.st_mode & 077)
		why = "others may access it (it must be mode 0700)";
	if (why) {
		fprintf(stderr, "kpbrowse: refusing the demo folder %s: %s; remove it or pass --db PATH\n", dir, why);
		return false;
	}
	return true;
}

/* The dSYM of each --load kext, once, before any thread starts: its UUID
 * for either arch (a stackshot -i text is x86_64; arm64 for the rest). */
static void resolve_loads(kpt_config *c)
{
	if (!c->nloads)
		return;
	kp_symbols_opts o;
	kpt_options_symbols(c, &o);
	kp_symbols *s = NULL;
	if (kp_symbols_new(&o, &s, NULL) != KP_OK)
		return;
	static const char *const archs[2] = {"x86_64", "arm64"};
	for (size_t i = 0; i < c->nloads; i++)
		for (int a = 0; a < 2; a++)
			if (!kp_symbols_find_bundle(s, c->loads[i].bundle, archs[a], c->loads[i].uuid[a]))
				c->loads[i].uuid[a][0] = '\0';
	kp_symbols_free(&s);
}

bool kpt_options_apply_loads(const kpt_config *c, kp_report *r)
{
	for (size_t i = 0; i < c->nloads; i++) {
		const kpt_load *l = &c->loads[i];
		const char *u = r->arch == KP_ARCH_ARM64 ? l->uuid[1] : l->uuid[0];
		if (!u[0] && r->arch == KP_ARCH_UNKNOWN)
			u = l->uuid[1];
		if (!kp_report_set_load(r, l->bundle, l->addr, u[0] ? u : NULL))
			return false;
	}
	return true;
}

int kpt_options_parse(kpt_config *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{"demo", no_argument, NULL, 'D'},
		{"db", required_argument, NULL, 'b'},
		{"dsym", required_argument, NULL, 'd'},
		{"kernelcache", required_argument, NULL, 'k'},
		{"source-map", required_argument, NULL, 'm'},
		{"signatures", required_argument, NULL, 'S'},
		{"load", required_argument, NULL, 'L'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int ch;
	/* every argument is at most one entry of each array; the options add
	 * at most two (the demo's, or the default folders) */
	size_t cap = (size_t)argc + 2;
	c->dsyms = kpt_xcalloc(cap, sizeof *c->dsyms);
	c->kernelcaches = kpt_xcalloc(cap, sizeof *c->kernelcaches);
	c->sigs = kpt_xcalloc(cap, sizeof *c->sigs);
	c->map_from = kpt_xcalloc(cap, sizeof *c->map_from);
	c->map_to = kpt_xcalloc(cap, sizeof *c->map_to);
	c->paths = kpt_xcalloc(cap, sizeof *c->paths);
	c->loads = kpt_xcalloc(cap, sizeof *c->loads);
	optind = 1;
	opterr = 0;   /* its messages name the binary's path: ours say kpbrowse */
	while ((ch = getopt_long(argc, argv, "+:hd:", opts, NULL)) != -1) {
		switch (ch) {
		case 'D': c->demo = true; break;
		case 'b': snprintf(c->db_path, sizeof c->db_path, "%s", optarg); break;
		case 'd': c->dsyms[c->ndsyms++] = optarg; break;
		case 'k': c->kernelcaches[c->nkernelcaches++] = optarg; break;
		case 'S': c->sigs[c->nsigs++] = optarg; break;
		case 'm': {
			char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg) {
				fprintf(stderr, "kpbrowse: --source-map wants FROM=TO, got '%s'\nTry 'kpbrowse --help'.\n", optarg);
				return KP_EXIT_BAD;
			}
			*eq = '\0';
			c->map_from[c->nmaps] = optarg;
			c->map_to[c->nmaps++] = eq + 1;
			break;
		}
		case 'L': {
			kpt_load *l = &c->loads[c->nloads];
			if (!kp_symbols_parse_load(optarg, l->bundle, sizeof l->bundle, &l->addr)) {
				fprintf(stderr, "kpbrowse: --load wants BUNDLE_ID=0xADDR (as kextstat prints them), got '%s'\n"
				                "Try 'kpbrowse --help'.\n", optarg);
				return KP_EXIT_BAD;
			}
			c->nloads++;
			break;
		}
		case 'h': tui_usage(stdout); return -1;
		case ':':
			kp_usage_error("option '%s' needs a value", argv[optind - 1]);
			return KP_EXIT_BAD;
		default:
			kp_usage_error("unrecognized option '%s'", argv[optind - 1]);
			return KP_EXIT_BAD;
		}
	}
	for (int i = optind; i < argc; i++)
		c->paths[c->npaths++] = argv[i];

	if (c->demo) {
		char *root = c->demo_root;
		if (!find_demo(argv[0], root, sizeof c->demo_root)) {
			fprintf(stderr, "kpbrowse: the demo reports are not installed (looked in %s)\n", root);
			return KP_EXIT_BAD;
		}
		snprintf(c->demo_reports, sizeof c->demo_reports, "%s/reports", root);
		snprintf(c->demo_bin, sizeof c->demo_bin, "%s/bin", root);
		c->paths[c->npaths++] = c->demo_reports;
		c->dsyms[c->ndsyms++] = c->demo_bin;
		c->map_from[c->nmaps] = "/kpbrowse/fixtures";
		c->map_to[c->nmaps++] = root;
		c->no_system = true;
		if (!c->db_path[0]) {
			const char *tmp = getenv("TMPDIR");
			if (!tmp || !*tmp)
				tmp = "/tmp";
			char dir[PATH_MAX];
			snprintf(dir, sizeof dir, "%s/kpbrowse-demo-%ld", tmp, (long)getuid());
			if (!demo_dir_ok(dir))
				return KP_EXIT_BAD;
			snprintf(c->db_path, sizeof c->db_path, "%s/index.sqlite3", dir);
		}
	} else if (c->npaths == 0) {
		const char *home = getenv("HOME");
		size_t k = 0;
		snprintf(c->default_dirs[k++], PATH_MAX, "/Library/Logs/DiagnosticReports");
		if (home && *home)
			snprintf(c->default_dirs[k++], PATH_MAX, "%s/Library/Logs/DiagnosticReports", home);
		bool any = false;
		for (size_t i = 0; i < k; i++) {
			c->paths[c->npaths++] = c->default_dirs[i];
			any |= is_dir(c->default_dirs[i]);
		}
		c->default_paths = true;
		c->no_reports_folder = !any;
	}
	if (!c->db_path[0]) {
		kp_error err;
		if (kpi_default_path(NULL, c->db_path, sizeof c->db_path, &err) != KP_OK) {
			fprintf(stderr, "kpbrowse: %s\n", err.msg);
			return KP_EXIT_BAD;
		}
	}
	resolve_loads(c);
	return 0;
}

void kpt_options_free(kpt_config *c)
{
	free(c->dsyms);
	free(c->kernelcaches);
	free(c->sigs);
	c->sigs = NULL;
	c->nsigs = 0;
	free(c->map_from);
	free(c->map_to);
	free(c->paths);
	free(c->loads);
	c->loads = NULL;
	c->nloads = 0;
	c->dsyms = c->kernelcaches = c->map_from = c->map_to = c->paths = NULL;
	c->ndsyms = c->nkernelcaches = c->nmaps = c->npaths = 0;
}

void kpt_options_symbols(const kpt_config *c, kp_symbols_opts *o)
{
	memset(o, 0, sizeof *o);
	o->paths = c->dsyms;
	o->npaths = c->ndsyms;
	o->kernelcaches = c->kernelcaches;
	o->nkernelcaches = c->nkernelcaches;
	o->signatures = c->sigs;
	o->nsignatures = c->nsigs;
	o->no_env = c->demo;
	o->no_system = c->no_system;
	o->cache_dir = c->demo ? "" : NULL;
}

void kpt_options_map_source(const kpt_config *c, const char *in, char *out, size_t size)
{
	for (size_t i = 0; i < c->nmaps; i++) {
		size_t n = strlen(c->map_from[i]);
		while (n > 1 && c->map_from[i][n - 1] == '/')
			n--;
		if (strncmp(in, c->map_from[i], n) == 0 && (in[n] == '/' || in[n] == '\0')) {
			snprintf(out, size, "%s%s", c->map_to[i], in + n);
			return;
		}
	}
	snprintf(out, size, "%s", in);
}
