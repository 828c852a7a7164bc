/* kpt_keys.h: the one key table.  Each row is a request, the label and help
 * text shown by `?`, then the key codes bound to it (0-terminated by the
 * users of the list).  The request enum (kpt_request.h), the dispatcher's
 * key lookup (app.c) and the help screen are all generated from KPT_KEYS,
 * so they cannot drift.  The key codes (curses KEY_*) are expanded only by
 * app.c, the one file that includes <curses.h> for input: views include
 * kpt_request.h, which never expands them. */
#ifndef KPT_KEYS_H
#define KPT_KEYS_H

#define KPT_CTRL(c) ((c) & 0x1f)

#define KPT_KEYS(X) \
	X(UP,        "k Up",            "move up",                                 'k', KEY_UP) \
	X(DOWN,      "j Down",          "move down",                               'j', KEY_DOWN) \
	X(PGUP,      "PgUp",            "page up",                                 KEY_PPAGE) \
	X(PGDN,      "PgDn Space",      "page down",                               KEY_NPAGE, ' ') \
	X(HALFUP,    "Ctrl-u",          "half a page up",                          KPT_CTRL('u')) \
	X(HALFDN,    "Ctrl-d",          "half a page down",                        KPT_CTRL('d')) \
	X(HOME,      "g Home",          "first row",                               'g', KEY_HOME) \
	X(END,       "G End",           "last row",                                'G', KEY_END) \
	X(ENTER,     "Enter l",         "open the selected row",                   '\n', '\r', KEY_ENTER, 'l') \
	X(BACK,      "Esc h Bksp",      "go back",                                 27, 'h', KEY_BACKSPACE, 127, 8) \
	X(RIGHT,     "Right",           "scroll long lines right (source); elsewhere open", KEY_RIGHT) \
	X(LEFT,      "Left",            "scroll back left (source); elsewhere go back", KEY_LEFT) \
	X(TAB,       "Tab",             "panics: flat/groups; report: summary/images", '\t') \
	X(FILTER,    "/",               "filter rows as you type (Enter keeps, Esc clears)", '/') \
	X(NEXT,      "n",               "next match",                              'n') \
	X(PREV,      "N",               "previous match",                          'N') \
	X(UUID,      "u",               "every panic with a kext/kernel UUID or a kext bundle id", 'u') \
	X(KEXT,      "K",               "every panic whose backtrace or loaded kexts name a bundle id (or its last part)", 'K') \
	X(MARK,      "m",               "mark a report for c (two at most; m again unmarks)", 'm') \
	X(COMPARE,   "c",               "compare two panics: the two marked, or a group's first and last", 'c') \
	X(OWNER,     "o",               "open the thread the selected one waits for (Esc comes back)", 'o') \
	X(SCOPE,     "a",               "panics: only the reports under the PATHs given, or the whole index (kpbrowse PATH...)", 'a') \
	X(KIND,      "f",               "panics: all kinds, or one: panic, watchdog, stackshot, reset, hang, stall, sleep-wake (cycles)", 'f') \
	X(CLASS,     "t",               "panics: all cause classes, or one: hardware, firmware, heap-corruption, ... other (cycles)", 't') \
	X(SORT,      "s",               "report: processes by most running, waiting or blocked threads; process: threads by state, priority or name (cycles); groups: by recent growth, the last 7 days against the 7 before (toggles)", 's') \
	X(COPY,      "y",               "copy the selected frame, UUID or line to the clipboard (OSC 52)", 'y') \
	X(COPYALL,   "Y",               "copy the whole symbolicated backtrace",   'Y') \
	X(EDIT,      "e",               "open the frame's source in $VISUAL/$EDITOR (vi) at its line", 'e') \
	X(DISASM,    "d",               "disassemble around the selected frame (Capstone); d again closes", 'd') \
	X(WRITE,     "w",               "write the report to a file as kpbrowse show prints it", 'w') \
	X(BUGREPORT, "B",               "report or group: write a Markdown bug report (as export --markdown) to a file", 'B') \
	X(RESCAN,    "r",               "rescan the report folders now (they are also watched live)", 'r') \
	X(HELP,      "?",               "this help",                               '?', KEY_F(1)) \
	X(REDRAW,    "Ctrl-L",          "redraw the whole screen",                 KPT_CTRL('l')) \
	X(CLOSE,     "q",               "close this view (on the panic list: quit)", 'q') \
	X(QUIT,      "Q",               "quit",                                    'Q')

#endif
