/*
 * jsonpath.c — kubectl's JSONPath: a parser into a tree of nodes and an
 * evaluator over json-c trees; see jsonpath.h.
 *
 * The parser follows client-go's Parser (parser.go) rune by rune, so that
 * what it accepts and the messages it gives are kubectl's; the evaluator
 * follows JSONPath.FindResults and the eval* functions of jsonpath.go,
 * with the forked text/template comparisons (Equal, Less) behind filters.
 * A value list holds json-c references; NULL in it is JSON null (Go's nil
 * interface), which every step but a map lookup skips, as Go's
 * template.Indirect() does.
 */
#include "output/jsonpath.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "output/gofmt.h"
#include "lib/strbuf.h"
#include "lib/util.h"

/* ---- nodes --------------------------------------------------------------- */

enum node_type {
	NODE_LIST, NODE_TEXT, NODE_FIELD, NODE_ARRAY, NODE_FILTER, NODE_INT,
	NODE_FLOAT, NODE_BOOL, NODE_WILDCARD, NODE_RECURSIVE, NODE_UNION,
	NODE_IDENTIFIER,
};

struct param {
	long long value;
	bool known, derived;
};

struct node {
	enum node_type type;
	char *text;		/* TEXT, FIELD, IDENTIFIER; FILTER: the operator */
	long long ival;
	double fval;
	bool bval;
	struct param params[3];	/* ARRAY */
	/* LIST: its nodes; UNION: lists; FILTER: left and right lists */
	struct node **kids;
	size_t nr, alloc;
};

struct jsonpath {
	struct node *root;	/* a LIST of TEXT and LIST nodes */
};

static struct node *node_new(enum node_type type)
{
	struct node *n = xcalloc(1, sizeof(*n));

	n->type = type;
	return n;
}

static void node_free(struct node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nr; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n->text);
	free(n);
}

static void node_add(struct node *list, struct node *n)
{
	ALLOC_GROW(list->kids, list->nr + 1, list->alloc);
	list->kids[list->nr++] = n;
}

static struct node *text_node(enum node_type type, const char *s, size_t len)
{
	struct node *n = node_new(type);

	n->text = xstrndup(s, len);
	return n;
}

/* ---- the parser ---------------------------------------------------------- */

#define EOF_RUNE (-1)

struct parser {
	const char *in;
	size_t len, pos, start, width;
	struct node *root;
	struct errbuf *err;
};

/* The next rune (a byte of invalid UTF-8 reads as U+FFFD, as in Go). */
static long next_rune(struct parser *p)
{
	size_t w;
	long r = (long)utf8_decode(p->in + p->pos, p->len - p->pos, &w);

	p->width = w;
	p->pos += w;
	return w ? r : EOF_RUNE;
}

static void backup(struct parser *p)
{
	p->pos -= p->width;
}

static long peek_rune(struct parser *p)
{
	long r = next_rune(p);

	backup(p);
	return r;
}

static bool has_prefix(const struct parser *p, const char *prefix)
{
	size_t n = strlen(prefix);

	return p->len - p->pos >= n && !memcmp(p->in + p->pos, prefix, n);
}

/* The text since the last consume. */
static char *consume(struct parser *p, size_t *len)
{
	char *s = xstrndup(p->in + p->start, p->pos - p->start);

	if (len)
		*len = p->pos - p->start;
	p->start = p->pos;
	return s;
}

static void skip(struct parser *p)
{
	p->start = p->pos;
}

static bool is_space(long r)
{
	return r == ' ' || r == '\t';
}

static bool is_eol(long r)
{
	return r == '\r' || r == '\n';
}

/* Go's unicode.IsLetter/IsDigit, approximated: ASCII, or any non-ASCII rune. */
static bool is_alnum(long r)
{
	return r == '_' || (r >= 0 && r < 0x80 && isalnum((int)r)) || r >= 0x80;
}

static bool is_digit(long r)
{
	return r >= '0' && r <= '9';
}

static bool is_terminator(long r)
{
	if (is_space(r) || is_eol(r))
		return true;
	switch (r) {
	case EOF_RUNE: case '.': case ',': case '[': case ']': case '$': case '@':
	case '{': case '}':
		return true;
	}
	return false;
}

static int fail(struct parser *p, const char *fmt, ...) PRINTF(2, 3);
static int fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	errbuf_set(p->err, "%s", msg);
	free(msg);
	return -1;
}

static int parse_action_text(const char *text, size_t len, struct node **out,
			     struct errbuf *err);

static int parse_inside(struct parser *p, struct node *cur);

