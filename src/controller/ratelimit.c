/* ratelimit.c — see ratelimit.h. */
#include "controller/ratelimit.h"

#include <math.h>
#include <stdlib.h>

#include "lib/util.h"

/* client-go's defaults: the exponential limit's 5 ms to 1000 s, the bucket's 10 qps, burst 100. */
#define EXP_BASE_MS 5
#define EXP_MAX_MS (1000 * 1000)
#define BUCKET_QPS 10
#define BUCKET_BURST 100

static int64_t exp_when(struct ratelimit *rl, const char *key)
{
	struct hashmap_entry *ent = hashmap_find(&rl->failures, key);
	uintptr_t exp = ent ? (uintptr_t)ent->value : 0;

	if (ent)
		ent->value = (void *)(exp + 1);
	else
		hashmap_insert(&rl->failures, xstrdup(key), (void *)(uintptr_t)1);
	/* client-go computes in float and caps past max (and past int64). */
	double backoff = (double)EXP_BASE_MS * pow(2, (double)exp);
	return backoff > (double)EXP_MAX_MS ? EXP_MAX_MS : (int64_t)backoff;
}

void ratelimit_init(struct ratelimit *rl, bool with_bucket)
{
	*rl = (struct ratelimit){
		.bucket = TOKEN_BUCKET_INIT(BUCKET_QPS, BUCKET_BURST),
		.with_bucket = with_bucket,
	};
}

void ratelimit_release(struct ratelimit *rl)
{
	size_t iter = 0;
	struct hashmap_entry *ent;

	while ((ent = hashmap_next(&rl->failures, &iter)))
		free((char *)ent->key);
	hashmap_release(&rl->failures);
}

int64_t ratelimit_when(struct ratelimit *rl, const char *key, int64_t now)
{
	int64_t a = exp_when(rl, key);
	int64_t b = rl->with_bucket ? token_bucket_take(&rl->bucket, now, -1) : 0;
	return a > b ? a : b;
}

void ratelimit_forget(struct ratelimit *rl, const char *key)
{
	struct hashmap_entry gone;

	if (hashmap_remove(&rl->failures, key, &gone))
		free((char *)gone.key);
}

unsigned ratelimit_num_requeues(const struct ratelimit *rl, const char *key)
{
	return (unsigned)(uintptr_t)hashmap_get(&rl->failures, key);
}
