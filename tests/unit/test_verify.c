/* test_verify.c — the cache against the server's list (informer/verify.h). */
#include "informer/kobj.h"
#include "informer/verify.h"
#include "lib/util.h"
#include "output/verify_report.h"
#include "unit.h"

#define E(k, r) { .key = (k), .rv = (r) }
#define GONE(k, r) { .key = (k), .rv = (r), .gone = true }

/* The report as "missing a@S; extra b@C; stale c C>S", for one check each. */
static char *summary(const struct verify_report *r)
{
	char buf[1024] = "";
	size_t n = 0;

	for (size_t i = 0; i < r->nmissing; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "missing %s@%s;",
				      r->missing[i].key, r->missing[i].server_rv);
	for (size_t i = 0; i < r->nextra; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "extra %s@%s;",
				      r->extra[i].key, r->extra[i].cache_rv);
	for (size_t i = 0; i < r->nstale; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "stale %s %s>%s;",
				      r->stale[i].key, r->stale[i].cache_rv, r->stale[i].server_rv);
	return xstrdup(buf);
}

#define CHECK_REPORT(r, expected)                                          \
	do {                                                               \
		char *got_ = summary(r);                                   \
		CHECK_STR(got_, expected);                                 \
		free(got_);                                                \
	} while (0)

TEST(rv_compare_is_numeric_at_any_length)
{
	int cmp = 7;

	CHECK_INT(verify_rv_compare("9", "10", &cmp), 0);
	CHECK_INT(cmp, -1);
	CHECK_INT(verify_rv_compare("123456789012345678901234567890",
				    "123456789012345678901234567889", &cmp), 0);
	CHECK_INT(cmp, 1);
	CHECK_INT(verify_rv_compare("007", "7", &cmp), 0);
	CHECK_INT(cmp, 0);
	CHECK_INT(verify_rv_compare("0", "0", &cmp), 0);
	CHECK_INT(cmp, 0);
	CHECK_INT(verify_rv_compare("abc", "7", &cmp), -1);
	CHECK_INT(verify_rv_compare("7", "", &cmp), -1);
	CHECK_INT(verify_rv_compare("-1", "7", &cmp), -1);
	CHECK_INT(verify_rv_compare("1e3", "7", &cmp), -1);
}

TEST(equal_sides_give_an_empty_report)
{
	struct verify_entry cache[] = { E("default/a", "10"), E("default/b", "11") };
	struct verify_entry server[] = { E("default/a", "10"), E("default/b", "11") };
	struct verify_report r;

	verify_compare(cache, 2, server, 2, "20", &r);
	CHECK(verify_equal(&r));
	CHECK_INT(r.cache_count, 2);
	CHECK_INT(r.server_count, 2);
	CHECK_INT(r.ahead, 0);
	CHECK_STR(r.list_rv, "20");
	verify_report_release(&r);

	verify_compare(NULL, 0, NULL, 0, "5", &r);
	CHECK(verify_equal(&r));
	CHECK_INT(r.cache_count, 0);
	verify_report_release(&r);
}

TEST(finds_missing_extra_and_stale)
{
	struct verify_entry cache[] = {
		E("default/a", "10"), E("default/c", "12"), E("default/d", "9"),
	};
	struct verify_entry server[] = {
		E("default/a", "10"), E("default/b", "15"), E("default/d", "18"),
	};
	struct verify_report r;

	verify_compare(cache, 3, server, 3, "20", &r);
	CHECK(!verify_equal(&r));
	CHECK_REPORT(&r, "missing default/b@15;extra default/c@12;stale default/d 9>18;");
	CHECK(r.missing[0].cache_rv == NULL);
	CHECK(r.extra[0].server_rv == NULL);
	verify_report_release(&r);
}

/* The text and the summary: the server's keys and RVs escaped, on one line. */
TEST(report_text_escapes_what_the_server_sent)
{
	struct verify_entry cache[] = { E("default/c", "12"), E("default/d", "9") };
	struct verify_entry server[] = { E("default/b\x1b[2J\nx", "15"), E("default/d", "1\x07") };
	struct verify_report r;
	struct strbuf sb = STRBUF_INIT;

	verify_compare(cache, 2, server, 2, "2\r0", &r);
	verify_report_text("pods", &r, &sb);
	CHECK_STR(strbuf_str(&sb),
		  "pods: cache has 2 objects at rv ?, server 2 at rv 2\\r0: 1 missing, 1 extra, 1 stale"
		  " (the informer had not caught up to rv 2\\r0)\n"
		  "missing  default/b^[[2J x  server rv 15\n"
		  "extra  default/c  cache rv 12\n"
		  "stale  default/d  cache rv 9, server rv 1^G\n");
	strbuf_reset(&sb);
	verify_report_summary(&r, &sb);
	CHECK_STR(strbuf_str(&sb), "1 missing, 1 extra, 1 stale: default/b^[[2J x (missing), "
		  "default/c (extra), default/d (stale) (the informer had not caught up to rv 2\\r0)");
	strbuf_release(&sb);
	verify_report_release(&r);
}

/* A busy cluster: what changed after the LIST is no divergence. */
TEST(excuses_a_cache_that_is_ahead)
{
	struct verify_entry cache[] = {
		E("default/changed", "25"),	/* updated after L=20 */
		E("default/created", "22"),	/* created after L */
		GONE("default/deleted", "23"),	/* deleted after L */
		GONE("default/long-gone", "3"),	/* the server agrees */
	};
	struct verify_entry server[] = {
		E("default/changed", "17"),
		E("default/deleted", "19"),
	};
	struct verify_report r;

	verify_compare(cache, 4, server, 2, "20", &r);
	CHECK(verify_equal(&r));
	CHECK_INT(r.ahead, 3);
	CHECK_INT(r.cache_count, 2);
	verify_report_release(&r);
}

