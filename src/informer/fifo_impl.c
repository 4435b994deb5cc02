/*
 * fifo_impl.c — helpers the queue variants (delta_fifo.c, real_fifo.c)
 * share; see fifo_impl.h.  Called with fifo->lock held, like the ops.
 */
#include "informer/fifo_impl.h"

#include "lib/hashmap.h"
#include "lib/util.h"

struct delta fifo_delta(struct fifo *fifo, enum delta_type type,
			enum delta_source source, bool tombstone,
			struct kobj *obj)
{
	return (struct delta){
		.type = type,
		.source = source,
		.list_no = fifo->list_no,
		.tombstone = tombstone,
		.obj = kobj_ref(obj),
		.time_ms = wall_ms(),
		.clock_ms = fifo->now ? fifo->now(fifo->now_ctx) : mono_ms(),
	};
}

size_t fifo_tombstone_known(struct fifo *fifo, const struct hashmap *listed,
			    const struct hashmap *queued,
			    void (*tombstone)(struct fifo *fifo, struct kobj *obj))
{
	struct kobj_list known;
	size_t n = 0;

	if (!fifo->known)
		return 0;
	store_list(fifo->known, &known);
	for (size_t i = 0; i < known.nr; i++) {
		const char *key = known.v[i]->key;

		if (hashmap_find(listed, key) || hashmap_find(queued, key))
			continue;
		tombstone(fifo, known.v[i]);
		n++;
	}
	kobj_list_release(&known);
	return n;
}