static int parse_field(struct parser *p, struct node *cur)
{
	size_t len;
	char *v;

	skip(p);
	for (;;) {
		long r = next_rune(p);
		if (r == '\\') {
			next_rune(p);
		} else if (is_terminator(r)) {
			backup(p);
			break;
		}
	}
	v = consume(p, &len);
	if (!strcmp(v, "*")) {
		node_add(cur, node_new(NODE_WILDCARD));
	} else {
		char *d = v;
		for (char *s = v; *s; s++)
			if (*s != '\\')
				*d++ = *s;
		*d = '\0';
		node_add(cur, text_node(NODE_FIELD, v, strlen(v)));
	}
	free(v);
	return 0;
}

static int parse_identifier(struct parser *p, struct node *cur)
{
	size_t len;
	char *v;

	while (!is_terminator(next_rune(p)))
		;
	backup(p);
	v = consume(p, &len);
	if (!strcmp(v, "true") || !strcmp(v, "false")) {
		struct node *n = node_new(NODE_BOOL);
		n->bval = !strcmp(v, "true");
		node_add(cur, n);
	} else {
		node_add(cur, text_node(NODE_IDENTIFIER, v, len));
	}
	free(v);
	return 0;
}

static int parse_number(struct parser *p, struct node *cur)
{
	long r = peek_rune(p);
	char *v, *end;
	int ret = 0;

	if (r == '+' || r == '-')
		next_rune(p);
	for (;;) {
		r = next_rune(p);
		if (r != '.' && !is_digit(r)) {
			backup(p);
			break;
		}
	}
	v = consume(p, NULL);
	errno = 0;
	long long i = strtoll(v, &end, 10);
	if (*v && !*end && !errno && strcmp(v, "+") && strcmp(v, "-")) {
		struct node *n = node_new(NODE_INT);
		n->ival = i;
		node_add(cur, n);
	} else {
		double d = strtod(v, &end);
		if (*v && end != v && !*end) {
			struct node *n = node_new(NODE_FLOAT);
			n->fval = d;
			node_add(cur, n);
		} else {
			ret = fail(p, "cannot parse number %s", v);
		}
	}
	free(v);
	return ret;
}

/* One part of a slice "[a:b:c]": an optional '-' and digits. */
static size_t slice_part(const char *s)
{
	size_t n = *s == '-';

	while (is_digit(s[n]))
		n++;
	return n;
}

/* kubectl's slice regex ^(-?\d*)(:-?\d*)?(:-?\d*)?$ and its params. */
static int parse_slice(struct parser *p, const char *text, struct param params[3])
{
	const char *group[3] = { "", "", "" };
	size_t glen[3] = { 0, 0, 0 };
	const char *s = text;

	group[0] = s, glen[0] = slice_part(s), s += glen[0];
	for (int g = 1; g < 3 && *s == ':'; g++) {
		group[g] = s;
		glen[g] = 1 + slice_part(s + 1);
		s += glen[g];
	}
	if (*s)
		return fail(p, "invalid array index %s", text);
	for (int i = 0; i < 3; i++) {
		const char *v = group[i];
		size_t n = glen[i];
		memset(&params[i], 0, sizeof(params[i]));
		if (n) {
			if (i > 0)
				v++, n--;
			if (i > 0 && !n) {
				params[i].known = false;
			} else {
				char buf[32], *end;
				snprintf(buf, sizeof(buf), "%.*s", (int)n, v);
				errno = 0;
				params[i].value = strtoll(buf, &end, 10);
				if (!*buf || *end || errno || !strcmp(buf, "-") || n >= sizeof(buf))
					return fail(p, "array index %s is not a number", buf);
				params[i].known = true;
			}
		} else if (i == 1) {
			params[i].known = true;
			params[i].value = params[0].value + 1;
			params[i].derived = true;
		}
	}
	return 0;
}

static int parse_array(struct parser *p, struct node *cur)
{
	size_t len;
	char *raw, *text;
	int ret = 0;

	for (;;) {
		long r = next_rune(p);
		if (r == EOF_RUNE || r == '\n')
			return fail(p, "unterminated array");
		if (r == ']')
			break;
	}
	raw = consume(p, &len);
	text = xstrndup(raw + 1, len - 2);
	free(raw);
	if (!strcmp(text, "*")) {
		free(text);
		text = xstrdup(":");
	}
	if (strchr(text, ',')) {
		struct node *u = node_new(NODE_UNION);
		node_add(cur, u);
		for (char *part = text, *comma; part; part = comma ? comma + 1 : NULL) {
			comma = strchr(part, ',');
			size_t n = comma ? (size_t)(comma - part) : strlen(part);
			while (n && *part == ' ')
				part++, n--;
			while (n && part[n - 1] == ' ')
				n--;
			char *sub = xasprintf("[%.*s]", (int)n, part);
			struct node *list;
			ret = parse_action_text(sub, strlen(sub), &list, p->err);
			free(sub);
			if (ret < 0)
				goto out;
			node_add(u, list);
		}
		goto out;
	}
	size_t tl = strlen(text);
	if (tl >= 2 && text[0] == '\'' && text[tl - 1] == '\'' &&
	    !memchr(text + 1, '\'', tl - 2)) {
		char *sub = xasprintf(".%.*s", (int)(tl - 2), text + 1);
		struct node *list;
		ret = parse_action_text(sub, strlen(sub), &list, p->err);
		free(sub);
		if (ret < 0)
			goto out;
		for (size_t i = 0; i < list->nr; i++)
			node_add(cur, list->kids[i]);
		list->nr = 0;
		node_free(list);
		goto out;
	}
	struct node *a = node_new(NODE_ARRAY);
	if ((ret = parse_slice(p, text, a->params)) < 0)
		node_free(a);
	else
		node_add(cur, a);
out:
	free(text);
	return ret;
}

