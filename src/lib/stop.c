/* stop.c — interruptible sleeps; see stop.h. */
#include "lib/stop.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "lib/util.h"

void stop_init(struct stop *s)
{
	atomic_init(&s->flag, false);
	pthread_mutex_init(&s->lock, NULL);
	cond_init_monotonic(&s->cond);
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

bool stop_sleep(struct stop *s, int64_t ms)
{
	int64_t deadline = mono_ms() + ms;

	pthread_mutex_lock(&s->lock);
	while (!atomic_load(&s->flag)) {
		if (cond_wait_until(&s->cond, &s->lock, deadline))
			break;
	}
	bool stopped = atomic_load(&s->flag);
	pthread_mutex_unlock(&s->lock);
	return stopped;
}
