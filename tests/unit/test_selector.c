/* test_selector.c — label selectors as the apiserver reads them. */
#include "lib/selector.h"
#include "unit.h"

/* Packs "a=1", "b=2" into the kobj label form. */
#define LABELS(s) (s "\0")

static bool match(const char *sel, const char *labels)
{
	struct errbuf err;
	struct selector *s = selector_parse(sel, &err);
	if (!s) {
		printf("# parse failed: %s\n", err.msg);
		return false;
	}
	bool m = selector_matches(s, labels);
	selector_free(s);
	return m;
}

TEST(equality)
{
	CHECK(match("app=web", LABELS("app=web\0tier=fe")));
	CHECK(match("app==web", LABELS("app=web")));
	CHECK(!match("app=db", LABELS("app=web")));
	CHECK(!match("app=web", LABELS("tier=fe")));
}

TEST(inequality_matches_absent_keys)
{
	CHECK(match("app!=db", LABELS("app=web")));
	CHECK(match("app!=db", LABELS("tier=fe")));
	CHECK(!match("app!=web", LABELS("app=web")));
}

TEST(set_based)
{
	CHECK(match("env in (prod, staging)", LABELS("env=prod")));
	CHECK(!match("env in (prod,staging)", LABELS("env=dev")));
	CHECK(match("env notin (prod)", LABELS("env=dev")));
	CHECK(match("env notin (prod)", LABELS("x=y")));
	CHECK(!match("env notin (prod)", LABELS("env=prod")));
}

TEST(existence)
{
	CHECK(match("app", LABELS("app=web")));
	CHECK(!match("app", LABELS("tier=fe")));
	CHECK(match("!app", LABELS("tier=fe")));
	CHECK(!match("!app", LABELS("app=web")));
}

TEST(all_requirements_must_hold)
{
	CHECK(match("app=web,tier=fe", LABELS("app=web\0tier=fe")));
	CHECK(!match("app=web,tier=be", LABELS("app=web\0tier=fe")));
	CHECK(match("", LABELS("app=web")));	/* empty selects everything */
}

TEST(prefix_of_a_key_is_not_the_key)
{
	CHECK(!match("app=web", LABELS("application=web")));
	CHECK(match("k8s.io/app=x", LABELS("k8s.io/app=x")));
}

TEST(rejects_malformed)
{
	struct errbuf err;
	CHECK(selector_parse("app in prod", &err) == NULL);
	CHECK(strstr(err.msg, "app in prod") != NULL);
	CHECK(selector_parse("app=web,,=x", &err) == NULL);
	CHECK(selector_parse("env in (a,b", &err) == NULL);
	CHECK(selector_parse("a ~ b", &err) == NULL);
}

int main(void)
{
	RUN(equality);
	RUN(inequality_matches_absent_keys);
	RUN(set_based);
	RUN(existence);
	RUN(all_requirements_must_hold);
	RUN(prefix_of_a_key_is_not_the_key);
	RUN(rejects_malformed);
	return unit_done();
}
