/*
 * idle.h — one call made once the process's bursts of work are over.
 *
 * Workers that do work in bursts (the reflectors, decoding what came)
 * bracket each piece of it with idle_work_begin() and idle_work_end(),
 * which counts its bytes.  Once none is working, none has worked for
 * idle_ms, and together they did at least min_bytes since the hook last
 * ran, the next idle_poll() runs hook.fn (main.c's malloc_trim): on the
 * caller's thread, once, whoever calls first.  So a large list or a
 * burst of updates is followed by one call, and a quiet watch by none.
 *
 * Whoever polls waits until idle_due_ms() and calls idle_poll() then:
 * the informers' processors do, in their timed wait.  All of it is
 * lock-free and thread-safe; set the hook before the first worker
 * starts.  No hook: the counting is all there is.
 */
#ifndef KINF_IDLE_H
#define KINF_IDLE_H

#include <stddef.h>
#include <stdint.h>

struct idle_hook {
	void (*fn)(void);
	size_t min_bytes;
	int64_t idle_ms;
};
/* NULL or no fn: never called.  Not thread-safe: before the workers start. */
void idle_set_hook(const struct idle_hook *hook);

void idle_work_begin(void);
void idle_work_end(size_t bytes);

/*
 * When idle_poll() may have something to do, mono_ms(); 0 when it has
 * nothing (too little work since the hook last ran, or no hook).
 */
int64_t idle_due_ms(void);
/* Runs the hook when it is due and no worker works; else does nothing. */
void idle_poll(void);

#endif
