/* token_bucket.c — see token_bucket.h. */
#include "lib/token_bucket.h"

#include <math.h>

int64_t token_bucket_take(struct token_bucket *b, int64_t now_ms)
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
	b->tokens -= 1;
	if (b->tokens >= 0)
		return 0;
	return (int64_t)ceil(-b->tokens / b->qps * 1000 - 1e-9);
}
