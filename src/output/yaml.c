/*
 * yaml.c — json-c trees through libyaml's emitter as go-yaml v2 writes
 * them; see yaml.h.
 *
 * Which scalars go-yaml quotes follows its resolve() (resolve.go): a
 * string that would resolve to a bool, null, int, float or timestamp
 * when read back unquoted is written double quoted, as encoder.stringv
 * does; the emitter itself (analyze_scalar, select_scalar_style) is
 * libyaml's own, the one go-yaml ported.
 */
#include "output/yaml.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <yaml.h>

#include "output/gofmt.h"
#include "lib/strbuf.h"
#include "lib/termsafe.h"
#include "lib/util.h"
#include "lib/yaml_plain.h"

/* ---- go-yaml's resolve() ------------------------------------------------- */

/* Up to max digits; returns how many were read into *v. */
static int digits(const char **s, int max, int *v)
{
	int n = 0;

	*v = 0;
	while (n < max && isdigit((unsigned char)**s)) {
		*v = *v * 10 + (**s - '0');
		(*s)++;
		n++;
	}
	return n;
}

/*
 * go-yaml's parseTimestamp: time.Parse with "2006-1-2T15:4:5.999999999Z07:00"
 * (or 't'), "2006-1-2 15:4:5.999999999" or "2006-1-2".
 */
static bool yaml_timestamp(const char *s)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	const char *p = s;
	int y, m, d, h, mi, sec;

	if (digits(&p, 4, &y) != 4 || *p++ != '-' || !digits(&p, 2, &m) ||
	    *p++ != '-' || !digits(&p, 2, &d))
		return false;
	if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1] ||
	    (m == 2 && d == 29 && !(y % 4 == 0 && (y % 100 || y % 400 == 0))))
		return false;
	if (!*p)
		return true;
	char sep = *p++;
	if (sep != 'T' && sep != 't' && sep != ' ')
		return false;
	if (!digits(&p, 2, &h) || *p++ != ':' || !digits(&p, 2, &mi) || *p++ != ':' ||
	    !digits(&p, 2, &sec) || h > 23 || mi > 59 || sec > 59)
		return false;
	if (*p == '.' || *p == ',') {
		int v;
		p++;
		if (!digits(&p, 9, &v))
			return false;
	}
	if (sep == ' ')
		return !*p;
	if (*p == 'Z')
		return !p[1];
	if (*p != '+' && *p != '-')
		return false;
	p++;
	return digits(&p, 2, &h) == 2 && *p++ == ':' && digits(&p, 2, &mi) == 2 && !*p;
}

/* ^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$ */
static bool base60_float(const char *s)
{
	const char *p = s;
	int groups = 0;

	if (*p == '+' || *p == '-')
		p++;
	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p) || *p == '_')
		p++;
	while (*p == ':') {
		p++;
		if (p[0] >= '0' && p[0] <= '5' && isdigit((unsigned char)p[1]))
			p += 2;
		else if (isdigit((unsigned char)*p))
			p++;
		else
			return false;
		groups++;
	}
	if (!groups)
		return false;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p) || *p == '_'; p++)
			;
	return !*p;
}

/*
 * Whether go-yaml writes s plain: it reads back as a string unquoted, and
 * is no base 60 float, which go-yaml quotes for other YAML 1.1 readers.
 */
static bool can_use_plain(const char *s)
{
	return !base60_float(s) && !yaml_timestamp(s) && yaml_plain_kind(s) == YAML_PLAIN_STRING;
}

/* ---- key order ----------------------------------------------------------- */

static size_t to_runes(const char *s, long **out)
{
	size_t len = strlen(s), i = 0, n = 0;
	long *r = xcalloc(len + 1, sizeof(*r));

	while (i < len) {
		size_t w;
		r[n++] = (long)utf8_decode(s + i, len - i, &w);
		i += w;
	}
	*out = r;
	return n;
}

/* unicode.IsLetter, for ASCII exactly; other runes above Latin-1 as letters. */
static bool is_letter(long r)
{
	if (r < 0x80)
		return isalpha((int)r);
	return r >= 0xC0 && r != 0xD7 && r != 0xF7;
}

static bool is_digit(long r)
{
	return r >= '0' && r <= '9';
}