static bool is_op_char(char c)
{
	return c == '!' || c == '<' || c == '>' || c == '=';
}

static int parse_filter(struct parser *p, struct node *cur)
{
	bool begin = false, end = false;
	long pair = 0;
	size_t len;
	char *text;
	int ret = -1;

	p->pos += 3;
	skip(p);
	for (;;) {
		long r = next_rune(p);
		if (r == EOF_RUNE || r == '\n')
			return fail(p, "unterminated filter");
		if (r == '"' || r == '\'') {
			if (!begin) {
				begin = true;
				pair = r;
				continue;
			}
			if (p->in[p->pos - 2] != '\\' && r == pair)
				end = true;
		} else if (r == ')' && begin == end) {
			break;
		}
	}
	if (next_rune(p) != ']')
		return fail(p, "unclosed array expect ]");
	text = consume(p, &len);
	len -= 2;
	text[len] = '\0';

	/* ^([^!<>=]+)([!<>=]+)(.+?)$ */
	size_t l = 0, o;
	while (l < len && !is_op_char(text[l]))
		l++;
	o = l;
	while (o < len && is_op_char(text[o]))
		o++;
	if (o == len && o - l >= 2)
		o--;
	struct node *f = node_new(NODE_FILTER), *left = NULL, *right = NULL;
	if (l == 0 || o == l || o == len) {
		if (parse_action_text(text, len, &left, p->err) < 0)
			goto out;
		right = node_new(NODE_LIST);
		f->text = xstrdup("exists");
	} else {
		if (parse_action_text(text, l, &left, p->err) < 0 ||
		    parse_action_text(text + o, len - o, &right, p->err) < 0)
			goto out;
		f->text = xstrndup(text + l, o - l);
	}
	node_add(f, left);
	node_add(f, right);
	left = right = NULL;
	node_add(cur, f);
	f = NULL;
	ret = 0;
out:
	node_free(left);
	node_free(right);
	node_free(f);
	free(text);
	return ret;
}

static int parse_quote(struct parser *p, struct node *cur, long quote)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len;
	char *v;
	int ret = 0;

	for (;;) {
		long r = next_rune(p);
		if (r == EOF_RUNE || r == '\n')
			return fail(p, "unterminated quoted string");
		if (r == quote && p->in[p->pos - 2] != '\\')
			break;
	}
	v = consume(p, &len);
	if (gofmt_unquote(v, len, &sb) < 0) {
		ret = fail(p, "unquote string %s error invalid syntax", v);
	} else {
		struct node *n = node_new(NODE_TEXT);
		n->text = xstrndup(strbuf_str(&sb), sb.len);
		node_add(cur, n);
	}
	strbuf_release(&sb);
	free(v);
	return ret;
}

static int parse_recursive(struct parser *p, struct node *cur)
{
	if (cur->nr && cur->kids[cur->nr - 1]->type == NODE_RECURSIVE)
		return fail(p, "invalid multiple recursive descent");
	p->pos += 2;
	skip(p);
	node_add(cur, node_new(NODE_RECURSIVE));
	if (is_alnum(peek_rune(p)))
		return parse_field(p, cur);
	return 0;
}

/*
 * Inside "{…}": one item after another until the closing brace (returns
 * 1) or an error (-1).
 */
static int parse_inside(struct parser *p, struct node *cur)
{
	for (;;) {
		int rc = 0;
		if (has_prefix(p, "}")) {
			p->pos++;
			skip(p);
			return 1;
		}
		if (has_prefix(p, "[?(")) {
			rc = parse_filter(p, cur);
		} else if (has_prefix(p, "..")) {
			rc = parse_recursive(p, cur);
		} else {
			long r = next_rune(p);
			if (r == EOF_RUNE || is_eol(r))
				return fail(p, "unclosed action");
			else if (r == ' ' || r == '@' || r == '$')
				skip(p);
			else if (r == '[')
				rc = parse_array(p, cur);
			else if (r == '"' || r == '\'')
				rc = parse_quote(p, cur, r);
			else if (r == '.')
				rc = parse_field(p, cur);
			else if (r == '+' || r == '-' || is_digit(r)) {
				backup(p);
				rc = parse_number(p, cur);
			} else if (is_alnum(r)) {
				backup(p);
				rc = parse_identifier(p, cur);
			} else if (r < 0x80)
				return fail(p, "unrecognized character in action: U+%04lX '%c'", r, (int)r);
			else
				return fail(p, "unrecognized character in action: U+%04lX '%.*s'", r,
					    (int)p->width, p->in + p->pos - p->width);
		}
		if (rc < 0)
			return -1;
	}
}

