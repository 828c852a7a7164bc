/* symconfig.h: private to core/symsrc/: kpbrowse's config file and the
 * DebugSymbols defaults, read as KEY = VALUE pairs handed to a callback in
 * file order; what each key means is the symbol-source table's (symsrc.c).
 *
 * The config file: KPBROWSE_CONFIG, else $XDG_CONFIG_HOME/kpbrowse/config,
 * else ~/.config/kpbrowse/config: lines "KEY = VALUE" ('#' starts a
 * comment); the keys are DebugSymbols' (DBGSearchPaths, DBGFileMappedPaths,
 * DBGShellCommands, DBGSpotlightPaths), each line one value, a key
 * repeated for more; kpbrowse's Kernelcache = FILE or FOLDER and
 * Signatures = DIR; and kpbrowse's own SymbolServer = URL, followed by the
 * lines that apply to the SymbolServer above them: SymbolServerLayout =
 * native | unified | symstore, SymbolServerToken = TOKEN or
 * SymbolServerTokenEnv = VARIABLE (the token read from the environment).
 * On macOS the defaults of com.apple.DebugSymbols (~/Library/Preferences,
 * a string or an array of strings a key) come after it.
 *
 * Ownership: key and val are borrowed for the call only; an empty val is
 * handed on as it is.  A file that cannot be read is no file. */
#ifndef KP_SYMCONFIG_H
#define KP_SYMCONFIG_H

typedef void (*kp__config_fn)(void *ctx, const char *key, const char *val);

/* Each "KEY = VALUE" line of the config file, blanks trimmed, to fn. */
void kp__config_read(kp__config_fn fn, void *ctx);

#ifdef __APPLE__
/* Each string of the DebugSymbols defaults' DBG* keys, to fn. */
void kp__config_read_defaults(kp__config_fn fn, void *ctx);
#endif

#endif
