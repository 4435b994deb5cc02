/*
 * gofmt.c — json-c values as Go prints them; see gofmt.h.
 *
 * Floats are the work: Go prints the shortest digits that read back as
 * the same float64 (strconv's 'e', 'f' and 'g' with precision -1), which
 * C's printf has no format for, so the digits are found by trying
 * precisions until one reads back, then laid out as Go lays them out.
 */
#include "output/gofmt.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/strbuf.h"
#include "lib/util.h"

const char **gofmt_sorted_keys(struct json_object *obj, size_t *nr)
{
	size_t n = (size_t)json_object_object_length(obj), i = 0;
	const char **keys = xcalloc(n ? n : 1, sizeof(*keys));

	json_object_object_foreach(obj, k, v) {
		(void)v;
		keys[i++] = k;
	}
	qsort(keys, n, sizeof(*keys), strv_cmp);
	*nr = n;
	return keys;
}

/*
 * The shortest decimal digits that read back as d: digits[] without the
 * point, and the decimal exponent (d = 0.digits × 10^exp10).
 */
static void shortest_digits(double d, char digits[32], int *exp10)
{
	char buf[32];

	double_shortest_e(d, buf);	/* [-]D.DDDDe[+-]XX */
	const char *s = buf + (buf[0] == '-');
	char *e = strchr(buf, 'e');
	size_t n = 0;
	for (; s < e; s++)
		if (*s != '.')
			digits[n++] = *s;
	while (n > 1 && digits[n - 1] == '0')
		n--;
	digits[n] = '\0';
	*exp10 = atoi(e + 1) + 1;
}

void gofmt_float(double d, char fmt, struct strbuf *out)
{
	char digits[32];
	int dp;

	if (isnan(d)) {
		strbuf_adds(out, "NaN");
		return;
	}
	if (isinf(d)) {
		strbuf_adds(out, d > 0 ? "+Inf" : "-Inf");
		return;
	}
	if (signbit(d))
		strbuf_addch(out, '-');
	if (d == 0) {
		strbuf_adds(out, fmt == 'e' ? "0e+00" : "0");
		return;
	}
	shortest_digits(fabs(d), digits, &dp);
	int nd = (int)strlen(digits), exp = dp - 1;
	if (fmt == 'g')		/* shortest: %e from exponent 6 on, as Go */
		fmt = exp < -4 || exp >= 6 ? 'e' : 'f';
	if (fmt == 'e') {
		strbuf_addch(out, digits[0]);
		if (nd > 1)
			strbuf_addf(out, ".%s", digits + 1);
		strbuf_addf(out, "e%c%02d", exp < 0 ? '-' : '+', abs(exp));
		return;
	}
	if (dp <= 0) {
		strbuf_adds(out, "0.");
		for (int i = dp; i < 0; i++)
			strbuf_addch(out, '0');
		strbuf_adds(out, digits);
	} else if (dp >= nd) {
		strbuf_adds(out, digits);
		for (int i = nd; i < dp; i++)
			strbuf_addch(out, '0');
	} else {
		strbuf_addf(out, "%.*s.%s", dp, digits, digits + dp);
	}
}

void gofmt_marshal_string(const char *s, size_t len, struct strbuf *out)
{
	static const char hex[] = "0123456789abcdef";
	/* what encoding/json escapes by a letter (\b and \f: Go 1.22's) */
	static const char named[] = "\"\\\n\r\t\b\f", letters[] = "\"\\nrtbf";
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	strbuf_addch(out, '"');
	while (p < end) {
		unsigned char c = *p;
		if (c < 0x80) {
			const char *e = c ? strchr(named, c) : NULL;
			if (e) {
				strbuf_addch(out, '\\');
				strbuf_addch(out, letters[e - named]);
			} else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
				strbuf_adds(out, "\\u00");
				strbuf_addch(out, hex[c >> 4]);
				strbuf_addch(out, hex[c & 0xF]);
			} else {
				strbuf_addch(out, (char)c);
			}
			p++;
			continue;
		}
		size_t n = utf8_sequence((const char *)p, (size_t)(end - p));
		if (!n) {
			strbuf_adds(out, "\\ufffd");
			p++;
			continue;
		}
		if (n == 3 && c == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) {
			strbuf_adds(out, p[2] == 0xA8 ? "\\u2028" : "\\u2029");
		} else {
			strbuf_add(out, p, n);
		}
		p += n;
	}
	strbuf_addch(out, '"');
}