/* go-yaml's keyList.Less for two string keys: negative when a < b. */
static int key_less(const char *a, const char *b)
{
	long *ar, *br;
	size_t an_ = to_runes(a, &ar), bn_ = to_runes(b, &br);
	int ret = an_ < bn_ ? -1 : an_ > bn_ ? 1 : 0;

	for (size_t i = 0; i < an_ && i < bn_; i++) {
		if (ar[i] == br[i])
			continue;
		bool al = is_letter(ar[i]), bl = is_letter(br[i]);
		if (al && bl) {
			ret = ar[i] < br[i] ? -1 : 1;
			break;
		}
		if (al || bl) {
			ret = bl ? -1 : 1;
			break;
		}
		/* Go's int64, which wraps on a long run of digits */
		uint64_t an = 0, bn = 0;
		size_t ai, bi;
		if (ar[i] == '0' || br[i] == '0') {
			for (size_t j = i; j-- > 0 && is_digit(ar[j]);) {
				if (ar[j] != '0') {
					an = bn = 1;
					break;
				}
			}
		}
		for (ai = i; ai < an_ && is_digit(ar[ai]); ai++)
			an = an * 10 + (uint64_t)(ar[ai] - '0');
		for (bi = i; bi < bn_ && is_digit(br[bi]); bi++)
			bn = bn * 10 + (uint64_t)(br[bi] - '0');
		if (an != bn)
			ret = (int64_t)an < (int64_t)bn ? -1 : 1;
		else if (ai != bi)
			ret = ai < bi ? -1 : 1;
		else
			ret = ar[i] < br[i] ? -1 : 1;
		break;
	}
	free(ar);
	free(br);
	return ret;
}

static int key_cmp(const void *a, const void *b)
{
	return key_less(*(const char *const *)a, *(const char *const *)b);
}

/* ---- numbers -------------------------------------------------------------- */

/*
 * kubectl's path for a number: the apiserver's JSON is decoded into an
 * int64 when it is one and a float64 otherwise; encoding/json writes the
 * float64 positionally below 1e21 (1e6 as 1000000) and in exponent form
 * from there; go-yaml reads that text back, as an int if it has the form
 * of one that fits, and writes a float with FormatFloat(f, 'g', -1).
 */

static void kubectl_number(struct json_object *v, struct strbuf *out)
{
	double d;

	if (json_object_is_type(v, json_type_int)) {
		/* json-c keeps one above INT64_MAX unsigned; kubectl, a float64. */
		if (json_object_get_int64(v) != INT64_MAX || json_object_get_uint64(v) <= INT64_MAX) {
			gofmt_print(v, out);
			return;
		}
		d = (double)json_object_get_uint64(v);
	} else {
		d = json_object_get_double(v);
	}
	if (isinf(d) || isnan(d)) {
		strbuf_adds(out, isnan(d) ? ".nan" : d > 0 ? ".inf" : "-.inf");
		return;
	}
	if (d == 0) {
		strbuf_addch(out, '0');	/* -0 too: json.Marshal's "-0" reads as the int 0 */
		return;
	}
	if (d == trunc(d) && fabs(d) < 1e21) {
		/* Written as an integer: go-yaml reads an int if one fits. */
		struct strbuf text = STRBUF_INIT;
		const char *limit = d < 0 ? "9223372036854775808" : "18446744073709551615";
		gofmt_float(fabs(d), 'f', &text);
		bool fits = text.len < strlen(limit) ||
			    (text.len == strlen(limit) && strcmp(text.buf, limit) <= 0);
		if (fits) {
			if (d < 0)
				strbuf_addch(out, '-');
			strbuf_add(out, text.buf, text.len);
		}
		strbuf_release(&text);
		if (fits)
			return;
	}
	gofmt_float(d, 'g', out);
}

/* ---- kubectl's JSON read back by go-yaml ---------------------------------- */

/* Whether p, before end, is U+0085 (NEL): a line break to YAML 1.1. */
static bool is_nel(const char *p, const char *end)
{
	return end - p >= 2 && (unsigned char)p[0] == 0xc2 && (unsigned char)p[1] == 0x85;
}

/* Whether s[0..len) has a character go-yaml's reader refuses. */
static bool go_reader_refuses(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i], d = i + 1 < len ? (unsigned char)s[i + 1] : 0;
		if (c == 0x7f || (c == 0xc2 && d >= 0x80 && d <= 0x9f && d != 0x85) ||
		    (c == 0xef && d == 0xbf && i + 2 < len && (unsigned char)s[i + 2] >= 0xbe))
			return true;
	}
	return false;
}

#define GO_YAML_ERR "yaml: "	/* kubectl 1.31 on; before, "error converting JSON to YAML: " first */

/* kubectl's error: its line as go-yaml names it (none when 0), then the problem. */
static int go_refuse(struct errbuf *err, size_t line, const char *problem)
{
	if (line)
		errbuf_set(err, "%sline %zu: %s", GO_YAML_ERR, line, problem);
	else
		errbuf_set(err, "%s%s", GO_YAML_ERR, problem);
	return -1;
}

/*
 * go-yaml's scanner over json.Marshal's text[0..len) (yaml.h): 0, or -1
 * with its error.  Outside strings the text is ASCII; inside, an escape
 * is ASCII too, and NEL and the space are the only break and blank
 * json.Marshal leaves raw.  line counts the breaks read, as go-yaml's
 * marks do; index, the characters.
 */
