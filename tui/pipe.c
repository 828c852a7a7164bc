/* pipe.c: kpt_pipe.h. */
#include "kpt_pipe.h"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

static void set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
}

bool kpt_pipe_open(int fd[2])
{
	if (pipe(fd) != 0)
		return false;
	set_nonblock(fd[0]);
	set_nonblock(fd[1]);
	return true;
}

void kpt_pipe_close(int fd[2])
{
	close(fd[0]);
	close(fd[1]);
	fd[0] = fd[1] = -1;
}

bool kpt_pipe_job(void *(*fn)(void *), void *arg)
{
	pthread_attr_t at;
	pthread_t t;
	if (pthread_attr_init(&at) != 0)
		return false;
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	int e = pthread_create(&t, &at, fn, arg);
	pthread_attr_destroy(&at);
	return e == 0;
}
