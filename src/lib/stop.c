/* stop.c — interruptible sleeps; see stop.h. */
#include "lib/stop.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"

void stop_init(struct stop *s)
{
	pthread_condattr_t attr;
	atomic_init(&s->flag, false);
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &attr);
	pthread_condattr_destroy(&attr);
	s->kicks = 0;
	if (pipe2(s->pipe, O_NONBLOCK | O_CLOEXEC) < 0)
		die("cannot create a pipe: %s", strerror(errno));
}

void stop_destroy(struct stop *s)
{
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	close(s->pipe[0]);
	close(s->pipe[1]);
}

void stop_request(struct stop *s)
{
	pthread_mutex_lock(&s->lock);
	if (!atomic_load(&s->flag) && write(s->pipe[1], "", 1) < 0) {
		/* A full pipe is readable already. */
	}
	atomic_store(&s->flag, true);
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

void stop_kick(struct stop *s)
{
	pthread_mutex_lock(&s->lock);
	s->kicks++;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

bool stop_sleep(struct stop *s, int64_t ms)
{
	struct timespec deadline;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += ms / 1000;
	deadline.tv_nsec += (ms % 1000) * 1000000;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&s->lock);
	unsigned kicks = s->kicks;
	while (!atomic_load(&s->flag) && s->kicks == kicks) {
		if (pthread_cond_timedwait(&s->cond, &s->lock, &deadline) == ETIMEDOUT)
			break;
	}
	bool stopped = atomic_load(&s->flag);
	pthread_mutex_unlock(&s->lock);
	return stopped;
}
