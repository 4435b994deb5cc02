/*
 * test_util.c — lib/util: durations as Go's time.ParseDuration reads them
 * (plus kinf's bare number of seconds), refused when out of range; sizes
 * in bytes (--history-size, --flight-recorder-size).
 */
#include <stdint.h>

#include "lib/strbuf.h"
#include "lib/termsafe.h"
#include "lib/util.h"
#include "unit.h"

TEST(sizes)
{
	size_t n = 0;
	CHECK_INT(parse_size("4096", &n), 0);
	CHECK_INT(n, 4096);
	CHECK_INT(parse_size("64Ki", &n), 0);
	CHECK_INT(n, 65536);
	CHECK_INT(parse_size("8M", &n), 0);
	CHECK_INT(n, 8u << 20);
	CHECK_INT(parse_size("1GiB", &n), 0);
	CHECK_INT(n, 1u << 30);
	n = 7;
	static const char *const bad[] = { "", "0", "0x", "-1", "-1Mi", " 1", "+1", "1Q", "1Kx", "2048G" };
	size_t refused = 0;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		refused += parse_size(bad[i], &n) == -1;
	CHECK_INT(refused, sizeof(bad) / sizeof(bad[0]));
	CHECK_INT(n, 7);	/* untouched */
}

TEST(durations)
{
	int64_t ms = -1;
	CHECK_INT(parse_duration("5s", &ms), 0);
	CHECK_INT(ms, 5000);
	CHECK_INT(parse_duration("1m30s", &ms), 0);
	CHECK_INT(ms, 90000);
	CHECK_INT(parse_duration("1.5h", &ms), 0);
	CHECK_INT(ms, 5400000);
	CHECK_INT(parse_duration("250ms", &ms), 0);
	CHECK_INT(ms, 250);
	CHECK_INT(parse_duration(".5s", &ms), 0);
	CHECK_INT(ms, 500);
	CHECK_INT(parse_duration("30", &ms), 0);	/* seconds */
	CHECK_INT(ms, 30000);
	CHECK_INT(parse_duration("+2m", &ms), 0);
	CHECK_INT(ms, 120000);
	CHECK_INT(parse_duration("2562047h", &ms), 0);	/* Go's maximum */
	CHECK_INT(parse_duration("1500us", &ms), 0);
	CHECK_INT(ms, 2);	/* what is under a millisecond is one */
	CHECK_INT(parse_duration("1ns", &ms), 0);
	CHECK_INT(ms, 1);
	CHECK_INT(parse_duration("1s500\u00b5s1\u03bcs", &ms), 0);
	CHECK_INT(ms, 1001);
}

/* kubectl's --request-timeout, as clientcmd.ParseTimeout reads it. */
TEST(kubectl_timeouts)
{
	static const struct {
		const char *text;
		int64_t ms;
	} good[] = {
		{ "", 0 }, { "0", 0 }, { "-0", 0 }, { "+5", 5000 }, { "007", 7000 },
		{ "-1s", -1000 }, { "-1.5h", -5400000 }, { "1m30s", 90000 }, { "1us", 1 },
		{ "9223372036854775807", -1000 },	/* n * time.Second wraps, as in Go */
	};
	const char *bad[] = {
		"-5", "1.5", ".", "-", "+", "+-1s", "-+1s", " 5", "5 ", "9223372036854775808",
		"1h-1s", "abc", "1d",
	};
	int64_t ms;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		ms = 7;
		CHECKF(parse_kubectl_timeout(good[i].text, &ms) == 0 && ms == good[i].ms,
		       "'%s' gave %lld", good[i].text, (long long)ms);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		CHECKF(parse_kubectl_timeout(bad[i], &ms) == -1, "'%s' was accepted", bad[i]);
}

