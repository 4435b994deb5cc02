/*
 * json_scan.c — a recursive-descent scanner of JSON text; see json_scan.h.
 *
 * Output: s->out receives the compact text.  Bytes from s->run up to the
 * cursor are pending: they will be copied as they are (json_scan_flush());
 * anything that must not be copied (whitespace, a cut member, a string to
 * rewrite) first flushes the run before it and then moves s->run past
 * itself.  While a value is skipped (a cut member), s->out is NULL.
 */
#include "lib/json_scan.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/strbuf.h"

/* 1: ends a fast run inside a string ('"', '\\', control characters). */
static const unsigned char string_stop[256] = {
	[0x00] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	[0x10] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['"'] = 1, ['\\'] = 1,
};

void json_scan_init(struct json_scan *s, const char *text, size_t len,
		    struct strbuf *out)
{
	memset(s, 0, sizeof(*s));
	s->p = s->run = text;
	s->end = text + len;
	s->out = out;
}

int json_scan_fail(struct json_scan *s, const char *why)
{
	if (!s->err)
		s->err = why;
	return -1;
}

bool json_scan_key_is(const char *key, size_t klen, const char *name)
{
	return strlen(name) == klen && !memcmp(key, name, klen);
}

void json_scan_flush(struct json_scan *s)
{
	if (s->out && s->p > s->run)
		strbuf_add(s->out, s->run, (size_t)(s->p - s->run));
	s->run = s->p;
}

size_t json_scan_pos(const struct json_scan *s)
{
	return s->out->len + (size_t)(s->p - s->run);
}

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

void json_scan_skip_ws(struct json_scan *s)
{
	if (s->p < s->end && is_ws(*s->p)) {
		json_scan_flush(s);
		while (s->p < s->end && is_ws(*s->p))
			s->p++;
		s->run = s->p;
	}
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static unsigned hex4(const char *p)
{
	return (unsigned)(hexval(p[0]) << 12 | hexval(p[1]) << 8 |
			  hexval(p[2]) << 4 | hexval(p[3]));
}

#define REPLACEMENT_CHAR 0xfffd

void json_scan_decode(const char *p, const char *end, struct strbuf *sb)
{
	unsigned high = 0;	/* a high surrogate waiting for its low one */

	while (p < end) {
		const char *q = p;

		while (q < end && *q != '\\')
			q++;
		if (q > p) {
			if (high)
				strbuf_add_utf8(sb, REPLACEMENT_CHAR), high = 0;
			strbuf_add(sb, p, (size_t)(q - p));
		}
		if (q >= end)
			break;
		char c = q[1];
		p = q + 2;
		if (c != 'u') {
			if (high)
				strbuf_add_utf8(sb, REPLACEMENT_CHAR), high = 0;
			strbuf_addch(sb, c == 'b' ? '\b' : c == 'f' ? '\f' :
				     c == 'n' ? '\n' : c == 'r' ? '\r' :
				     c == 't' ? '\t' : c);
			continue;
		}
		unsigned u = hex4(p);
		p += 4;
		if (high) {
			if (u >= 0xdc00 && u <= 0xdfff) {
				strbuf_add_utf8(sb, 0x10000 + ((high - 0xd800) << 10) + (u - 0xdc00));
				high = 0;
				continue;
			}
			strbuf_add_utf8(sb, REPLACEMENT_CHAR);
			high = 0;
		}
		if (u >= 0xd800 && u <= 0xdbff)
			high = u;
		else if (u >= 0xdc00 && u <= 0xdfff)
			strbuf_add_utf8(sb, REPLACEMENT_CHAR);
		else
			strbuf_add_utf8(sb, u);
	}
	if (high)
		strbuf_add_utf8(sb, REPLACEMENT_CHAR);
}

/* Appends bytes as json-c writes a string's content (JSON_C_TO_STRING_NOSLASHESCAPE). */
static void escape_as_json_c(struct strbuf *sb, const char *p, size_t len)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];
		const char *e = NULL;

		switch (c) {
		case '\b': e = "\\b"; break;
		case '\n': e = "\\n"; break;
		case '\r': e = "\\r"; break;
		case '\t': e = "\\t"; break;
		case '\f': e = "\\f"; break;
		case '"': e = "\\\""; break;
		case '\\': e = "\\\\"; break;
		}
		if (e) {
			strbuf_add(sb, e, 2);
		} else if (c < ' ') {
			char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf] };
			strbuf_add(sb, u, 6);
		} else {
			strbuf_addch(sb, (char)c);
		}
	}
}