/* json.Marshal's float64: 'f', or 'e' below 1e-6 and from 1e21 on, "e-7" not "e-07". */
static void marshal_float(double d, struct strbuf *out)
{
	double a = fabs(d);
	size_t at = out->len;

	gofmt_float(d, a != 0 && (a < 1e-6 || a >= 1e21) ? 'e' : 'f', out);
	if (out->len - at >= 4 && out->buf[out->len - 4] == 'e' &&
	    out->buf[out->len - 3] == '-' && out->buf[out->len - 2] == '0') {
		out->buf[out->len - 2] = out->buf[out->len - 1];
		out->buf[--out->len] = '\0';
	}
}

/* MarshalIndent's line break and indent before an element (depth < 0: none). */
static void indent(struct strbuf *out, int depth)
{
	if (depth < 0)
		return;
	strbuf_addch(out, '\n');
	for (int i = 0; i < depth; i++)
		strbuf_adds(out, "    ");
}

/*
 * v as fmt's %v prints it (json false) or as json.Marshal writes it;
 * with depth >= 0, as json.MarshalIndent(v, "", "    ") at that depth.
 */
static void write_value(struct json_object *v, bool json, int depth, struct strbuf *out)
{
	int in = depth < 0 ? -1 : depth + 1;	/* the elements' depth */
	double d;
	size_t n;

	switch (json_object_get_type(v)) {
	case json_type_null:
		strbuf_adds(out, json ? "null" : "<nil>");
		break;
	case json_type_boolean:
		strbuf_adds(out, json_object_get_boolean(v) ? "true" : "false");
		break;
	case json_type_int:
		strbuf_adds(out, json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
		break;
	case json_type_double:
		d = json_object_get_double(v);
		if (json)
			marshal_float(d, out);
		else	/* %v: %g with the shortest digits (1e+06, 0.5) */
			gofmt_float(d, d == 0 ? 'f' : 'g', out);
		break;
	case json_type_string:
		if (json)
			gofmt_marshal_string(json_object_get_string(v),
					     (size_t)json_object_get_string_len(v), out);
		else
			strbuf_add(out, json_object_get_string(v),
				   (size_t)json_object_get_string_len(v));
		break;
	case json_type_array:
		n = json_object_array_length(v);
		strbuf_addch(out, '[');
		for (size_t i = 0; i < n; i++) {
			if (i)
				strbuf_addch(out, json ? ',' : ' ');
			indent(out, in);
			write_value(json_object_array_get_idx(v, i), json, in, out);
		}
		if (n)
			indent(out, depth);
		strbuf_addch(out, ']');
		break;
	case json_type_object: {
		const char **keys = gofmt_sorted_keys(v, &n);
		strbuf_adds(out, json ? "{" : "map[");
		for (size_t i = 0; i < n; i++) {
			if (i)
				strbuf_addch(out, json ? ',' : ' ');
			indent(out, in);
			if (json)
				gofmt_marshal_string(keys[i], strlen(keys[i]), out);
			else
				strbuf_adds(out, keys[i]);
			strbuf_adds(out, depth >= 0 ? ": " : ":");
			write_value(json_object_object_get(v, keys[i]), json, in, out);
		}
		if (n)
			indent(out, depth);
		strbuf_addch(out, json ? '}' : ']');
		free(keys);
		break;
	}
	}
}

void gofmt_print(struct json_object *v, struct strbuf *out)
{
	write_value(v, false, -1, out);
}

void gofmt_marshal(struct json_object *v, struct strbuf *out)
{
	write_value(v, true, -1, out);
}

void gofmt_marshal_indent(struct json_object *v, struct strbuf *out)
{
	write_value(v, true, 0, out);
}

const char *gofmt_type(struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null: return "<nil>";
	case json_type_boolean: return "bool";
	case json_type_int: return "int64";
	case json_type_double: return "float64";
	case json_type_string: return "string";
	case json_type_array: return "[]interface {}";
	case json_type_object: return "map[string]interface {}";
	}
	return "?";
}

