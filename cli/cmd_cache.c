/* cmd_cache.c: `kpbrowse cache build PATH... | list | clear [UUID...]`: the
 * symbol cache (kp_symbols.h) built on demand, listed and removed.  Lookups
 * never wait for a cache: this is how one is made ahead of time. */
#include "kp_symbols.h"
#include "kpc_cmd.h"
#include "kp_sanitize.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void put(const char *s)
{
	kp_sanitize_write(stdout, s, strlen(s), 0);
}

struct tally {
	size_t ok, failed;
};

static void on_built(void *ctx, const kp_symcache_entry *e)
{
	struct tally *t = ctx;
	if (e->status != KP_OK) {
		t->failed++;
		fprintf(stderr, "kpbrowse: cache build: ");
		kp_sanitize_write(stderr, e->source, strlen(e->source), 0);
		fprintf(stderr, " (%s): ", e->uuid);
		kp_sanitize_write(stderr, e->msg ? e->msg : "failed", strlen(e->msg ? e->msg : "failed"), 0);
		fputc('\n', stderr);
		return;
	}
	t->ok++;
	printf("%s %-7s %12" PRIu64 " bytes %8.2f s  ", e->uuid, e->arch, e->size, e->seconds);
	put(e->source);
	putchar('\n');
	fflush(stdout);
}

/* One row of `cache list`: UUID, arch (or "kc"), size, when, state, path. */
static void list_row(void *ctx, const kp_symcache_entry *e, const char *arch, const char *state)
{
	struct tally *t = ctx;
	t->ok++;
	char when[32] = "-";
	time_t secs = (time_t)(e->built_ns / 1000000000);
	struct tm tm;
	if (e->built_ns && gmtime_r(&secs, &tm))
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	printf("%-36s %-7s %12" PRIu64 " %-20s %-7s ", e->uuid, arch, e->size, when, state);
	put(e->source[0] ? e->source : "-");
	putchar('\n');
}

static void on_listed(void *ctx, const kp_symcache_entry *e)
{
	list_row(ctx, e, e->arch[0] ? e->arch : "-",
	         e->status != KP_OK ? "damaged" : e->stale ? "stale" : "fresh");
}

/* a kernelcache kept for this Mac's panics */
static void on_kept(void *ctx, const kp_symcache_entry *e)
{
	list_row(ctx, e, "kc", "kept");
}

/* a symbol server's download */
static void on_downloaded(void *ctx, const kp_symcache_entry *e)
{
	list_row(ctx, e, "dl", "fetched");
}

int kpc_cmd_cache(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return KPC_HELP;
	if (argc < 2)
		return KPC_USAGE;
	const char *verb = argv[1];
	kp_error err;
	struct tally t = {0, 0};
	if (strcmp(verb, "build") == 0) {
		if (argc < 3)
			return KPC_USAGE;
		int rc = KP_EXIT_OK;
		for (int i = 2; i < argc; i++)
			if (kp_symcache_build_path(NULL, argv[i], on_built, &t, &err) != KP_OK) {
				kp_report_error(argv[i], &err);
				rc = KP_EXIT_BAD;
			}
		return t.failed ? KP_EXIT_BAD : rc;
	}
	if (strcmp(verb, "list") == 0) {
		if (argc != 2)
			return KPC_USAGE;
		if (kp_symcache_list(NULL, on_listed, &t, &err) != KP_OK) {
			kp_report_error("cache list", &err);
			return KP_EXIT_BAD;
		}
		kp_kernelcache_list(NULL, on_kept, &t, &err);
		uint64_t bytes = 0, cap = 0;
		if (kp_download_list(NULL, on_downloaded, &t, &bytes, &cap, &err) == KP_OK)
			printf("downloads: %.1f MiB of the %" PRIu64 " MiB cap (KPBROWSE_SYMBOL_SERVER_CACHE_MB)\n",
			       (double)bytes / 1048576.0, cap >> 20);
		return t.ok ? KP_EXIT_OK : KP_EXIT_NONE;
	}
	if (strcmp(verb, "clear") == 0) {
		size_t removed = 0;
		if (kp_symcache_clear(NULL, (const char *const *)argv + 2, (size_t)argc - 2, &removed,
		                      &err) != KP_OK) {
			kp_report_error("cache clear", &err);
			return KP_EXIT_BAD;
		}
		printf("removed %zu symbol cache file%s\n", removed, removed == 1 ? "" : "s");
		return removed || argc == 2 ? KP_EXIT_OK : KP_EXIT_NONE;
	}
	return KPC_USAGE;
}