int json_scan_string(struct json_scan *s, const char **text, const char **text_end,
		       bool *escaped)
{
	const char *q = s->p + 1, *end = s->end;
	/*
	 * rewrite: an escape json-c writes otherwise (\/ and \u); the others
	 * it writes as they are, so a string with only those is kept as it is
	 * (the managedFields' keys are full of \": decoding and escaping
	 * them again was a tenth of the flight recorder's fold).
	 */
	bool esc = false, rewrite = false;

	for (;;) {
		while (q < end && !string_stop[(unsigned char)*q])
			q++;
		if (q >= end)
			return json_scan_fail(s, "unterminated string");
		if (*q == '"')
			break;
		if (*q != '\\')
			return json_scan_fail(s, "control character in a string");
		esc = true;
		if (q + 1 >= end)
			return json_scan_fail(s, "unterminated string");
		switch (q[1]) {
		case '/':
			rewrite = true;
			/* fall through */
		case '"': case '\\': case 'b': case 'f': case 'n':
		case 'r': case 't':
			q += 2;
			break;
		case 'u':
			rewrite = true;
			if (end - q < 6 || hexval(q[2]) < 0 || hexval(q[3]) < 0 ||
			    hexval(q[4]) < 0 || hexval(q[5]) < 0)
				return json_scan_fail(s, "bad \\u escape in a string");
			q += 6;
			break;
		default:
			return json_scan_fail(s, "bad escape in a string");
		}
	}
	if (text) {
		*text = s->p + 1;
		*text_end = q;
	}
	if (escaped)
		*escaped = esc;
	if (rewrite && s->out) {
		/* Rewritten as json-c would write it. */
		struct strbuf dec = STRBUF_INIT;

		s->p++;		/* keep the opening quote */
		json_scan_flush(s);
		json_scan_decode(s->p, q, &dec);
		escape_as_json_c(s->out, dec.buf, dec.len);
		strbuf_release(&dec);
		s->run = q;	/* the closing quote */
	}
	s->p = q + 1;
	return 0;
}

static int expect_digits(struct json_scan *s)
{
	if (s->p >= s->end || *s->p < '0' || *s->p > '9')
		return json_scan_fail(s, "malformed number");
	while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
		s->p++;
	return 0;
}

/* Whether the number text[0..len) is beyond float64, as strconv.ParseFloat says. */
static bool beyond_float64(const char *text, size_t len)
{
	char *copy = xstrndup(text, len);
	bool inf = isinf(strtod(copy, NULL));

	free(copy);
	return inf;
}

/*
 * An integer that is no int64 (all digits, no fraction or exponent), as
 * client-go's unstructured objects read it (apimachinery's util/json,
 * convertNumber: a json.Number's Int64, else its Float64): a float64.  json-c would keep it as a uint64,
 * or saturate it (1e20 becoming 18446744073709551615), so the text gets
 * the float in the shortest form that reads back the same, with an
 * exponent so that json-c reads a double: 1e+20, 9.223372036854776e+18.
 */
static void int_as_float(struct json_scan *s, const char *start)
{
	char *copy = xstrndup(start, (size_t)(s->p - start)), num[32];

	double_shortest_e(strtod(copy, NULL), num);
	free(copy);
	const char *end = s->p;
	s->p = start;
	json_scan_flush(s);	/* what came before the number */
	strbuf_adds(s->out, num);
	s->p = s->run = end;
}

/* Whether the integer text[0..len) (digits, a sign perhaps) is beyond int64. */
static bool beyond_int64(const char *text, size_t len)
{
	char *copy = xstrndup(text, len);

	errno = 0;
	strtoll(copy, NULL, 10);
	free(copy);
	return errno == ERANGE;
}

static int scan_number(struct json_scan *s)
{
	const char *start = s->p;
	bool exponent = false, fraction = false;

	if (*s->p == '-')
		s->p++;
	if (s->p < s->end && *s->p == '0')
		s->p++;
	else if (expect_digits(s) < 0)
		return -1;
	/* No float64 is 309 integer digits long: only those, or an exponent, may overflow */
	bool long_int = s->p - start >= 309;
	if (s->p < s->end && *s->p == '.') {
		s->p++;
		if (expect_digits(s) < 0)
			return -1;
		fraction = true;
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		s->p++;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (expect_digits(s) < 0)
			return -1;
		exponent = true;
	}
	if (s->go_floats && (exponent || long_int) &&
	    beyond_float64(start, (size_t)(s->p - start))) {
		s->bad_number = start;
		s->bad_number_len = (size_t)(s->p - start);
		return json_scan_fail(s, "number out of range");
	}
	/* 19 characters hold every int64, sign included */
	if (s->go_floats && s->out && !exponent && !fraction && s->p - start >= 19 &&
	    beyond_int64(start, (size_t)(s->p - start)))
		int_as_float(s, start);
	return 0;
}

int json_scan_literal(struct json_scan *s, const char *word, size_t n)
{
	if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n))
		return json_scan_fail(s, "unexpected character");
	s->p += n;
	return 0;
}

static int enter(struct json_scan *s)
{
	if (++s->depth > JSON_SCAN_DEPTH)
		return json_scan_fail(s, "nested too deeply");
	s->p++;
	json_scan_skip_ws(s);
	return 0;
}

/* Past a member's value that is left out, and past its comma when it was
 * to be the object's first. */
static int cut_member(struct json_scan *s, size_t mark, bool first)
{
	struct strbuf *out = s->out;

	json_scan_flush(s);
	strbuf_setlen(out, mark);
	s->out = NULL;
	int rc = json_scan_value(s);
	s->out = out;
	s->run = s->p;
	if (rc < 0)
		return -1;
	json_scan_skip_ws(s);
	if (first && s->p < s->end && *s->p == ',') {
		s->p++;
		s->run = s->p;
		json_scan_skip_ws(s);
		return 1;	/* the comma is gone too */
	}
	return 0;
}