/* What is no newer than the LIST still counts. */
TEST(reports_what_the_cache_missed_before_the_list)
{
	struct verify_entry cache[] = {
		E("default/extra", "20"),	/* not after L: extra */
		GONE("default/recreated", "5"),	/* deleted, made again at 12 */
		E("default/same-rv-lower", "11"),
	};
	struct verify_entry server[] = {
		E("default/recreated", "12"),
		E("default/same-rv-lower", "12"),
	};
	struct verify_report r;

	verify_compare(cache, 3, server, 2, "20", &r);
	CHECK_REPORT(&r, "missing default/recreated@12;extra default/extra@20;"
		     "stale default/same-rv-lower 11>12;");
	CHECK_INT(r.ahead, 0);
	verify_report_release(&r);
}

/* RVs that are not numbers: only equality counts, nothing is excused. */
TEST(opaque_rvs_compare_only_for_equality)
{
	struct verify_entry cache[] = { E("a", "x9"), E("b", "y1"), E("c", "zz") };
	struct verify_entry server[] = { E("a", "x9"), E("b", "y2") };
	struct verify_report r;

	verify_compare(cache, 3, server, 2, "y3", &r);
	CHECK_REPORT(&r, "extra c@zz;stale b y1>y2;");
	verify_report_release(&r);
}

TEST(sort_orders_by_key)
{
	struct verify_entry v[] = { E("ns/c", "1"), E("a", "2"), E("ns/b", "3") };

	verify_sort(v, 3);
	CHECK_STR(v[0].key, "a");
	CHECK_STR(v[1].key, "ns/b");
	CHECK_STR(v[2].key, "ns/c");
	verify_sort(NULL, 0);
}

/*
 * The server's items: verify's own scan keys them as the informer's
 * objects are keyed, and refuses what kobj_from_list_item() refuses.
 * want is "key|rv", or "!" and the error both must give.
 */
static const struct {
	const char *json, *want;
} items[] = {
	{ "{\"metadata\":{\"namespace\":\"ns\",\"name\":\"a\",\"resourceVersion\":\"7\"}}", "ns/a|7" },
	{ " {\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":"
	  "{\"name\":\"node-1\",\"resourceVersion\":\"12\",\"managedFields\":[{\"manager\":\"x\"}]}} ",
	  "node-1|12" },
	{ "{\"metadata\":{\"name\":\"a\\u00e9\\/b\\\"c\",\"namespace\":\"n\\u0073\","
	  "\"resourceVersion\":\"1\\u0032\"}}", "ns/a\xc3\xa9/b\"c|12" },
	{ "{\"metadata\":{\"namespace\":\"ns\",\"resourceVersion\":\"3\"}}", "ns/|3" },
	{ "{\"metadata\":{\"resourceVersion\":\"3\"}}", "|3" },
	{ "{\"spec\":{}}", "|" },
	{ "{\"metadata\":\"x\"}", "|" },
	{ "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":7}}", "a|" },
	{ "{\"metadata\":{\"name\":7,\"namespace\":null,\"resourceVersion\":\"7\"}}", "|7" },
	{ "{\"metadata\":{\"name\":\"old\"},\"metadata\":{\"name\":\"new\"}}", "new|" },
	{ "{\"metadata\":{\"name\":\"old\",\"name\":\"new\",\"resourceVersion\":\"1\\u00002\"}}",
	  "new|1" },
	{ "{\"metadata\":{\"name\":\"bad\xff\xc3\",\"resourceVersion\":\"\\ud800x\"}}",
	  "bad\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbdx" },
	{ "{\"metadata\":{\"name\":\"a\\u0000b\"}}",
	  "!cannot parse object: a NUL byte in its name or namespace at byte 30" },
	{ "{\"metadata\":{\"name\":\"a\"}", "!cannot parse object: unexpected end at byte 24" },
	{ "{\"metadata\":{\"name\":\"a\"}} x", "!cannot parse object: text after the object at byte 26" },
	{ "{\"spec\":[1,]}", "!cannot parse object: unexpected character at byte 11" },
	{ "[]", "!object is not a JSON object" },
	{ "  ", "!cannot parse object: empty" },
};

TEST(items_are_keyed_as_the_informer_keys_them)
{
	struct kobj_type type = { .api_version = "v1", .kind = "Pod" };

	for (size_t i = 0; i < ARRAY_SIZE(items); i++) {
		const char *json = items[i].json;
		struct errbuf e1 = { 0 }, e2 = { 0 };
		char *got = verify_item_key_rv(json, strlen(json), &e1);
		struct kobj *obj = kobj_from_list_item(json, strlen(json), &type,
						       KOBJ_ALLOW_UNNAMED, &e2);
		char *mine = got ? xasprintf("%s|%s", got, got + strlen(got) + 1)
				 : xasprintf("!%s", e1.msg);
		char *theirs = obj ? xasprintf("%s|%s", obj->key, obj->rv) : xasprintf("!%s", e2.msg);

		CHECK_STR(mine, items[i].want);
		CHECK_STR(mine, theirs);
		free(mine);
		free(theirs);
		free(got);
		kobj_unref(obj);
	}
}

int main(void)
{
	RUN(rv_compare_is_numeric_at_any_length);
	RUN(equal_sides_give_an_empty_report);
	RUN(finds_missing_extra_and_stale);
	RUN(report_text_escapes_what_the_server_sent);
	RUN(excuses_a_cache_that_is_ahead);
	RUN(reports_what_the_cache_missed_before_the_list);
	RUN(opaque_rvs_compare_only_for_equality);
	RUN(sort_orders_by_key);
	RUN(items_are_keyed_as_the_informer_keys_them);
	return unit_done();
}