/*
 * strconv.IsPrint: letters, marks, numbers, punctuation and symbols, and
 * the ASCII space.  What it refuses beyond ASCII: the C1 controls, the
 * spaces and separators, the format characters, surrogates, private use
 * and the noncharacters U+FFFE and U+FFFF.  (Other code points that no
 * Unicode version assigns yet count as printable here.)
 */
bool gofmt_is_print(uint32_t r)
{
	static const uint32_t not_print[][2] = {
		{ 0x00, 0x1f }, { 0x7f, 0xa0 }, { 0xad, 0xad }, { 0x600, 0x605 },
		{ 0x61c, 0x61c }, { 0x6dd, 0x6dd }, { 0x70f, 0x70f }, { 0x890, 0x891 },
		{ 0x8e2, 0x8e2 }, { 0x1680, 0x1680 }, { 0x180e, 0x180e }, { 0x2000, 0x200f },
		{ 0x2028, 0x202f }, { 0x205f, 0x2064 }, { 0x2066, 0x206f }, { 0x3000, 0x3000 },
		{ 0xd800, 0xf8ff }, { 0xfeff, 0xfeff }, { 0xfff9, 0xfffb }, { 0xfffe, 0xffff },
		{ 0x110bd, 0x110bd }, { 0x110cd, 0x110cd }, { 0x13430, 0x1343f },
		{ 0x1bca0, 0x1bca3 }, { 0x1d173, 0x1d17a }, { 0xe0001, 0xe0001 },
		{ 0xe0020, 0xe007f }, { 0xf0000, 0xffffffff },
	};

	for (size_t i = 0; i < sizeof(not_print) / sizeof(not_print[0]); i++)
		if (r >= not_print[i][0] && r <= not_print[i][1])
			return false;
	return true;
}

/* The control characters strconv writes (and reads) as a letter's escape. */
static const char strconv_named[] = "\a\b\f\n\r\t\v";
static const char strconv_letters[] = "abfnrtv";

void gofmt_quote_ex(const char *s, size_t len, char quote, bool ascii, struct strbuf *out)
{
	strbuf_addch(out, quote);
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		size_t n;
		uint32_t r = utf8_decode(s + i, len - i, &n);
		bool invalid = c >= 0x80 && n == 1;	/* a byte that starts no rune */
		const char *e = c ? strchr(strconv_named, c) : NULL;
		if (c == (unsigned char)quote || c == '\\')
			strbuf_addf(out, "\\%c", c);
		else if (invalid)
			strbuf_addf(out, "\\x%02x", c);
		else if (r < 0x80 ? c >= 0x20 && c != 0x7f : !ascii && gofmt_is_print(r))
			strbuf_add(out, s + i, n);
		else if (e)
			strbuf_addf(out, "\\%c", strconv_letters[e - strconv_named]);
		else if (r < 0x20 || r == 0x7f)
			strbuf_addf(out, "\\x%02x", (unsigned)r);
		else if (r < 0x10000)
			strbuf_addf(out, "\\u%04x", (unsigned)r);
		else
			strbuf_addf(out, "\\U%08x", (unsigned)r);
		i += n;
	}
	strbuf_addch(out, quote);
}

