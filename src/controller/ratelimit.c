/* ratelimit.c — see ratelimit.h. */
#include "controller/ratelimit.h"

#include <math.h>
#include <stdlib.h>

#include "lib/util.h"

void ratelimit_exp_init(struct ratelimit_exp *e, int64_t base_ms, int64_t max_ms)
{
	*e = (struct ratelimit_exp){ .base_ms = base_ms, .max_ms = max_ms };
}

void ratelimit_exp_release(struct ratelimit_exp *e)
{
	size_t iter = 0;
	struct hashmap_entry *ent;

	while ((ent = hashmap_next(&e->failures, &iter)))
		free((char *)ent->key);
	hashmap_release(&e->failures);
}

int64_t ratelimit_exp_when(struct ratelimit_exp *e, const char *key)
{
	struct hashmap_entry *ent = hashmap_find(&e->failures, key);
	uintptr_t exp = ent ? (uintptr_t)ent->value : 0;

	if (ent)
		ent->value = (void *)(exp + 1);
	else
		hashmap_insert(&e->failures, xstrdup(key), (void *)(uintptr_t)1);
	/* client-go computes in float and caps past max (and past int64). */
	double backoff = (double)e->base_ms * pow(2, (double)exp);
	return backoff > (double)e->max_ms ? e->max_ms : (int64_t)backoff;
}

void ratelimit_exp_forget(struct ratelimit_exp *e, const char *key)
{
	struct hashmap_entry gone;

	if (hashmap_remove(&e->failures, key, &gone))
		free((char *)gone.key);
}

unsigned ratelimit_exp_num_requeues(const struct ratelimit_exp *e, const char *key)
{
	return (unsigned)(uintptr_t)hashmap_get(&e->failures, key);
}

static void ratelimit_bucket_init(struct ratelimit_bucket *b, double qps, int burst)
{
	*b = (struct ratelimit_bucket){ .qps = qps, .burst = burst };
}

static int64_t ratelimit_bucket_when(struct ratelimit_bucket *b, int64_t now)
{
	if (!b->started) {
		b->started = true;
		b->tokens = b->burst;
		b->last_ms = now;
	}
	if (now > b->last_ms) {
		b->tokens += (double)(now - b->last_ms) / 1000 * b->qps;
		if (b->tokens > b->burst)
			b->tokens = b->burst;
		b->last_ms = now;
	}
	b->tokens -= 1;
	if (b->tokens >= 0)
		return 0;
	return (int64_t)ceil(-b->tokens / b->qps * 1000 - 1e-9);
}

void ratelimit_init(struct ratelimit *rl, bool with_bucket)
{
	ratelimit_exp_init(&rl->exp, 5, 1000 * 1000);
	ratelimit_bucket_init(&rl->bucket, 10, 100);
	rl->with_bucket = with_bucket;
}

void ratelimit_release(struct ratelimit *rl)
{
	ratelimit_exp_release(&rl->exp);
}

int64_t ratelimit_when(struct ratelimit *rl, const char *key, int64_t now)
{
	int64_t a = ratelimit_exp_when(&rl->exp, key);
	int64_t b = rl->with_bucket ? ratelimit_bucket_when(&rl->bucket, now) : 0;
	return a > b ? a : b;
}

void ratelimit_forget(struct ratelimit *rl, const char *key)
{
	ratelimit_exp_forget(&rl->exp, key);
}

unsigned ratelimit_num_requeues(const struct ratelimit *rl, const char *key)
{
	return ratelimit_exp_num_requeues(&rl->exp, key);
}