static int go_scan(const char *text, size_t len, struct errbuf *err)
{
	const char *p = text, *end = text + len;
	size_t line = 0, index = 0;

	if (go_reader_refuses(text, len))
		return go_refuse(err, 0, "control characters are not allowed");
	while (p < end) {
		if (*p++ != '"') {
			index++;
			continue;
		}
		size_t start = index++, line0 = line;
		while (p < end && *p != '"') {
			bool at_break = false;
			if (*p == '\\') {
				p += 2;
				index += 2;
				continue;
			}
			if (*p != ' ' && !is_nel(p, end)) {
				size_t n = utf8_sequence(p, (size_t)(end - p));
				p += n ? n : 1;
				index++;
				continue;
			}
			/* A run of blanks and breaks; after a break, column 0. */
			for (; p < end && (*p == ' ' || is_nel(p, end)); index++) {
				at_break = *p != ' ';
				line += at_break;
				p += at_break ? 2 : 1;
			}
			if (at_break && end - p >= 4 &&
			    (!memcmp(p, "---", 3) || !memcmp(p, "...", 3)) &&
			    (p[3] == ' ' || is_nel(p + 3, end)))
				return go_refuse(err, line + 1, "found unexpected document indicator");
		}
		p++;
		index++;
		/* A key is a simple key: on one line, its ':' within 1024 characters. */
		if (p < end && *p == ':' && (line != line0 || index - start > 1024))
			return go_refuse(err, line, "did not find expected ',' or '}'");
	}
	return 0;
}

/* go_scan() over obj's json.Marshal text, as kubectl's YAML printer reads it. */
static int go_read_check(struct json_object *obj, struct errbuf *err)
{
	struct strbuf text = STRBUF_INIT;

	gofmt_marshal(obj, &text);
	int rc = go_scan(text.buf, text.len, err);
	strbuf_release(&text);
	return rc;
}

/*
 * s[0..n) as go-yaml reads it back: each run of spaces and NELs that
 * holds a NEL folded, as a quoted scalar's line breaks are, to a space
 * for one NEL and to a newline for each after the first.  A new string
 * of *out_n bytes, or NULL when s has no NEL.
 */
static char *go_fold(const char *s, size_t n, size_t *out_n)
{
	const char *p = s, *end = s + n;
	struct strbuf sb = STRBUF_INIT;

	if (!memmem(s, n, "\xc2\x85", 2))
		return NULL;
	while (p < end) {
		const char *run = p;
		size_t breaks = 0;
		for (; p < end && (*p == ' ' || is_nel(p, end)); p += *p == ' ' ? 1 : 2)
			breaks += *p != ' ';
		if (!breaks)
			strbuf_add(&sb, run, (size_t)(p - run));
		else if (breaks == 1)
			strbuf_addch(&sb, ' ');
		else
			while (--breaks)
				strbuf_addch(&sb, '\n');
		for (run = p; p < end && *p != ' ' && !is_nel(p, end); p++)
			;
		strbuf_add(&sb, run, (size_t)(p - run));
	}
	*out_n = sb.len;
	return strbuf_detach(&sb, NULL);
}

/* ---- emitting ------------------------------------------------------------ */

static int write_cb(void *data, unsigned char *buffer, size_t size)
{
	strbuf_add(data, buffer, size);
	return 1;
}

/* s[0, len), which may hold NUL (json-c keeps it; libyaml escapes it). */
static int scalar_len(yaml_emitter_t *em, const char *s, size_t len, yaml_scalar_style_t style)
{
	yaml_event_t ev;

	if (len > INT32_MAX ||
	    !yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)len,
					  1, 1, style))
		return -1;
	return yaml_emitter_emit(em, &ev) ? 0 : -1;
}

static int scalar(yaml_emitter_t *em, const char *s, yaml_scalar_style_t style)
{
	return scalar_len(em, s, strlen(s), style);
}

/*
 * raw[0..len), NUL-terminated; invalid UTF-8 replaced as Go's json.Marshal
 * replaces it.  flags: yaml_emit()'s.
 */
static int string_scalar(yaml_emitter_t *em, const char *raw, size_t len, unsigned flags)
{
	size_t n = len;
	char *fixed = utf8_replace_invalid(raw, len, &n);
	const char *s = fixed ? fixed : raw;
	char *folded = flags & YAML_AS_KUBECTL ? go_fold(s, n, &n) : NULL;

	if (folded)
		s = folded;
	/*
	 * A NUL is escaped, "\0", which only a double-quoted scalar can; so
	 * is, for a terminal, what libyaml would leave raw (yaml_emit()).
	 */
	bool quote = memchr(s, '\0', n) ||
		     ((flags & YAML_TERMINAL) && !termsafe_is_safe(s, n, TERMSAFE_JSON));
	yaml_scalar_style_t style = quote ? YAML_DOUBLE_QUOTED_SCALAR_STYLE :
				    strchr(s, '\n') ? YAML_LITERAL_SCALAR_STYLE :
				    can_use_plain(s) ? YAML_PLAIN_SCALAR_STYLE :
				    YAML_DOUBLE_QUOTED_SCALAR_STYLE;
	int rc = scalar_len(em, s, n, style);

	free(fixed);
	free(folded);
	return rc;
}

