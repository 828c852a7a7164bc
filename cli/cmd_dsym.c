/* cmd_dsym.c: `kpbrowse dsym-for-uuid UUID...`: kpbrowse as a lab's
 * dsymForUUID, so lldb, atos and Xcode (DBGShellCommands,
 * LLDB_APPLE_DSYMFORUUID_EXECUTABLE) find the dSYMs kpbrowse finds through
 * every symbol source.  It prints the XML plist lldb reads
 * (SymbolLocatorDebugSymbols): a top-level dictionary keyed by each UUID
 * (upper case, dashes), each entry DBGArchitecture, DBGDSYMPath (a dSYM's
 * DWARF file), DBGSymbolRichExecutable (the binary), the source paths a
 * dsymForUUID program said, or DBGError.  lldb runs it as
 * `EXE --ignoreNegativeCache [--copyExecutable] UUID` and reads the plist
 * only after exit status 0, so it exits 0 whenever the plist is written,
 * found or not (DBGError says which were not).
 *
 * Paths are untrusted (folders, config, a dsymForUUID program): every
 * string is XML-escaped, and one XML 1.0 cannot carry (a control
 * character, invalid UTF-8) turns its entry into a DBGError. */
#include "kp_sanitize.h"
#include "kp_symbols.h"
#include "kp_utf8.h"
#include "kpc_cmd.h"
#include "kpc_common.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Set in the environment while this command runs: a dsymForUUID program it
 * runs that is itself kpbrowse dsym-for-uuid (a lab's wrapper) runs none,
 * so the two cannot call each other forever. */
#define NESTED_ENV "KPBROWSE_IN_DSYM_FOR_UUID"

/* Whether XML 1.0 can carry s: valid UTF-8 without C0 controls or the
 * non-characters U+FFFE and U+FFFF. */
static bool xml_ok(const char *s)
{
	size_t len = strlen(s);
	if (!kp_utf8_valid(s, len))
		return false;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		i += kp_utf8_decode((const unsigned char *)s + i, len - i, &cp);
		if (cp < 0x20 || cp == 0xfffe || cp == 0xffff)
			return false;
	}
	return true;
}

static void xml_put(const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", stdout); break;
		case '<': fputs("&lt;", stdout); break;
		case '>': fputs("&gt;", stdout); break;
		case '"': fputs("&quot;", stdout); break;
		case '\'': fputs("&apos;", stdout); break;
		default: putchar(*s);
		}
	}
}

/* path made absolute against the working folder (lldb may not share it);
 * links are kept as they are.  buf holds the result when one is needed. */
static const char *absolute(const char *path, char *buf, size_t size)
{
	char cwd[4096];
	if (!path || path[0] == '/' || !getcwd(cwd, sizeof cwd))
		return path;
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	snprintf(buf, size, "%s/%s", cwd, path);
	return buf;
}

static void kv(const char *indent, const char *key, const char *value)
{
	printf("%s<key>", indent);
	xml_put(key);
	printf("</key>\n%s<string>", indent);
	xml_put(value);
	fputs("</string>\n", stdout);
}

/* One UUID's entry.  With w NULL (or w->path NULL): a DBGError. */
static void entry(const char *uuid, const kp_symwhere *w, const char *why)
{
	static const char in[] = "\t\t";
	char pbuf[8300], ebuf[8300];
	const char *path = absolute(w ? w->path : NULL, pbuf, sizeof pbuf);
	const char *wexec = absolute(w ? w->exec : NULL, ebuf, sizeof ebuf);
	const char *strs[] = {path, wexec, w ? w->source_path : NULL, w ? w->build_source_path : NULL};
	bool ok = w && w->path;
	for (size_t i = 0; ok && i < sizeof strs / sizeof *strs; i++)
		ok = !strs[i] || xml_ok(strs[i]);
	for (size_t i = 0; ok && w && i < 2 * w->nremap; i++)
		ok = xml_ok(w->remap[i]);
	printf("\t<key>%s</key>\n\t<dict>\n", uuid);
	if (!ok) {
		char msg[500];
		snprintf(msg, sizeof msg, "kpbrowse: %s", w && w->path ? "the file's path cannot be written in XML" : why);
		kv(in, "DBGError", msg);
		fputs("\t</dict>\n", stdout);
		return;
	}
	if (w->arch)
		kv(in, "DBGArchitecture", w->arch);
	if (w->is_dsym)
		kv(in, "DBGDSYMPath", path);
	const char *exec = w->is_dsym ? wexec : path;
	if (exec)
		kv(in, "DBGSymbolRichExecutable", exec);
	if (w->build_source_path && w->source_path) {
		kv(in, "DBGBuildSourcePath", w->build_source_path);
		kv(in, "DBGSourcePath", w->source_path);
	}
	if (w->nremap) {
		printf("%s<key>DBGSourcePathRemapping</key>\n%s<dict>\n", in, in);
		for (size_t i = 0; i < w->nremap; i++)
			kv("\t\t\t", w->remap[2 * i], w->remap[2 * i + 1]);
		printf("%s</dict>\n", in);
		kv(in, "DBGVersion", "3");
	}
	fputs("\t</dict>\n", stdout);
}