int json_scan_object(struct json_scan *s, json_scan_member_fn *fn, void *ctx)
{
	struct strbuf key = STRBUF_INIT;
	bool kept = false;	/* a member is in out already */
	size_t mark;
	int ret = -1;

	if (enter(s) < 0)
		return -1;
	if (s->p < s->end && *s->p == '}') {
		s->p++;
		s->depth--;
		return 0;
	}
	mark = s->out ? json_scan_pos(s) : 0;
	for (;;) {
		const char *k, *kend;
		bool escaped;
		int rc = 0;

		if (s->p >= s->end || *s->p != '"') {
			json_scan_fail(s, "expected a member name");
			goto out;
		}
		if (json_scan_string(s, &k, &kend, &escaped) < 0)
			goto out;
		json_scan_skip_ws(s);
		if (s->p >= s->end || *s->p != ':') {
			json_scan_fail(s, "expected ':' after a member name");
			goto out;
		}
		s->p++;
		json_scan_skip_ws(s);
		if (s->p >= s->end) {
			json_scan_fail(s, "unexpected end");
			goto out;
		}
		if (fn) {
			if (escaped) {
				strbuf_reset(&key);
				json_scan_decode(k, kend, &key);
				k = strbuf_str(&key);
				kend = k + key.len;
			}
			s->member_mark = mark;
			s->member_first = !kept;
			rc = fn(s, k, (size_t)(kend - k), ctx);
		}
		if (rc == JSON_SCAN_CUT && s->out) {
			rc = cut_member(s, mark, !kept);
			if (rc < 0)
				goto out;
			if (rc == 1) {	/* the next member comes first */
				mark = json_scan_pos(s);
				continue;
			}
		} else if (rc == 0 || rc == JSON_SCAN_CUT) {
			if (json_scan_value(s) < 0)
				goto out;
			kept = true;
		} else if (rc < 0) {
			goto out;
		} else {
			kept = true;
		}
		json_scan_skip_ws(s);
		if (s->p < s->end && *s->p == ',') {
			if (s->out)
				mark = json_scan_pos(s);
			s->p++;
			json_scan_skip_ws(s);
			continue;
		}
		if (s->p < s->end && *s->p == '}') {
			s->p++;
			break;
		}
		json_scan_fail(s, s->p < s->end ? "expected ',' or '}' in an object" : "unexpected end");
		goto out;
	}
	s->depth--;
	ret = 0;
out:
	strbuf_release(&key);
	return ret;
}

int json_scan_array(struct json_scan *s, json_scan_element_fn *fn, void *ctx)
{
	if (enter(s) < 0)
		return -1;
	if (s->p < s->end && *s->p == ']') {
		s->p++;
		s->depth--;
		return 0;
	}
	for (;;) {
		int rc = 0;

		if (s->p >= s->end)
			return json_scan_fail(s, "unexpected end");
		if (fn && (rc = fn(s, ctx)) < 0)
			return -1;
		if (rc == 0 && json_scan_value(s) < 0)
			return -1;
		json_scan_skip_ws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			json_scan_skip_ws(s);
			continue;
		}
		if (s->p < s->end && *s->p == ']') {
			s->p++;
			break;
		}
		return json_scan_fail(s, s->p < s->end ? "expected ',' or ']' in an array" : "unexpected end");
	}
	s->depth--;
	return 0;
}

int json_scan_value(struct json_scan *s)
{
	if (s->p >= s->end)
		return json_scan_fail(s, "unexpected end");
	switch (*s->p) {
	case '{':
		return json_scan_object(s, NULL, NULL);
	case '[':
		return json_scan_array(s, NULL, NULL);
	case '"':
		return json_scan_string(s, NULL, NULL, NULL);
	case 't':
		return json_scan_literal(s, "true", 4);
	case 'f':
		return json_scan_literal(s, "false", 5);
	case 'n':
		return json_scan_literal(s, "null", 4);
	default:
		if (*s->p == '-' || (*s->p >= '0' && *s->p <= '9'))
			return scan_number(s);
		return json_scan_fail(s, "unexpected character");
	}
}

struct json_object *json_scan_parse(const char *text, size_t len, json_scan_member_fn *fn,
				    void *ctx)
{
	struct strbuf out = STRBUF_INIT;
	struct json_object *obj = NULL;
	struct json_scan s;

	json_scan_init(&s, text, len, &out);
	s.go_floats = true;
	json_scan_skip_ws(&s);
	if ((fn && s.p < s.end && *s.p == '{' ? json_scan_object(&s, fn, ctx)
					       : json_scan_value(&s)) == 0) {
		json_scan_skip_ws(&s);
		json_scan_flush(&s);
		if (s.p == s.end)
			obj = json_parse_deep(strbuf_str(&out));
	}
	strbuf_release(&out);
	return obj;
}
