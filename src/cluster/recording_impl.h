/*
 * recording_impl.h — a loaded recording as recording.c reads it and
 * replay.c answers from it: read-only once loaded (and cut), so that
 * replay threads read it unlocked.  Only those two include it.
 */
#ifndef KINF_RECORDING_IMPL_H
#define KINF_RECORDING_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "cluster/http.h"
#include "lib/hashmap.h"

struct api_resource;		/* discovery.h */

/*
 * What a recording may hold, as outside input: a line (the writers cut
 * a body into data records of RECORDING_PIECE bytes, so no line of
 * theirs comes near), and a time in ms (35,000 years, so that sums of
 * times never overflow).
 */
#define RECORDING_MAX_LINE (64u << 20)
#define RECORDING_PIECE ((size_t)4 << 20)
#define RECORDING_MAX_T ((int64_t)1 << 50)

struct chunk {
	int64_t t;
	char *data;
	size_t len;
};

struct exchange {
	char x[24];		/* its number, the key of recording.by_x */
	int64_t t_start, t_end;
	enum request_kind kind;	/* what it asked ("get"); REQUEST_UNKNOWN: not recorded */
	long status;
	char content_type[128];
	int64_t retry_after_ms;
	struct chunk *chunks;
	size_t nr, alloc;
	bool ended;
	int rc;
	bool refused, timed_out, no_answer, no_answer_timeout, stream_broken;
	char stream_error[96];	/* http_response.stream_error, "": none recorded */
	bool stopped;		/* kinf was stopping: the recording ends here */
	char *error;
	size_t stream;		/* its index in recording.streams */
};

/* A stream's entry was queued when its consumer had popped `pops`. */
struct mark {
	int64_t t;
	uint64_t pops;
};

struct stream {
	char *name;
	bool reconstructed;	/* its first exchange is (a flight dump's checkpoint) */
	struct exchange **ex;	/* in the recorded order */
	size_t nr, alloc;
	struct mark *marks;	/* in the recorded order */
	size_t nmarks, amarks;
};

struct recording {
	struct json_object *header;
	struct json_object *trigger;	/* a flight dump's trigger record, or NULL */
	/* recording_get_info()'s, as discovery would have them */
	struct api_resource *resources;
	const struct api_resource **resource_ptrs;
	size_t nr_resources;
	struct stream *streams;
	size_t nr, alloc;
	struct hashmap stream_index;	/* name -> its index in streams, plus 1 */
	struct exchange **all;		/* every exchange, in the order they began */
	size_t nall, aall;
	struct hashmap by_x;		/* "x" -> the exchange numbered x */
};

/* The stream named name, or NULL: the recording has none. */
const struct stream *recording_stream_named(const struct recording *rec, const char *name);

#endif