/* A UUID no source holds that a dsymForUUID program answered with a
 * DBGError (a lab's store: "not archived", "build purged"): its text, made
 * inert, for lldb to show instead of ours.  false when none said one. */
static bool lab_error(const kp_symwhere *w, kp_status st, char *out, size_t size)
{
	static const char tag[] = "DBGError: ";
	for (size_t k = 0; st == KP_ERR_NOTFOUND && k < w->nsteps; k++) {
		const char *e = strcmp(w->steps[k].source, "dsymForUUID") == 0 ? strstr(w->steps[k].said, tag) : NULL;
		if (!e)
			continue;
		e += sizeof tag - 1;
		size_t n = strcspn(e, ";");   /* the next program's answer follows "; " */
		char raw[400];
		snprintf(raw, sizeof raw, "dsymForUUID: %.*s", (int)(n < 300 ? n : 300), e);
		kp_sanitize(out, size, raw, strlen(raw), 0);
		return true;
	}
	return false;
}

int kpc_cmd_dsym_for_uuid(int argc, char **argv)
{
	const char *paths[KPC_MAX_DSYM], *kcs[KPC_MAX_DSYM];
	size_t npaths, nkcs;
	int rc = kpc_source_options("dsym-for-uuid", argc, argv, true, paths, &npaths, kcs, &nkcs,
	                            NULL, NULL);
	if (rc != KP_EXIT_OK)
		return rc;
	if (optind >= argc)
		return KPC_USAGE;
	char (*uuids)[37] = calloc((size_t)(argc - optind), sizeof *uuids);
	if (!uuids)
		return KP_EXIT_BAD;
	for (int i = optind; i < argc; i++)
		if (!kp_uuid_canon(argv[i], strlen(argv[i]), uuids[i - optind])) {
			kp_usage_error("dsym-for-uuid: '%s' is not a UUID", argv[i]);
			free(uuids);
			return KP_EXIT_BAD;
		}
	kp_symbols_opts so = {.paths = paths, .npaths = npaths, .kernelcaches = kcs,
	                      .nkernelcaches = nkcs, .no_shell = getenv(NESTED_ENV) != NULL};
	setenv(NESTED_ENV, "1", 1);
	kp_symbols *sym = NULL;
	kp_error err;
	if (kp_symbols_new(&so, &sym, &err) != KP_OK) {
		kp_report_error("dsym-for-uuid", &err);
		free(uuids);
		return KP_EXIT_BAD;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	      "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" "
	      "\"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n"
	      "<plist version=\"1.0\">\n<dict>\n",
	      stdout);
	for (int i = 0; i < argc - optind; i++) {
		bool dup = false;
		for (int j = 0; j < i && !dup; j++)
			dup = strcmp(uuids[i], uuids[j]) == 0;
		if (dup)
			continue;   /* a dictionary holds a key once */
		kp_symwhere w;
		kp_status st = kp_symbols_where(sym, uuids[i], &w, &err);
		char why[400];
		if (!lab_error(&w, st, why, sizeof why))
			snprintf(why, sizeof why, "no symbol source holds %s", uuids[i]);
		entry(uuids[i], st == KP_OK ? &w : NULL, st == KP_ERR_NOTFOUND ? why : "out of memory");
	}
	fputs("</dict>\n</plist>\n", stdout);
	kp_symbols_free(&sym);
	free(uuids);
	return KP_EXIT_OK;
}
