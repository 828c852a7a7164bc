/* prompt.c: the message line and the one-line prompt of kpt_prompt.h,
 * on the app. */
#include "kpt_app.h"
#include "kpt_draw.h"
#include "kpt_keys.h"

#include <curses.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

void kpt_set_msg(kpt_app *app, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(app->msg, sizeof app->msg, fmt, ap);
	va_end(ap);
}

void kpt_prompt_start(kpt_app *app, kpt_view *v, const char *label, const char *initial,
                      kpt_prompt_fn fn)
{
	kpt_prompt *p = &app->prompt;
	p->active = true;
	p->view = v;
	p->fn = fn;
	snprintf(p->label, sizeof p->label, "%s", label);
	snprintf(p->text, sizeof p->text, "%s", initial ? initial : "");
}

void kpt_prompt_forget(kpt_prompt *p, const kpt_view *v)
{
	if (p->active && p->view == v)
		p->active = false;
}

void kpt_prompt_draw(const kpt_prompt *p, int y, int cols)
{
	int used = kpt_put(y, 0, cols, p->label, KPT_ST_STATUS, false);
	used += kpt_put(y, used, cols - used - 1, p->text, KPT_ST_NORMAL, false);
	kpt_put(y, used, cols - used, "", KPT_ST_NORMAL, true);
	move(y, used);
	curs_set(1);
}

unsigned kpt_prompt_key(kpt_app *app, int ret, unsigned ch)
{
	kpt_prompt *p = &app->prompt;
	size_t n = strlen(p->text);
	kpt_prompt_fn fn = p->fn;
	kpt_view *v = p->view;
	if (ret == KEY_CODE_YES) {
		if (ch == KEY_BACKSPACE)
			goto backspace;
		if (ch == KEY_ENTER)
			goto enter;
		return KPT_REDRAW;
	}
	if (ch == 27) {
		p->active = false;
		return fn(app, v, NULL, true) | KPT_REDRAW;
	}
	if (ch == '\n' || ch == '\r') {
enter:
		p->active = false;
		return fn(app, v, p->text, true) | KPT_REDRAW;
	}
	if (ch == 127 || ch == 8) {
backspace:
		while (n > 0 && ((unsigned char)p->text[n - 1] & 0xC0) == 0x80)
			n--;
		if (n > 0)
			n--;
		p->text[n] = '\0';
	} else if (ch == KPT_CTRL('u')) {
		p->text[0] = '\0';
	} else if (ch >= 32 && ch != 127) {
		char mb[MB_LEN_MAX];
		mbstate_t ps;
		memset(&ps, 0, sizeof ps);
		size_t k = wcrtomb(mb, (wchar_t)ch, &ps);
		if (k == (size_t)-1 || n + k + 1 > sizeof p->text)
			return KPT_REDRAW;
		memcpy(p->text + n, mb, k);
		p->text[n + k] = '\0';
	} else {
		return KPT_REDRAW;
	}
	return fn(app, v, p->text, false) | KPT_REDRAW;
}