static int emit_value(yaml_emitter_t *em, struct json_object *v, unsigned flags)
{
	yaml_event_t ev;
	struct strbuf sb = STRBUF_INIT;
	int rc = 0;

	switch (json_object_get_type(v)) {
	case json_type_null:
		return scalar(em, "null", YAML_PLAIN_SCALAR_STYLE);
	case json_type_boolean:
		return scalar(em, json_object_get_boolean(v) ? "true" : "false",
			      YAML_PLAIN_SCALAR_STYLE);
	case json_type_int:
	case json_type_double: {
		kubectl_number(v, &sb);
		rc = scalar(em, strbuf_str(&sb), YAML_PLAIN_SCALAR_STYLE);
		strbuf_release(&sb);
		return rc;
	}
	case json_type_string:
		return string_scalar(em, json_object_get_string(v),
				     (size_t)json_object_get_string_len(v), flags);
	case json_type_array:
		if (!yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
							  YAML_BLOCK_SEQUENCE_STYLE) ||
		    !yaml_emitter_emit(em, &ev))
			return -1;
		for (size_t i = 0; i < json_object_array_length(v); i++)
			if (emit_value(em, json_object_array_get_idx(v, i), flags) < 0)
				return -1;
		yaml_sequence_end_event_initialize(&ev);
		return yaml_emitter_emit(em, &ev) ? 0 : -1;
	case json_type_object: {
		size_t n = (size_t)json_object_object_length(v), i = 0;
		const char **keys = xcalloc(n ? n : 1, sizeof(*keys));
		json_object_object_foreach(v, k, m) {
			(void)m;
			keys[i++] = k;
		}
		qsort(keys, n, sizeof(*keys), key_cmp);
		if (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
							 YAML_BLOCK_MAPPING_STYLE) ||
		    !yaml_emitter_emit(em, &ev))
			rc = -1;
		for (i = 0; rc == 0 && i < n; i++)
			if (string_scalar(em, keys[i], strlen(keys[i]), flags) < 0 ||
			    emit_value(em, json_object_object_get(v, keys[i]), flags) < 0)
				rc = -1;
		free(keys);
		if (rc == 0) {
			yaml_mapping_end_event_initialize(&ev);
			rc = yaml_emitter_emit(em, &ev) ? 0 : -1;
		}
		return rc;
	}
	}
	return -1;
}

int yaml_emit(struct json_object *obj, struct strbuf *out, unsigned flags,
	      struct errbuf *err)
{
	bool terminal = flags & YAML_TERMINAL;
	yaml_emitter_t emitter, *em = &emitter;
	struct strbuf text = STRBUF_INIT;
	yaml_event_t ev;
	int ret = -1;

	if ((flags & YAML_AS_KUBECTL) && go_read_check(obj, err) < 0)
		return -1;
	if (!yaml_emitter_initialize(em)) {
		errbuf_set(err, "cannot start the YAML emitter");
		return -1;
	}
	yaml_emitter_set_output(em, write_cb, terminal ? &text : out);
	yaml_emitter_set_unicode(em, 1);
	yaml_emitter_set_width(em, 80);
	yaml_emitter_set_indent(em, 2);
	if (!yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) ||
	    !yaml_emitter_emit(em, &ev) ||
	    !yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) ||
	    !yaml_emitter_emit(em, &ev) ||
	    emit_value(em, obj, flags) < 0 ||
	    !yaml_document_end_event_initialize(&ev, 1) ||
	    !yaml_emitter_emit(em, &ev) ||
	    /* As go-yaml's encoder.finish(): no "..." after a |+ block. */
	    (em->open_ended = 0) ||
	    !yaml_stream_end_event_initialize(&ev) ||
	    !yaml_emitter_emit(em, &ev) ||
	    !yaml_emitter_flush(em)) {
		errbuf_set(err, "cannot write YAML: %s",
			   em->problem ? em->problem : "emitter error");
		goto out;
	}
	ret = 0;
	/* the strings with these are double-quoted, where \u escapes read back */
	if (terminal)
		strbuf_add_termsafe(out, text.buf, text.len, TERMSAFE_JSON);
out:
	yaml_emitter_delete(em);
	strbuf_release(&text);
	return ret;
}
