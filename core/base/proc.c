/* proc.c: running a named helper without a shell (kp_proc.h). */
#include "kp_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs from several threads at once (a report's dsymForUUID asks): the
 * pipes are made close-on-exec under one lock, so no other child inherits
 * them and holds a pipe open past its own program's end, and SIGPIPE is
 * ignored while any run is under way, restored by the last one. */
static pthread_mutex_t spawn_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned running;
static void (*old_sigpipe)(int);

static void pipe_cloexec(int fd[2])
{
	fcntl(fd[0], F_SETFD, FD_CLOEXEC);
	fcntl(fd[1], F_SETFD, FD_CLOEXEC);
}

static void run_end(void)
{
	pthread_mutex_lock(&spawn_lock);
	if (--running == 0)
		signal(SIGPIPE, old_sigpipe);
	pthread_mutex_unlock(&spawn_lock);
}

kp_status kp_proc_run(char *const argv[], const void *input, size_t len, size_t max,
                      int timeout_ms, char **out, size_t *outlen, int *status, kp_error *err)
{
	return kp_proc_run_cancel(argv, input, len, max, timeout_ms, NULL, out, outlen, status, err);
}

kp_status kp_proc_run_cancel(char *const argv[], const void *input, size_t len, size_t max,
                             int timeout_ms, const atomic_bool *cancel, char **out, size_t *outlen,
                             int *status, kp_error *err)
{
	*out = NULL;
	*outlen = 0;
	*status = -1;
	int in[2], o[2];
	char *buf = malloc(max + 1);
	if (!buf)
		return kp_error_set(err, KP_ERR_IO, 0, -1, "%s: %s", argv[0], strerror(ENOMEM));
	pthread_mutex_lock(&spawn_lock);
	if (pipe(in) != 0) {
		int e = errno;
		pthread_mutex_unlock(&spawn_lock);
		free(buf);
		return kp_error_set(err, KP_ERR_IO, 0, -1, "%s: %s", argv[0], strerror(e));
	}
	if (pipe(o) != 0) {
		int e = errno;
		pthread_mutex_unlock(&spawn_lock);
		free(buf);
		close(in[0]), close(in[1]);
		return kp_error_set(err, KP_ERR_IO, 0, -1, "%s: %s", argv[0], strerror(e));
	}
	pipe_cloexec(in);
	pipe_cloexec(o);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		pthread_mutex_unlock(&spawn_lock);
		free(buf);
		close(in[0]), close(in[1]), close(o[0]), close(o[1]);
		return kp_error_set(err, KP_ERR_IO, 0, -1, "%s: %s", argv[0], strerror(e));
	}
	if (pid == 0) {
		/* a group of its own: a timeout stops whatever it started too */
		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);   /* another run may have it ignored */
		int null = open("/dev/null", O_WRONLY);
		dup2(in[0], 0);
		dup2(o[1], 1);
		if (null >= 0)
			dup2(null, 2);
		close(in[0]), close(in[1]), close(o[0]), close(o[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (running++ == 0)
		old_sigpipe = signal(SIGPIPE, SIG_IGN);
	pthread_mutex_unlock(&spawn_lock);
	close(in[0]);
	close(o[1]);
	/* a decoder that ignores its input must not block us: never block on it */
	fcntl(in[1], F_SETFL, fcntl(in[1], F_GETFL) | O_NONBLOCK);
	size_t sent = 0, got = 0;
	bool in_open = true, timed_out = false, cancelled = false;
	if (len == 0)
		close(in[1]), in_open = false;
	long deadline = now_ms() + timeout_ms;
	for (;;) {
		struct pollfd p[2] = {{o[0], POLLIN, 0}, {in_open ? in[1] : -1, POLLOUT, 0}};
		long left = deadline - now_ms();
		if (left <= 0) {
			timed_out = true;
			break;
		}
		if (cancel && atomic_load(cancel)) {
			timed_out = cancelled = true;
			break;
		}
		if (cancel && left > 50)
			left = 50;
		if (poll(p, 2, (int)left) < 0 && errno != EINTR)
			break;
		if (in_open && (p[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t k = write(in[1], (const char *)input + sent, len - sent);
			if (k > 0)
				sent += (size_t)k;
			if (k < 0 && errno != EAGAIN && errno != EINTR)
				sent = len;   /* it stopped reading: fine */
			if (sent >= len)
				close(in[1]), in_open = false;
		}
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			char tmp[4096];
			ssize_t k = read(o[0], tmp, sizeof tmp);
			if (k == 0 || (k < 0 && errno != EINTR && errno != EAGAIN))
				break;
			if (k > 0 && got < max) {
				size_t take = (size_t)k < max - got ? (size_t)k : max - got;
				memcpy(buf + got, tmp, take);
				got += take;
			}
		}
	}
	if (in_open)
		close(in[1]);
	close(o[0]);
	int st = 0;
	if (timed_out) {
		kill(-pid, SIGKILL);   /* its children, which may hold our pipe */
		kill(pid, SIGKILL);    /* in case it had not reached setpgid yet */
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	run_end();
	buf[got] = '\0';
	if (cancelled) {
		free(buf);
		return kp_error_set(err, KP_ERR_LIMIT, 0, -1, "%s: cancelled", argv[0]);
	}
	if (timed_out) {
		free(buf);
		return kp_error_set(err, KP_ERR_LIMIT, 0, -1, "%s: no answer within %d ms: stopped", argv[0],
		                    timeout_ms);
	}
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
	if (*status == 127) {
		free(buf);
		return kp_error_set(err, KP_ERR_IO, 0, -1, "%s: cannot run it", argv[0]);
	}
	*out = buf;
	*outlen = got;
	return KP_OK;
}
