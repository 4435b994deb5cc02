/* token_bucket.c — see token_bucket.h. */
#include "lib/token_bucket.h"

#include <math.h>

int64_t token_bucket_take(struct token_bucket *b, int64_t now_ms, int64_t max_wait_ms)
{
	if (!b->started) {
		b->started = true;
		b->tokens = b->burst;
		b->last_ms = now_ms;
	}
	if (now_ms > b->last_ms) {
		b->tokens += (double)(now_ms - b->last_ms) / 1000 * b->qps;
		if (b->tokens > b->burst)
			b->tokens = b->burst;
		b->last_ms = now_ms;
	}
	if (b->tokens >= 1) {
		b->tokens -= 1;
		return 0;
	}
	int64_t wait = (int64_t)ceil((1 - b->tokens) / b->qps * 1000 - 1e-9);
	if (max_wait_ms >= 0 && wait > max_wait_ms)
		return -1;
	b->tokens -= 1;
	return wait;
}