TEST(bad_durations)
{
	int64_t ms = 7;
	const char *bad[] = {
		"", "+", "s", "1m30", "5x", "-5s", " 5s", "5s ", "0x10s",
		"1e3s", "nan", "inf", "infinity", "1e30", "2562048h",
		"9999999999999999999999h", "2562047h1h",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		CHECKF(parse_duration(bad[i], &ms) == -1, "'%s' was accepted", bad[i]);
	CHECK_INT(ms, 7);	/* left alone */
}

TEST(utf8_as_go_decodes_it)
{
	CHECK_INT(utf8_sequence("a", 1), 1);
	CHECK_INT(utf8_sequence("\xc3\xa9", 2), 2);
	CHECK_INT(utf8_sequence("\xe2\x82\xac", 3), 3);
	CHECK_INT(utf8_sequence("\xf0\x9f\x98\x80", 4), 4);
	CHECK_INT(utf8_sequence("\xc3", 1), 0);		/* cut short */
	CHECK_INT(utf8_sequence("\xc0\xaf", 2), 0);		/* overlong */
	CHECK_INT(utf8_sequence("\xe0\x80\xaf", 3), 0);	/* overlong */
	CHECK_INT(utf8_sequence("\xed\xa0\x80", 3), 0);	/* a surrogate */
	CHECK_INT(utf8_sequence("\xf4\x90\x80\x80", 4), 0);	/* past U+10FFFF */
	CHECK_INT(utf8_sequence("\xff", 1), 0);

	size_t n;
	CHECK(utf8_replace_invalid("ok \xc3\xa9", 5, &n) == NULL);
	char *fixed = utf8_replace_invalid("a\xff" "b\xc3", 4, &n);
	CHECK_STR(fixed, "a\xef\xbf\xbd" "b\xef\xbf\xbd");
	CHECK_INT(n, 8);
	free(fixed);
}

TEST(one_line)
{
	struct errbuf err;
	errbuf_set(&err, "bad '%s'", "x\ny");
	CHECK_STR(err.msg, "bad 'x y'");
}

/*
 * A message longer than an errbuf keeps its start and its end, where
 * the cause is; escapes count, and no character is cut in two.
 */
TEST(a_long_message_keeps_its_end)
{
	struct errbuf err;
	struct strbuf quote = STRBUF_INIT;
	size_t len;

	for (int i = 0; i < 400; i++)
		strbuf_adds(&quote, "\xc3\xa9\x1b");	/* é ESC: 2 bytes, and 2 escaped */
	errbuf_set(&err, "error parsing %s, unclosed action", quote.buf);
	len = strlen(err.msg);
	CHECKF(len < sizeof(err.msg) && len > sizeof(err.msg) - 8, "%zu bytes", len);
	CHECK(!strncmp(err.msg, "error parsing \xc3\xa9^[", 18));
	CHECK(strstr(err.msg, " ... ") != NULL);
	CHECK(len > 19 && !strcmp(err.msg + len - 19, "^[, unclosed action"));
	for (size_t i = 0, n; i < len; i += n)
		if (CHECK_FAILS(!(n = termsafe_utf8_len(err.msg + i, len - i)), "UTF-8"))
			break;
	strbuf_release(&quote);
}

/* buf is a NUL-terminated string at every step, and empty owns nothing. */
TEST(strbuf_always_a_string)
{
	struct strbuf sb = STRBUF_INIT, zeroed = { 0 }, hinted;
	char *s;

	CHECK(sb.buf != NULL);
	CHECK_STR(sb.buf, "");
	CHECK_INT(sb.alloc, 0);
	strbuf_reset(&sb);
	CHECK_STR(sb.buf, "");
	strbuf_addf(&sb, "%s-%d", "a", 1);
	CHECK_STR(sb.buf, "a-1");
	strbuf_setlen(&sb, 1);
	CHECK_STR(sb.buf, "a");
	strbuf_release(&sb);
	CHECK_STR(sb.buf, "");
	s = strbuf_detach(&sb, NULL);
	CHECK_STR(s, "");
	free(s);
	CHECK_STR(sb.buf, "");
	/* a zeroed struct: read through strbuf_str() until a call made it one */
	CHECK_STR(strbuf_str(&zeroed), "");
	strbuf_reset(&zeroed);
	CHECK_STR(zeroed.buf, "");
	strbuf_adds(&zeroed, "z");
	CHECK_STR(zeroed.buf, "z");
	strbuf_release(&zeroed);
	strbuf_init(&hinted, 100);
	CHECK(hinted.alloc > 100);
	CHECK_STR(hinted.buf, "");
	strbuf_release(&hinted);
	CHECK_STR(strbuf_slopbuf, "");
}

/* A cut text ends in "...", never inside a character. */
TEST(a_cut_is_marked)
{
	char buf[10];
	const char *long1 = "abcdefghijkl", *long2 = "abcde\xc3\xa9" "fghij";	/* é at 5-6 */

	memcpy(buf, long1, sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\0';
	str_mark_cut(buf, sizeof(buf), "...");
	CHECK_STR(buf, "abcdef...");
	memcpy(buf, long2, sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\0';
	str_mark_cut(buf, sizeof(buf), "...");
	CHECK_STR(buf, "abcde...");
}

TEST(trim_space_as_go)
{
	/* strings.TrimSpace: Unicode's white space, decoded; a byte that
	 * starts no valid sequence is U+FFFD, which is none. */
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ " \t\n\v\f\rtok\r\n", "tok" },
		{ "\xc2\xa0tok\xe3\x80\x80", "tok" },		/* U+00A0, U+3000 */
		{ "\xc2\x85tok\xe2\x80\xa9", "tok" },		/* U+0085, U+2029 */
		{ "\x85tok\xa0", "\x85tok\xa0" },		/* lone bytes: no space */
		{ "tok\xe3\x80", "tok\xe3\x80" },		/* a cut sequence */
		{ "\xe2\x80\x8btok", "\xe2\x80\x8btok" },	/* U+200B is no space */
		{ " \xc2\xa0 ", "" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *s = cases[i].in;
		size_t len = strlen(s);
		go_trim_space(&s, &len);
		CHECKF(len == strlen(cases[i].out) && !memcmp(s, cases[i].out, len),
		       "case %zu gave '%.*s'", i, (int)len, s);
	}
}

int main(void)
{
	RUN(sizes);
	RUN(durations);
	RUN(bad_durations);
	RUN(kubectl_timeouts);
	RUN(utf8_as_go_decodes_it);
	RUN(trim_space_as_go);
	RUN(one_line);
	RUN(a_long_message_keeps_its_end);
	RUN(strbuf_always_a_string);
	RUN(a_cut_is_marked);
	return unit_done();
}
