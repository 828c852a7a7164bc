/* watch.c: live report folders (kpt_watch.h).  One thread per app: it
 * waits up to a second for a native event (inotify or kqueue, when the
 * platform has one) and, every time round, compares each folder's mtime
 * (the portable fallback, and a backstop when the native watch misses
 * something, e.g. a folder created later); a change writes a byte to the
 * pipe the loop polls.  The UI side asks the scanner for a rescan, which
 * reloads the catalog (new reports come marked new, the cursor stays on
 * its report: view_panics keeps it by id). */
#include "kp_fs.h"
#include "kpt_app.h"
#include "kpt_term.h"
#include "kpt_pipe.h"
#include "kpt_scanner.h"
#include "kpt_watch.h"
#include "kpt_xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/inotify.h>
#define KPT_WATCH_INOTIFY 1
#elif defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__) || defined(__NetBSD__)
#include <sys/event.h>
#define KPT_WATCH_KQUEUE 1
#endif

#define MAX_DIRS 64

struct kpt_watch {
	pthread_t thread;
	int pipe[2];
	int stop_pipe[2];        /* a byte on it ends the thread at once */
	volatile int stop;       /* set by the UI, read by the thread each round */
	const char *dirs[MAX_DIRS];
	size_t ndirs;
	int64_t mtime[MAX_DIRS];
	int native;              /* inotify or kqueue fd, -1 when none */
	int dirfd[MAX_DIRS];     /* kqueue: the folders' descriptors */
	const char *kind;
};

static int64_t dir_mtime(const char *dir)
{
	struct stat st;
	if (stat(dir, &st) != 0)
		return -1;
	return kp_fs_mtime_ns(&st);
}

/* True when some folder's mtime moved since the last call. */
static bool mtimes_changed(struct kpt_watch *w)
{
	bool changed = false;
	for (size_t i = 0; i < w->ndirs; i++) {
		int64_t m = dir_mtime(w->dirs[i]);
		changed |= m != w->mtime[i];
		w->mtime[i] = m;
	}
	return changed;
}

static void native_open(struct kpt_watch *w)
{
	w->native = -1;
	for (size_t i = 0; i < MAX_DIRS; i++)
		w->dirfd[i] = -1;
#if defined(KPT_WATCH_INOTIFY)
	int fd = inotify_init();
	if (fd < 0)
		return;
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	for (size_t i = 0; i < w->ndirs; i++)
		inotify_add_watch(fd, w->dirs[i], IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE);
	w->native = fd;
	w->kind = "inotify";
#elif defined(KPT_WATCH_KQUEUE)
	int kq = kqueue();
	if (kq < 0)
		return;
	fcntl(kq, F_SETFD, FD_CLOEXEC);
	for (size_t i = 0; i < w->ndirs; i++) {
		int fd = open(w->dirs[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		struct kevent ev;
		EV_SET(&ev, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE | NOTE_EXTEND | NOTE_RENAME, 0, NULL);
		if (kevent(kq, &ev, 1, NULL, 0, NULL) == 0)
			w->dirfd[i] = fd;
		else
			close(fd);
	}
	struct kevent sev;
	EV_SET(&sev, w->stop_pipe[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	kevent(kq, &sev, 1, NULL, 0, NULL);
	w->native = kq;
	w->kind = "kqueue";
#endif
}

static void native_close(struct kpt_watch *w)
{
	for (size_t i = 0; i < MAX_DIRS; i++)
		if (w->dirfd[i] >= 0)
			close(w->dirfd[i]);
	if (w->native >= 0)
		close(w->native);
}

/* Waits up to a second, or until stop; true when the native watch saw
 * something. */
static bool native_wait(struct kpt_watch *w)
{
#if defined(KPT_WATCH_KQUEUE)
	if (w->native >= 0) {
		struct kevent ev[8];
		struct timespec ts = {1, 0};
		int n = kevent(w->native, NULL, 0, ev, 8, &ts);
		bool any = false;
		for (int i = 0; i < n; i++)
			any |= (int)ev[i].ident != w->stop_pipe[0];
		return any;
	}
#endif
	struct pollfd pfd[2] = {{.fd = w->stop_pipe[0], .events = POLLIN}, {.fd = w->native, .events = POLLIN}};
	int n = poll(pfd, w->native >= 0 ? 2 : 1, 1000);
	bool any = false;
	if (n > 0 && w->native >= 0 && (pfd[1].revents & POLLIN)) {   /* inotify */
		char buf[4096];
		while (read(w->native, buf, sizeof buf) > 0)
			any = true;
	}
	return any;
}

static void *watch_main(void *arg)
{
	(void)kpt_term_altstack();   /* an overflow here still gives the terminal back */
	struct kpt_watch *w = arg;
	while (!w->stop) {
		bool changed = native_wait(w);
		changed |= mtimes_changed(w);
		if (changed && !w->stop) {
			char c = 'c';
			(void)!write(w->pipe[1], &c, 1);
		}
	}
	return NULL;
}

void kpt_watch_start(kpt_app *app)
{
	struct kpt_watch *w = kpt_xcalloc(1, sizeof *w);
	for (size_t i = 0; i < app->cfg.npaths && w->ndirs < MAX_DIRS; i++) {
		struct stat st;
		if (stat(app->cfg.paths[i], &st) == 0 && S_ISDIR(st.st_mode))
			w->dirs[w->ndirs++] = app->cfg.paths[i];
	}
	if (w->ndirs == 0 || !kpt_pipe_open(w->pipe)) {
		free(w);
		return;
	}
	if (!kpt_pipe_open(w->stop_pipe)) {
		kpt_pipe_close(w->pipe);
		free(w);
		return;
	}
	w->kind = "polling";
	mtimes_changed(w);   /* the baseline */
	native_open(w);
	if (pthread_create(&w->thread, NULL, watch_main, w) != 0) {
		native_close(w);
		kpt_pipe_close(w->pipe);
		kpt_pipe_close(w->stop_pipe);
		free(w);
		return;
	}
	app->watch = w;
}

int kpt_watch_fd(const kpt_app *app)
{
	return app->watch ? app->watch->pipe[0] : -1;
}

unsigned kpt_watch_poll(kpt_app *app)
{
	struct kpt_watch *w = app->watch;
	if (!w)
		return 0;
	char buf[64];
	while (read(w->pipe[0], buf, sizeof buf) > 0)
		;
	kpt_scanner_rescan(app);
	return KPT_REDRAW;
}

const char *kpt_watch_kind(const kpt_app *app)
{
	return app->watch ? app->watch->kind : NULL;
}

void kpt_watch_stop(kpt_app *app)
{
	struct kpt_watch *w = app->watch;
	if (!w)
		return;
	w->stop = 1;
	char c = 's';
	(void)!write(w->stop_pipe[1], &c, 1);
	pthread_join(w->thread, NULL);   /* at once: every wait includes stop_pipe */
	native_close(w);
	kpt_pipe_close(w->pipe);
	kpt_pipe_close(w->stop_pipe);
	free(w);
	app->watch = NULL;
}
