/* kpt_request.h: what a key asks for (the request enum, generated from the
 * key table without expanding its curses key codes) and the flags a
 * request handler returns to the event loop. */
#ifndef KPT_REQUEST_H
#define KPT_REQUEST_H

#include "kpt_keys.h"

typedef enum kpt_request {
	KPT_REQ_NONE = 0,
#define KPT_REQ_ENUM(name, label, help, ...) KPT_REQ_##name,
	KPT_KEYS(KPT_REQ_ENUM)
#undef KPT_REQ_ENUM
	KPT_REQ_COUNT
} kpt_request;

/* flags returned by request handlers */
enum {
	KPT_HANDLED = 1u << 0,
	KPT_REDRAW = 1u << 1,
	KPT_POP = 1u << 2,
	KPT_PUSH = 1u << 3,   /* push app->push_ops with app->push_arg (see kpt_push_later) */
	KPT_QUIT = 1u << 4,
	KPT_MORE = 1u << 5,   /* idle op: work remains, call again soon */
};

#endif
