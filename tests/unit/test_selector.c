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

/* Greater and less than: integers, as strconv.ParseInt reads them. */
TEST(gt_and_lt_compare_integers)
{
	CHECK(match("a>1", LABELS("a=2")));
	CHECK(match("a<1", LABELS("a=0")));
	CHECK(match("a>01", LABELS("a=2")));
	CHECK(!match("a>1", LABELS("a=x")));
	CHECK(!match("a>1", LABELS("b=2")));
	CHECK(!match("a>9223372036854775807", LABELS("a=9223372036854775808")));
	CHECK(match("a>1,b", LABELS("a=2\0b=")));
}

/*
 * What apimachinery's labels.Parse takes and refuses; each verdict is the
 * real one's (v0.36.3), asked of it on the same text.
 */
TEST(takes_and_refuses_what_labels_parse_does)
{
	static const char *const taken[] = {
		"a in ()", "a in (,)", "a in (x,,y)", "in in (in)", "a==", "a =  b", "",
		"x.io/y=B", "k8s.io/app notin (a_b, x.y)",
	};
	static const char *const refused[] = {
		"a>x", "a>-1", "a>", "b notin (1),", "!a=b", "a=x/y", "-a=b", "a/b/c",
		"Example.com/a", "ex_ample.com/a", "a=b!=c", "a,", ",a", " , ", "a in b", "!",
		"app in prod", "app=web,,=x", "env in (a,b", "a ~ b",
	};
	struct errbuf err;

	for (size_t i = 0; i < ARRAY_SIZE(taken); i++) {
		struct selector *s = selector_parse(taken[i], &err);
		CHECKF(s != NULL, "labels.Parse takes '%s': %s", taken[i], err.msg);
		selector_free(s);
	}
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
		struct selector *s = selector_parse(refused[i], &err);
		CHECKF(s == NULL, "labels.Parse refuses '%s'", refused[i]);
		selector_free(s);
	}
	CHECK(match("in in (in)", LABELS("in=in")));
	CHECK(match("a in (,)", LABELS("a=")));
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
	RUN(gt_and_lt_compare_integers);
	RUN(takes_and_refuses_what_labels_parse_does);
	return unit_done();
}