static int parse_text(struct parser *p)
{
	for (;;) {
		const char *brace = memchr(p->in + p->pos, '{', p->len - p->pos);
		if (!brace)
			break;
		p->pos = (size_t)(brace - p->in);
		if (p->pos > p->start) {
			size_t len;
			char *t = consume(p, &len);
			struct node *n = node_new(NODE_TEXT);
			n->text = t;
			node_add(p->root, n);
		}
		p->pos++;
		skip(p);
		struct node *list = node_new(NODE_LIST);
		node_add(p->root, list);
		if (parse_inside(p, list) < 0)
			return -1;
	}
	p->pos = p->len;
	if (p->pos > p->start) {
		struct node *n = node_new(NODE_TEXT);
		n->text = consume(p, NULL);
		node_add(p->root, n);
	}
	return 0;
}

static int parse_all(const char *text, size_t len, struct node **root, struct errbuf *err)
{
	struct parser p = { .in = text, .len = len, .err = err };

	p.root = node_new(NODE_LIST);
	if (parse_text(&p) < 0) {
		node_free(p.root);
		return -1;
	}
	*root = p.root;
	return 0;
}

/* client-go's parseAction: "{text}" parsed, its first list returned. */
static int parse_action_text(const char *text, size_t len, struct node **out,
			     struct errbuf *err)
{
	char *wrapped = xasprintf("{%.*s}", (int)len, text);
	struct node *root;
	int rc = parse_all(wrapped, strlen(wrapped), &root, err);

	free(wrapped);
	if (rc < 0)
		return -1;
	*out = root->kids[0];
	root->kids[0] = NULL;
	node_free(root);
	return 0;
}

struct jsonpath *jsonpath_parse(const char *text, struct errbuf *err)
{
	struct node *root;

	if (parse_all(text, strlen(text), &root, err) < 0)
		return NULL;
	struct jsonpath *jp = xcalloc(1, sizeof(*jp));
	jp->root = root;
	return jp;
}

void jsonpath_free(struct jsonpath *jp)
{
	if (!jp)
		return;
	node_free(jp->root);
	free(jp);
}

/* ---- value lists ---------------------------------------------------------- */

struct vals {
	struct json_object **v;
	size_t nr, alloc;
};

/* Appends a new reference to v (NULL: JSON null). */
static void vals_add(struct vals *l, struct json_object *v)
{
	ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	l->v[l->nr++] = json_object_get(v);
}

/* Appends v, whose reference the list takes over. */
static void vals_take(struct vals *l, struct json_object *v)
{
	ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	l->v[l->nr++] = v;
}

