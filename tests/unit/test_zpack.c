/* test_zpack.c — packed texts: a family learns, then packs; objects read back exact. */
#include <pthread.h>

#include <json-c/json.h>

#include "informer/kobj.h"
#include "informer/kobj_pick.h"
#include "lib/strbuf.h"
#include "lib/zpack.h"
#include "unit.h"

/* A pod of kind `kind`, told apart from its siblings by i. */
static void make_pod(struct strbuf *sb, const char *kind, int i)
{
	strbuf_reset(sb);
	strbuf_addf(sb,
		    "{\"apiVersion\":\"v1\",\"kind\":\"%s\",\"metadata\":{\"name\":\"web-%d\","
		    "\"namespace\":\"shop\",\"uid\":\"6f1c%04x-9b1a-4c2e-%012d\","
		    "\"resourceVersion\":\"%d\",\"labels\":{\"app\":\"web\",\"tier\":\"front\"},"
		    "\"annotations\":{\"note\":\"a fairly long annotation that every pod repeats\"}},"
		    "\"spec\":{\"nodeName\":\"node-%d\",\"containers\":[{\"name\":\"web\","
		    "\"image\":\"registry.example.com/shop/web:1.2.3\",\"ports\":[{\"containerPort\":8080}],"
		    "\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"128Mi\"}}}]},"
		    "\"status\":{\"phase\":\"Running\",\"podIP\":\"10.0.%d.%d\"}}",
		    kind, i, i, i, 1000 + i, i % 7, i / 250, i % 250);
}

TEST(a_family_learns_then_packs_what_it_unpacks_exactly)
{
	struct zpack *z = zpack_family("test-learns");
	struct strbuf text = STRBUF_INIT, packed = STRBUF_INIT, back = STRBUF_INIT;
	size_t learnt = 0, n = 0;
	int i;

	CHECK(z != NULL);
	CHECK(zpack_family("test-learns") == z);
	/* The first texts are samples, kept as they are. */
	for (i = 0; learnt < ZPACK_DICT_BYTES; i++) {
		make_pod(&text, "Pod", i);
		n = zpack_pack(z, text.buf, text.len, &packed);
		if (n)
			break;
		learnt += text.len;
	}
	CHECK_INT(n, 0);
	CHECK_INT(packed.len, 0);
	CHECK(learnt >= ZPACK_DICT_BYTES);
	/* Then each one packed, to a fraction, and back byte for byte. */
	make_pod(&text, "Pod", 99999);
	n = zpack_pack(z, text.buf, text.len, &packed);
	CHECKF(n > 0 && n * 4 < text.len, "%zu bytes packed to %zu", text.len, n);
	CHECK_INT(packed.len, n);
	zpack_unpack(z, packed.buf, packed.len, text.len, &back);
	CHECK_INT(back.len, text.len);
	CHECK_STR(back.buf, text.buf);
	strbuf_release(&text);
	strbuf_release(&packed);
	strbuf_release(&back);
}

TEST(a_text_that_would_not_shrink_is_kept)
{
	struct zpack *z = zpack_family("test-noise");
	struct strbuf text = STRBUF_INIT, packed = STRBUF_INIT;
	unsigned x = 12345;

	for (int i = 0; i < 2 * ZPACK_DICT_BYTES; i++) {
		x = x * 1103515245u + 12345u;
		strbuf_addch(&text, (char)(x >> 16));
	}
	zpack_pack(z, text.buf, ZPACK_DICT_BYTES, &packed);	/* learns noise */
	CHECK_INT(zpack_pack(z, text.buf + ZPACK_DICT_BYTES, 4000, &packed), 0);
	CHECK_INT(packed.len, 0);
	strbuf_release(&text);
	strbuf_release(&packed);
}

/* Objects of one kind (100 of 700 bytes), past their family's learning: packed, read back exact. */
TEST(objects_are_packed_and_read_back_exactly)
{
	struct strbuf text = STRBUF_INIT, got = STRBUF_INIT, scratch = STRBUF_INIT;
	struct kobj *objs[100], *again;
	struct errbuf err;
	int packed = 0;

	for (int i = 0; i < 100; i++) {
		make_pod(&text, "ZpackPod", i);
		objs[i] = kobj_from_json(text.buf, text.len, 0, &err);
		packed += objs[i]->packed_len > 0;
	}
	CHECK(packed > 0);
	CHECK(objs[0]->packed_len == 0);	/* the first is a sample */
	CHECK(objs[99]->packed_len > 0 && objs[99]->packed_len * 4 < objs[99]->json_len);
	make_pod(&text, "ZpackPod", 99);
	strbuf_reset(&got);
	kobj_json(objs[99], &got);
	CHECK_STR(got.buf, text.buf);
	CHECK_INT(got.len, objs[99]->json_len);
	CHECK_STR(kobj_text(objs[99], &scratch), text.buf);
	CHECK_STR(objs[99]->key, "shop/web-99");
	CHECK_STR(objs[99]->node, "node-1");

	/* Same text, same object; another text, another. */
	again = kobj_from_json(text.buf, text.len, 0, &err);
	CHECK(kobj_same(again, objs[99]));
	CHECK(!kobj_same(again, objs[98]));
	CHECK(!kobj_same(objs[0], objs[99]));
	kobj_unref(again);

	struct json_object *tree = kobj_tree(objs[99]), *v;
	CHECK(json_object_object_get_ex(tree, "status", &v));
	CHECK_STR(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
		  "{\"phase\":\"Running\",\"podIP\":\"10.0.0.99\"}");
	json_object_put(tree);

	for (int i = 0; i < 100; i++)
		kobj_unref(objs[i]);
	strbuf_release(&text);
	strbuf_release(&got);
	strbuf_release(&scratch);
}

/* Threads pack and unpack at once (each with its own zstd contexts). */
static void *pack_many(void *arg)
{
	struct strbuf text = STRBUF_INIT, got = STRBUF_INIT;
	struct errbuf err;
	long bad = 0, base = (long)arg;

	for (int i = 0; i < 300; i++) {
		make_pod(&text, "ZpackThreads", (int)base + i);
		struct kobj *obj = kobj_from_json(text.buf, text.len, 0, &err);
		strbuf_reset(&got);
		kobj_json(obj, &got);
		bad += strcmp(got.buf, text.buf) != 0;
		kobj_unref(obj);
	}
	strbuf_release(&text);
	strbuf_release(&got);
	return (void *)bad;
}

TEST(threads_pack_and_unpack_at_once)
{
	pthread_t t[4];
	void *bad;
	long total = 0;

	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, pack_many, (void *)(i * 1000));
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], &bad);
		total += (long)bad;
	}
	CHECK_INT(total, 0);
}

int main(void)
{
	RUN(a_family_learns_then_packs_what_it_unpacks_exactly);
	RUN(a_text_that_would_not_shrink_is_kept);
	RUN(objects_are_packed_and_read_back_exactly);
	RUN(threads_pack_and_unpack_at_once);
	return unit_done();
}