void gofmt_quote(const char *s, size_t len, struct strbuf *out)
{
	gofmt_quote_ex(s, len, '"', false, out);
}

/* Go's strconv.UnquoteChar for one escape or character; -1 on bad syntax. */
static int unquote_char(const char **sp, const char *end, char quote, struct strbuf *out)
{
	const char *s = *sp, *e;
	unsigned char c = (unsigned char)*s;

	if (c == (unsigned char)quote)
		return -1;
	if (c != '\\') {
		/* a whole UTF-8 sequence goes through unchanged */
		size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
		if ((size_t)(end - s) < n)
			n = (size_t)(end - s);
		strbuf_add(out, s, n);
		*sp = s + n;
		return 0;
	}
	if (++s >= end)
		return -1;
	c = (unsigned char)*s++;
	switch (c) {
	case '\\': strbuf_addch(out, '\\'); break;
	case '\'': case '"':
		if (c != (unsigned char)quote)
			return -1;
		strbuf_addch(out, (char)c);
		break;
	case 'x': case 'u': case 'U': {
		int n = c == 'x' ? 2 : c == 'u' ? 4 : 8;
		unsigned long v = 0;
		if (end - s < n)
			return -1;
		for (int i = 0; i < n; i++, s++) {
			if (!isxdigit((unsigned char)*s))
				return -1;
			v = v * 16 + (unsigned long)(isdigit((unsigned char)*s) ? *s - '0' :
						     (tolower((unsigned char)*s) - 'a' + 10));
		}
		if (c == 'x') {
			strbuf_addch(out, (char)v);
			break;
		}
		if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
			return -1;
		strbuf_add_utf8(out, (uint32_t)v);
		break;
	}
	case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
		unsigned v = c - '0';
		if (end - s < 2)
			return -1;
		for (int i = 0; i < 2; i++, s++) {
			if (*s < '0' || *s > '7')
				return -1;
			v = v * 8 + (unsigned)(*s - '0');
		}
		if (v > 255)
			return -1;
		strbuf_addch(out, (char)v);
		break;
	}
	default:
		if (!c || !(e = strchr(strconv_letters, c)))
			return -1;
		strbuf_addch(out, strconv_named[e - strconv_letters]);
	}
	*sp = s;
	return 0;
}

int gofmt_unquote(const char *s, size_t n, struct strbuf *out)
{
	const char *end;
	char q;

	if (n < 2 || s[0] != s[n - 1] || (s[0] != '"' && s[0] != '\''))
		return -1;
	q = s[0];
	end = s + n - 1;
	s++;
	if (!memchr(s, '\\', (size_t)(end - s)) && !memchr(s, q, (size_t)(end - s))) {
		strbuf_add(out, s, (size_t)(end - s));
		return 0;
	}
	while (s < end)
		if (unquote_char(&s, end, q, out) < 0)
			return -1;
	return 0;
}

enum go_kind gofmt_basic_kind(struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_boolean: return GO_KIND_BOOL;
	case json_type_int: return GO_KIND_INT;
	case json_type_double: return GO_KIND_FLOAT;
	case json_type_string: return GO_KIND_STRING;
	default: return GO_KIND_BAD;
	}
}

int gofmt_basic_cmp(enum go_kind k, struct json_object *a, struct json_object *b)
{
	switch (k) {
	case GO_KIND_BOOL: return json_object_get_boolean(a) - json_object_get_boolean(b);
	case GO_KIND_INT: {
		int64_t x = json_object_get_int64(a), y = json_object_get_int64(b);
		return x < y ? -1 : x > y;
	}
	case GO_KIND_FLOAT: {
		double x = json_object_get_double(a), y = json_object_get_double(b);
		return x < y ? -1 : x > y ? 1 : x == y ? 0 : 2;
	}
	default:
		return strcmp(json_object_get_string(a), json_object_get_string(b));
	}
}
