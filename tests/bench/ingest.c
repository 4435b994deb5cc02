/*
 * ingest.c — the CPU cost of ingest without the network: a saved LIST
 * response through the list splitter into kobjs, or a saved watch stream
 * (one event a line) through the value splitter into kobjs, fed in 64 KB
 * pieces as libcurl would.  For instruction counts that are repeatable on
 * a busy machine:
 *
 *   make && cc -O2 -g -D_GNU_SOURCE -Isrc $(pkg-config --cflags json-c) \
 *      -pthread -o build/ingest tests/bench/ingest.c build/default/libkinf.a \
 *      $(pkg-config --libs json-c libzstd)
 *   valgrind --tool=callgrind build/ingest list LIST.json
 *   valgrind --tool=callgrind build/ingest watch EVENTS.ndjson
 *
 * LIST.json: curl the list (?resourceVersion=0) from kube-sim; EVENTS:
 * curl a watch (-N) during a POST /churn.  It prints a hash of the texts
 * made, so two builds can be checked to make the same bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "informer/kobj.h"
#include "lib/json_stream.h"
#include "lib/strbuf.h"

static size_t objects, bytes, failed;
static struct strbuf scratch = STRBUF_INIT;	/* a packed text, unpacked */
static unsigned long long hash = 14695981039346656037ULL;

/* FNV-1a of every object's text: the same input must give the same texts. */
static void add_hash(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		hash = (hash ^ (unsigned char)p[i]) * 1099511628211ULL;
}
static const struct kobj_type pod_type = { "v1", "Pod" };

static int on_item(void *ctx, const char *text, size_t len)
{
	struct errbuf err;
	struct kobj *obj = kobj_from_list_item(text, len, &pod_type, 0, &err);

	(void)ctx;
	if (!obj) {
		failed++;
		return 0;
	}
	objects++;
	bytes += obj->json_len;
	add_hash(kobj_text(obj, &scratch), obj->json_len);
	kobj_unref(obj);
	return 0;
}

static int on_line(void *ctx, const char *text, size_t len)
{
	struct kobj_event ev;
	struct errbuf err;

	(void)ctx;
	if (kobj_from_event(text, len, 0, &ev, &err) < 0 || !ev.obj) {
		failed++;
	} else {
		objects++;
		bytes += ev.obj->json_len;
		add_hash(kobj_text(ev.obj, &scratch), ev.obj->json_len);
	}
	kobj_event_release(&ev);
	return 0;
}

int main(int argc, char **argv)
{
	struct strbuf in = STRBUF_INIT;
	char buf[65536];
	size_t n;
	FILE *f;

	if (argc != 3 || (strcmp(argv[1], "list") && strcmp(argv[1], "watch"))) {
		fprintf(stderr, "usage: ingest list|watch FILE\n");
		return 2;
	}
	if (!(f = fopen(argv[2], "rb"))) {
		perror(argv[2]);
		return 1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&in, buf, n);
	fclose(f);

	if (!strcmp(argv[1], "list")) {
		struct list_splitter ls;

		list_splitter_init(&ls, on_item, NULL);
		for (size_t off = 0; off < in.len; off += sizeof(buf))
			list_splitter_feed(&ls, in.buf + off,
					   in.len - off < sizeof(buf) ? in.len - off : sizeof(buf));
		list_splitter_release(&ls);
	} else {
		struct value_splitter ls;

		value_splitter_init(&ls, on_line, NULL);
		for (size_t off = 0; off < in.len; off += sizeof(buf))
			value_splitter_feed(&ls, in.buf + off,
					    in.len - off < sizeof(buf) ? in.len - off : sizeof(buf));
		value_splitter_release(&ls);
	}
	printf("%zu objects, %zu bytes of compact JSON (hash %016llx), %zu failed, from %zu bytes\n",
	       objects, bytes, hash, failed, in.len);
	strbuf_release(&in);
	return failed ? 1 : 0;
}