static void vals_release(struct vals *l)
{
	for (size_t i = 0; i < l->nr; i++)
		json_object_put(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static void vals_copy(struct vals *dst, const struct vals *src)
{
	for (size_t i = 0; i < src->nr; i++)
		vals_add(dst, src->v[i]);
}

static void vals_move(struct vals *dst, struct vals *src)
{
	vals_release(dst);
	*dst = *src;
	memset(src, 0, sizeof(*src));
}

void jsonpath_print_value(struct json_object *v, struct strbuf *out)
{
	if (!v)
		strbuf_adds(out, "null");	/* kubectl 1.29 on; "<nil>" before */
	else if (json_object_is_type(v, json_type_object) || json_object_is_type(v, json_type_array))
		gofmt_marshal(v, out);
	else
		gofmt_print(v, out);
}

/* ---- evaluation ----------------------------------------------------------- */

struct eval {
	bool allow_missing;
	struct errbuf *err;
	bool ranged;		/* the last list walked began with "range" */
	int depth;		/* ranges entered */
	size_t steps, budget;	/* actions walked, and how many may be (over_budget()) */
	size_t values;		/* in data, once counted (0: not yet) */
	struct json_object *data;	/* what the run is on */
	struct node *const *root;	/* the template's actions */
	size_t from;		/* where the next run starts (jsonpath_execute()) */
};

/*
 * A walk that fails leaves in out what client-go's returns beside its
 * error (an exists filter takes those as found): mostly its input, as
 * here.  -1.
 */
static int fail_with_input(struct vals *out, const struct vals *in)
{
	vals_release(out);
	vals_copy(out, in);
	return -1;
}

static int walk(struct eval *e, const struct vals *in, const struct node *n, struct vals *out);

/* evalList: a step that fails ends it with that step's values */
static int eval_list(struct eval *e, const struct vals *in, const struct node *list,
		     struct vals *out)
{
	struct vals cur = { 0 };

	vals_copy(&cur, in);
	for (size_t i = 0; i < list->nr; i++) {
		struct vals next = { 0 };
		int rc = walk(e, &cur, list->kids[i], &next);
		vals_move(&cur, &next);
		if (rc < 0) {
			vals_move(out, &cur);
			return -1;
		}
	}
	vals_move(out, &cur);
	return 0;
}

static int eval_field(struct eval *e, const struct vals *in, const struct node *n,
		      struct vals *out)
{
	if (!in->nr)
		return 0;
	for (size_t i = 0; i < in->nr; i++) {
		struct json_object *v = in->v[i], *m;
		if (json_object_is_type(v, json_type_object) &&
		    json_object_object_get_ex(v, n->text, &m))
			vals_add(out, m);
	}
	if (!out->nr && !e->allow_missing) {
		errbuf_set(e->err, "%s is not found", n->text);
		return -1;
	}
	return 0;
}

static int eval_array(struct eval *e, const struct vals *in, const struct node *n,
		      struct vals *out)
{
	for (size_t i = 0; i < in->nr; i++) {
		struct json_object *v = in->v[i];
		struct param p[3];
		long long len;

		if (!v)
			continue;
		if (!json_object_is_type(v, json_type_array)) {
			errbuf_set(e->err, "%s is not array or slice", gofmt_type(v));
			return fail_with_input(out, in);
		}
		len = (long long)json_object_array_length(v);
		memcpy(p, n->params, sizeof(p));
		if (!p[0].known)
			p[0].value = 0;
		if (p[0].value < 0)
			p[0].value += len;
		if (!p[1].known)
			p[1].value = len;
		if (p[1].value < 0 || (p[1].value == 0 && p[1].derived))
			p[1].value += len;
		if (p[1].value == p[0].value)
			return 0;
		if (p[0].value >= len || p[0].value < 0) {
			errbuf_set(e->err, "array index out of bounds: index %lld, length %lld",
				   p[0].value, len);
			return fail_with_input(out, in);
		}
		if (p[1].value > len || p[1].value < 0) {
			errbuf_set(e->err, "array index out of bounds: index %lld, length %lld",
				   p[1].value - 1, len);
			return fail_with_input(out, in);
		}
		if (p[0].value > p[1].value) {
			errbuf_set(e->err, "starting index %lld is greater than ending index %lld",
				   p[0].value, p[1].value);
			return fail_with_input(out, in);
		}
		long long step = 1;
		if (p[2].known) {
			if (p[2].value <= 0) {
				errbuf_set(e->err, "step must be > 0");
				return fail_with_input(out, in);
			}
			step = p[2].value;
		}
		for (long long j = p[0].value; j < p[1].value; j += step)
			vals_add(out, json_object_array_get_idx(v, (size_t)j));
	}
	return 0;
}

/*
 * The children of v, in order: an array's elements, an object's members
 * by key, a string's bytes as numbers (Go's reflect indexes strings so).
 */
static void children(struct json_object *v, struct vals *out)
{
	if (json_object_is_type(v, json_type_string)) {
		const char *s = json_object_get_string(v);
		for (int i = 0; i < json_object_get_string_len(v); i++)
			vals_take(out, json_object_new_int((unsigned char)s[i]));
	} else if (json_object_is_type(v, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(v); i++)
			vals_add(out, json_object_array_get_idx(v, i));
	} else if (json_object_is_type(v, json_type_object)) {
		size_t n;
		const char **keys = gofmt_sorted_keys(v, &n);
		for (size_t i = 0; i < n; i++)
			vals_add(out, json_object_object_get(v, keys[i]));
		free(keys);
	}
}

static void eval_wildcard(const struct vals *in, struct vals *out)
{
	for (size_t i = 0; i < in->nr; i++)
		if (in->v[i])
			children(in->v[i], out);
}

static void eval_recursive(const struct vals *in, struct vals *out)
{
	for (size_t i = 0; i < in->nr; i++) {
		struct vals kids = { 0 };
		if (!in->v[i])
			continue;
		children(in->v[i], &kids);
		if (kids.nr) {
			vals_add(out, in->v[i]);
			eval_recursive(&kids, out);
		}
		vals_release(&kids);
	}
}

/* template.Equal and template.Less: 0 or 1, or -1 with err set. */
static int compare(struct eval *e, struct json_object *a, struct json_object *b, bool less)
{
	enum go_kind ka = gofmt_basic_kind(a), kb = gofmt_basic_kind(b);

	if (ka == GO_KIND_BAD || kb == GO_KIND_BAD || (less && ka == GO_KIND_BOOL && kb == ka)) {
		errbuf_set(e->err, "invalid type for comparison");
		return -1;
	}
	if (ka != kb) {
		errbuf_set(e->err, "incompatible types for comparison");
		return -1;
	}
	int c = gofmt_basic_cmp(ka, a, b);
	return less ? c < 0 : c == 0;
}

static int apply_operator(struct eval *e, const char *op, struct json_object *l,
			  struct json_object *r)
{
	int eq, lt;

	if (!strcmp(op, "==") || !strcmp(op, "!=")) {
		if ((eq = compare(e, l, r, false)) < 0)
			return -1;
		return op[0] == '=' ? eq : !eq;
	}
	if (strcmp(op, "<") && strcmp(op, ">") && strcmp(op, "<=") && strcmp(op, ">=")) {
		errbuf_set(e->err, "unrecognized filter operator %s", op);
		return -1;
	}
	if ((lt = compare(e, l, r, true)) < 0)
		return -1;
	if (!strcmp(op, "<"))
		return lt;
	if (!strcmp(op, ">="))
		return !lt;
	if ((eq = compare(e, l, r, false)) < 0)
		return -1;
	return !strcmp(op, "<=") ? lt || eq : !(lt || eq);
}

static int eval_filter(struct eval *e, const struct vals *in, const struct node *n,
		       struct vals *out)
{
	const struct node *left = n->kids[0], *right = n->kids[1];

	for (size_t i = 0; i < in->nr; i++) {
		struct json_object *v = in->v[i];
		if (!json_object_is_type(v, json_type_array)) {
			struct strbuf sb = STRBUF_INIT;
			if (v)
				gofmt_print(v, &sb);
			else
				strbuf_adds(&sb, "<invalid reflect.Value>");
			errbuf_set(e->err, "%s is not array or slice and cannot be filtered",
				   strbuf_str(&sb));
			strbuf_release(&sb);
			return fail_with_input(out, in);
		}
		for (size_t j = 0; j < json_object_array_length(v); j++) {
			struct json_object *elem = json_object_array_get_idx(v, j);
			struct vals temp = { 0 }, lefts = { 0 }, rights = { 0 };
			int rc = 0, pass = 0;
			bool compared = false;	/* a comparison's error keeps what passed */

			vals_add(&temp, elem);
			rc = eval_list(e, &temp, left, &lefts);
			if (!strcmp(n->text, "exists")) {
				if (lefts.nr)
					vals_add(out, elem);
				rc = 0;
				goto next;
			}
			if (rc < 0 || !lefts.nr)
				goto next;
			if (lefts.nr > 1) {
				errbuf_set(e->err, "can only compare one element at a time");
				rc = -1;
				goto next;
			}
			if ((rc = eval_list(e, &temp, right, &rights)) < 0 || !rights.nr)
				goto next;
			if (rights.nr > 1) {
				errbuf_set(e->err, "can only compare one element at a time");
				rc = -1;
				goto next;
			}
			compared = true;
			if ((pass = apply_operator(e, n->text, lefts.v[0], rights.v[0])) < 0)
				rc = -1;
			else if (pass)
				vals_add(out, elem);
next:
			vals_release(&temp);
			vals_release(&lefts);
			vals_release(&rights);
			if (rc < 0)
				return compared ? -1 : fail_with_input(out, in);
		}
	}
	return 0;
}

/*
 * "range" passes its input on and tells the block runner that the rest
 * of this list's values are to be looped over; "end" is met by the block
 * runner, so one seen here stands outside any range.
 */
static int eval_identifier(struct eval *e, const struct vals *in, const struct node *n,
			   struct vals *out)
{
	if (!strcmp(n->text, "range")) {
		e->ranged = true;
		vals_copy(out, in);
		return 0;
	}
	if (!strcmp(n->text, "end")) {
		if (e->depth > 0)
			return 0;
		errbuf_set(e->err, "not in range, nothing to end");
		return -1;
	}
	errbuf_set(e->err, "unrecognized identifier %s", n->text);
	return fail_with_input(out, in);
}

static void repeat(const struct vals *in, struct json_object *v, struct vals *out)
{
	for (size_t i = 0; i < in->nr; i++)
		vals_add(out, v);
}

static int walk(struct eval *e, const struct vals *in, const struct node *n, struct vals *out)
{
	struct json_object *v;

	switch (n->type) {
	case NODE_LIST:
		return eval_list(e, in, n, out);
	case NODE_TEXT:
		vals_take(out, json_object_new_string(n->text));
		return 0;
	case NODE_FIELD:
		return eval_field(e, in, n, out);
	case NODE_ARRAY:
		return eval_array(e, in, n, out);
	case NODE_FILTER:
		return eval_filter(e, in, n, out);
	case NODE_INT:
	case NODE_FLOAT:
	case NODE_BOOL:
		v = n->type == NODE_INT ? json_object_new_int64(n->ival) :
		    n->type == NODE_FLOAT ? json_object_new_double(n->fval) :
		    json_object_new_boolean(n->bval);
		repeat(in, v, out);
		json_object_put(v);
		return 0;
	case NODE_WILDCARD:
		eval_wildcard(in, out);
		return 0;
	case NODE_RECURSIVE:
		eval_recursive(in, out);
		return 0;
	case NODE_UNION:
		for (size_t i = 0; i < n->nr; i++) {
			struct vals part = { 0 };
			if (eval_list(e, in, n->kids[i], &part) < 0) {
				vals_release(&part);
				return fail_with_input(out, in);
			}
			vals_copy(out, &part);
			vals_release(&part);
		}
		return 0;
	case NODE_IDENTIFIER:
		return eval_identifier(e, in, n, out);
	}
	return 0;
}

struct results {
	struct vals *v;
	size_t nr, alloc;
};

static void results_release(struct results *r)
{
	for (size_t i = 0; i < r->nr; i++)
		vals_release(&r->v[i]);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

static void results_push(struct results *r, struct vals *l)
{
	ALLOC_GROW(r->v, r->nr + 1, r->alloc);
	r->v[r->nr++] = *l;
	memset(l, 0, sizeof(*l));
}

/* Whether a top-level action is {end} or begins with range. */
static bool is_keyword_list(const struct node *n, const char *word)
{
	return n->type == NODE_LIST && n->nr && n->kids[0]->type == NODE_IDENTIFIER &&
	       !strcmp(n->kids[0]->text, word);
}

/* The index of the {end} closing the range at nodes[i], or nr if none. */
static size_t matching_end(struct node *const *nodes, size_t nr, size_t i)
{
	int depth = 0;

	for (size_t k = i + 1; k < nr; k++) {
		if (is_keyword_list(nodes[k], "range"))
			depth++;
		else if (is_keyword_list(nodes[k], "end") && depth-- == 0)
			return k;
	}
	return nr;
}

/*
 * How many top-level actions one run may walk.  A range without its {end}
 * runs what follows it once more (last_end()), so n of them in a row run
 * it 2^n times, in kubectl too: a template of a few hundred bytes could
 * keep it busy for hours.  What a template does with data grows with the
 * data, so past a floor the budget is a number of actions per value in
 * it (counted then, once): 100,000 pods with three ranges nested ten deep
 * each walk far less.
 */
#define STEPS_FLOOR 100000
#define STEPS_PER_VALUE 10000

static size_t count_values(struct json_object *v)
{
	size_t n = 1;

	if (json_object_is_type(v, json_type_array)) {
		size_t len = json_object_array_length(v);
		for (size_t i = 0; i < len; i++)
			n += count_values(json_object_array_get_idx(v, i));
	} else if (json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, key, val) {
			(void)key;
			n += count_values(val);
		}
	}
	return n;
}

/* Past the floor: whether the run is past its budget too (err set then). */
static bool over_budget(struct eval *e)
{
	if (!e->values) {
		e->values = count_values(e->data);
		if (e->values > STEPS_FLOOR / STEPS_PER_VALUE)
			e->budget = e->values * STEPS_PER_VALUE;
		if (e->steps <= e->budget)
			return false;
	}
	errbuf_set(e->err, "the template runs more than %zu actions on %zu values (kinf's "
		   "limit: a range without its {end} runs what follows it twice)", e->budget,
		   e->values);
	return true;
}

/*
 * Where FindResults goes on after a range at nodes[i] with no {end}: its
 * "fast forward" looks for the last {end} it met, one of a range inside
 * (so the last {end} after i), and without one goes on at i + 1, so the
 * range's actions run once more on the object the range was on.
 */
static size_t last_end(struct node *const *nodes, size_t nr, size_t i)
{
	for (size_t k = nr; k-- > i + 1;)
		if (is_keyword_list(nodes[k], "end"))
			return k;
	return i;
}

static int find_results(struct eval *e, struct node *const *nodes, size_t nr,
			struct json_object *data, struct results *out);

/*
 * A range with no values still runs its actions once, on nothing, what
 * they find thrown away (FindResults(nil), "so the position will advance
 * to the end node"): a field they ask for is then missing, an error
 * without --allow-missing-template-keys, as kubectl's.
 */
static int run_on_nothing(struct eval *e, struct node *const *nodes, size_t nr)
{
	struct results none = { 0 };
	int rc;

	e->from = (size_t)(nodes - e->root);
	rc = find_results(e, nodes, nr, NULL, &none);

	results_release(&none);
	return rc;
}

/*
 * kubectl's FindResults over nodes[0..nr) with data as the current
 * object: each action's values become one list of out.  A range runs the
 * actions up to its {end} once per value (for no values, run_on_nothing()), then
 * carries on after the {end}; a range without one runs to the end for
 * each value, and then as last_end() says.
 */
static int find_results(struct eval *e, struct node *const *nodes, size_t nr,
			struct json_object *data, struct results *out)
{
	struct vals cur = { 0 };
	int ret = -1;

	vals_add(&cur, data);
	for (size_t i = 0; i < nr; i++) {
		struct vals res = { 0 };
		if (is_keyword_list(nodes[i], "end") && e->depth == 0) {
			errbuf_set(e->err, "not in range, nothing to end");
			goto out;
		}
		e->ranged = false;
		if (++e->steps > e->budget && over_budget(e))
			goto out;
		if (walk(e, &cur, nodes[i], &res) < 0) {
			vals_release(&res);
			goto out;
		}
		if (e->ranged) {
			size_t k = matching_end(nodes, nr, i);
			e->ranged = false;
			e->depth++;
			for (size_t j = 0; j < res.nr; j++) {
				e->from = (size_t)(nodes + i + 1 - e->root);
				if (find_results(e, nodes + i + 1, k - i - 1, res.v[j], out) < 0) {
					e->depth--;
					vals_release(&res);
					goto out;
				}
			}
			if (!res.nr && run_on_nothing(e, nodes + i + 1, k - i - 1) < 0) {
				e->depth--;
				vals_release(&res);
				goto out;
			}
			e->depth--;
			vals_release(&res);
			i = k < nr ? k : last_end(nodes, nr, i);
			continue;
		}
		results_push(out, &res);
	}
	ret = 0;
out:
	vals_release(&cur);
	return ret;
}

/* from: where this run starts, kept for the next (NULL: the whole template). */
static int run(const struct jsonpath *jp, size_t *from, struct json_object *data,
	       bool allow_missing, struct results *out, struct errbuf *err)
{
	size_t start = !from ? 0 : *from < jp->root->nr ? *from : jp->root->nr;
	struct eval e = { .allow_missing = allow_missing, .err = err, .budget = STEPS_FLOOR,
			  .data = data, .root = jp->root->kids, .from = start };
	/* an empty template has no nodes at all */
	struct node *const *first = jp->root->nr ? jp->root->kids + start : NULL;
	int rc = find_results(&e, first, jp->root->nr - start, data, out);

	if (from)
		*from = e.from;
	return rc;
}

int jsonpath_execute(const struct jsonpath *jp, size_t *from, struct json_object *data,
		     bool allow_missing, struct strbuf *out, struct errbuf *err)
{
	struct results r = { 0 };
	int rc = run(jp, from, data, allow_missing, &r, err);

	for (size_t i = 0; rc == 0 && i < r.nr; i++) {
		for (size_t j = 0; j < r.v[i].nr; j++) {
			jsonpath_print_value(r.v[i].v[j], out);
			if (j + 1 < r.v[i].nr)
				strbuf_addch(out, ' ');
		}
	}
	results_release(&r);
	return rc;
}

int jsonpath_each_group(const struct jsonpath *jp, size_t *from, struct json_object *data,
			bool allow_missing, jsonpath_group_fn *fn, void *ctx, struct errbuf *err)
{
	struct results r = { 0 };
	int rc = run(jp, from, data, allow_missing, &r, err);

	for (size_t i = 0; rc == 0 && i < r.nr; i++)
		fn(ctx, r.v[i].v, r.v[i].nr);
	results_release(&r);
	return rc;
}

int jsonpath_find(const struct jsonpath *jp, struct json_object *data,
		  bool allow_missing, struct json_object ***values, size_t *nr,
		  struct errbuf *err)
{
	struct results r = { 0 };
	struct vals all = { 0 };
	int rc = run(jp, NULL, data, allow_missing, &r, err);

	for (size_t i = 0; rc == 0 && i < r.nr; i++)
		vals_copy(&all, &r.v[i]);
	results_release(&r);
	if (rc < 0) {
		vals_release(&all);
		return -1;
	}
	*values = all.v;
	*nr = all.nr;
	return 0;
}

void jsonpath_values_free(struct json_object **values, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		json_object_put(values[i]);
	free(values);
}

int jsonpath_relaxed(const char *expr, struct strbuf *out, struct errbuf *err)
{
	size_t n = strlen(expr);
	const char *body = expr;

	if (!n)
		return 0;
	/* ^\{\.?([^{}]+)\}$ or ^\.?([^{}]+)$ */
	if (expr[0] == '{' && n >= 2 && expr[n - 1] == '}') {
		body = expr + 1;
		n -= 2;
	}
	if (n && *body == '.')
		body++, n--;
	bool ok = n > 0;
	for (size_t i = 0; ok && i < n; i++)
		ok = body[i] != '{' && body[i] != '}';
	if (!ok) {
		errbuf_set(err, "unexpected path string, expected a 'name1.name2' or "
			   "'.name1.name2' or '{name1.name2}' or '{.name1.name2}'");
		return -1;
	}
	strbuf_addf(out, "{.%.*s}", (int)n, body);
	return 0;
}
