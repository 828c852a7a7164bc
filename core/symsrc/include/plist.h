/* plist.h: kpsymsrc's public header: the property lists the symbol sources
 * read, XML or binary, through libplist (plist.c is the only file that
 * includes its header): a dsymForUUID program's answer and the
 * com.apple.DebugSymbols defaults.  Both come from outside kpbrowse and
 * are untrusted: sizes are bounded, strings holding a NUL or longer than
 * KP_PLIST_STR_MAX are refused, and nothing here prints.
 *
 * Ownership: a kp__dsym_answer owns its strings (malloc'd) until
 * kp__dsym_answer_free, which leaves it empty; strings handed to a
 * kp__plist_strings callback are borrowed for the call. */
#ifndef KP_PLIST_H
#define KP_PLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kp_error.h"

#define KP_PLIST_MAX (4u << 20)     /* a larger plist is KP_ERR_LIMIT */
#define KP_PLIST_STR_MAX 4096       /* a path, an error message */
#define KP_PLIST_REMAP_MAX 64       /* DBGSourcePathRemapping pairs kept */
/* Checked (without recursion) before libplist, which recurses and copies a
 * binary plist's shared objects once per reference, sees the bytes: deeper
 * nesting or more elements (binary: counted per reference) is KP_ERR_LIMIT. */
#define KP_PLIST_DEPTH_MAX 128
#define KP_PLIST_NODES_MAX (1u << 20)

typedef struct kp__remap {
	char *from, *to;   /* build-time prefix, where the sources are now */
} kp__remap;

/* What dsymForUUID said of one UUID (lldb's keys); NULL: not said. */
typedef struct kp__dsym_answer {
	char *dsym_path;           /* DBGDSYMPath: the DWARF file or the .dSYM */
	char *exec;                /* DBGSymbolRichExecutable */
	char *arch;                /* DBGArchitecture */
	char *error;               /* DBGError */
	char *source_path;         /* DBGSourcePath */
	char *build_source_path;   /* DBGBuildSourcePath */
	long version;              /* DBGVersion (a string or an integer); 0: absent */
	kp__remap *remaps;         /* DBGSourcePathRemapping, kept only when */
	size_t nremaps;            /* DBGVersion >= 3, as lldb trusts it as-is */
} kp__dsym_answer;

/* Reads the entry for uuid (canonical; keys are compared in any case,
 * dashes optional) of the top-level dictionary in buf[0..len), an XML
 * plist: a binary one, or one that could put a NUL in a key, is
 * KP_ERR_FORMAT (libplist 2.2 aborts on such a key; plist.c).
 * KP_ERR_FORMAT when buf is no plist or its top level no dictionary,
 * KP_ERR_NOTFOUND when it has no entry for uuid (or the entry is no
 * dictionary), KP_ERR_LIMIT past KP_PLIST_MAX.  A value of a wrong type or
 * a refused string is left NULL, as if not said. */
kp_status kp__dsym_answer_parse(const void *buf, size_t len, const char *uuid,
                                kp__dsym_answer *out, kp_error *err);
void kp__dsym_answer_free(kp__dsym_answer *a);

/* Calls fn with the value of top-level key in buf[0..len) when it is a
 * string, or with each string of it when it is an array (DebugSymbols
 * defaults take either); nothing when absent.  Errors and refused strings
 * as above. */
kp_status kp__plist_strings(const void *buf, size_t len, const char *key,
                            void (*fn)(void *ctx, const char *s), void *ctx, kp_error *err);

#endif
