/* selector.c — label selectors; see selector.h. */
#include "lib/selector.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/strbuf.h"

enum op { OP_EQ, OP_NE, OP_IN, OP_NOTIN, OP_EXISTS, OP_NOT_EXISTS, OP_GT, OP_LT };

struct requirement {
	enum op op;
	char *key;
	char **values;		/* NULL-terminated */
};

struct selector {
	struct requirement *reqs;
	size_t nr, alloc;
};

/* ---- apimachinery's labels.Parse: its lexer ---------------------------- */

enum tok {
	T_END, T_CLOSE, T_COMMA, T_NOT, T_DEQ, T_EQ, T_GT, T_ID, T_IN, T_LT, T_NE,
	T_NOTIN, T_OPEN,
};

struct token {
	enum tok tok;
	const char *at;
	size_t len;
};

static bool white(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool special(char c)
{
	return c && strchr("=!(),><", c);
}

/* The operator at p: "==" or "!=", else one character. */
static enum tok symbol(const char *p, size_t *len)
{
	static const char singles[] = "=!(),><";
	static const enum tok single_toks[] = { T_EQ, T_NOT, T_OPEN, T_CLOSE, T_COMMA, T_GT, T_LT };

	*len = 2;
	if (p[0] == '=' && p[1] == '=')
		return T_DEQ;
	if (p[0] == '!' && p[1] == '=')
		return T_NE;
	*len = 1;
	return single_toks[strchr(singles, *p) - singles];
}

/* Every token of text, the last T_END: the lexer's scan(). */
static struct token *lex(const char *text, size_t *nr)
{
	struct token *v = NULL;
	size_t n = 0, alloc = 0;
	const char *p = text;

	for (;;) {
		ALLOC_GROW(v, n + 1, alloc);
		struct token *t = &v[n++];
		while (white(*p))
			p++;
		t->at = p;
		if (!*p) {
			t->tok = T_END;
			t->len = 0;
			break;
		}
		if (special(*p)) {
			t->tok = symbol(p, &t->len);
		} else {
			while (*p && !special(*p) && !white(*p))
				p++;
			t->len = (size_t)(p - t->at);
			t->tok = t->len == 2 && !strncmp(t->at, "in", 2)    ? T_IN
			       : t->len == 5 && !strncmp(t->at, "notin", 5) ? T_NOTIN : T_ID;
			continue;
		}
		p += t->len;
	}
	*nr = n;
	return v;
}

/* ---- its parser -------------------------------------------------------- */

struct parser {
	const struct token *toks;
	size_t pos;
	const char *why;	/* a reason, set with the token it is about */
	const struct token *at;
	char whybuf[160];
};

/* The token at the position; among values "in" and "notin" are identifiers. */
static enum tok peek(const struct parser *ps, bool values)
{
	enum tok t = ps->toks[ps->pos].tok;
	return values && (t == T_IN || t == T_NOTIN) ? T_ID : t;
}

static enum tok take(struct parser *ps, bool values)
{
	enum tok t = peek(ps, values);
	ps->pos++;
	return t;
}

static int fail(struct parser *ps, const struct token *at, const char *fmt, ...) PRINTF(3, 4);

static int fail(struct parser *ps, const struct token *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ps->whybuf, sizeof(ps->whybuf), fmt, ap);
	va_end(ap);
	ps->why = ps->whybuf;
	ps->at = at;
	return -1;
}

/* "found 'x'": the token's text, as Go quotes the literal. */
#define FOUND(t) (int)((t)->tok == T_END ? 0 : (t)->len), (t)->at

static bool alnum(char c)
{
	return isalnum((unsigned char)c);
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], at most max long; empty if empty_ok. */
static bool label_name(const char *s, size_t n, size_t max, bool empty_ok)
{
	if (!n)
		return empty_ok;
	if (n > max || !alnum(s[0]) || !alnum(s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!alnum(s[i]) && !strchr("-_.", s[i]))
			return false;
	return true;
}

/* A DNS-1123 subdomain: lower-case labels of [a-z0-9-] joined by '.', 253 at most. */
static bool dns_subdomain(const char *s, size_t n)
{
	if (!n || n > 253)
		return false;
	for (size_t i = 0, start = 0; i <= n; i++) {
		if (i < n && s[i] != '.') {
			if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) &&
			    s[i] != '-')
				return false;
			continue;
		}
		if (i == start || s[start] == '-' || s[i - 1] == '-')
			return false;
		start = i + 1;
	}
	return true;
}

/* A label key: [prefix/]name, IsQualifiedName. */
static bool label_key(const char *s, size_t n)
{
	const char *slash = memchr(s, '/', n);
	if (!slash)
		return label_name(s, n, 63, false);
	size_t pre = (size_t)(slash - s);
	return dns_subdomain(s, pre) && !memchr(slash + 1, '/', n - pre - 1) &&
	       label_name(slash + 1, n - pre - 1, 63, false);
}

/* strconv.ParseInt(s, 10, 64) succeeds. */
static bool go_int64(const char *s)
{
	char *end;
	if (!*s || isspace((unsigned char)*s))
		return false;
	errno = 0;
	(void)strtoll(s, &end, 10);
	return !*end && errno != ERANGE;
}

static void add_value(struct requirement *r, size_t *n, const char *v, size_t len)
{
	for (size_t i = 0; i < *n; i++)
		if (strlen(r->values[i]) == len && !strncmp(r->values[i], v, len))
			return;	/* a set, as Go's */
	r->values = xrealloc(r->values, (*n + 2) * sizeof(*r->values));
	r->values[(*n)++] = xstrndup(v, len);
	r->values[*n] = NULL;
}

/* "(a,b)", "()", "(,a,)": parseValues and parseIdentifiersList. */
static int parse_set(struct parser *ps, struct requirement *r, size_t *n)
{
	const struct token *t = &ps->toks[ps->pos];
	if (take(ps, true) != T_OPEN)
		return fail(ps, t, "found '%.*s' expected: '('", FOUND(t));
	t = &ps->toks[ps->pos];
	if (peek(ps, true) == T_CLOSE) {
		take(ps, true);
		add_value(r, n, "", 0);
		return 0;
	}
	if (peek(ps, true) != T_ID && peek(ps, true) != T_COMMA)
		return fail(ps, t, "found '%.*s', expected: ',', ')' or identifier", FOUND(t));
	for (;;) {
		const struct token *v = &ps->toks[ps->pos];
		enum tok tk = take(ps, true);
		if (tk == T_ID) {
			add_value(r, n, v->at, v->len);
			if (peek(ps, true) == T_CLOSE)
				break;
			if (peek(ps, true) != T_COMMA)
				return fail(ps, &ps->toks[ps->pos], "found '%.*s', expected: ',' or ')'",
					    FOUND(&ps->toks[ps->pos]));
		} else if (tk == T_COMMA) {
			if (peek(ps, true) != T_ID)
				add_value(r, n, "", 0);	/* "(,", ",)", ",," */
			if (!*n)
				add_value(r, n, "", 0);
			if (peek(ps, true) == T_CLOSE)
				break;
		} else {
			return fail(ps, v, "found '%.*s', expected: ',', or identifier", FOUND(v));
		}
	}
	take(ps, true);		/* the ')' */
	return 0;
}

static const char *operator_name(enum op op)
{
	static const char *const names[] = {
		[OP_EQ] = "=", [OP_NE] = "!=", [OP_IN] = "in", [OP_NOTIN] = "notin",
		[OP_GT] = "gt", [OP_LT] = "lt",
	};
	return names[op];
}

/* NewRequirement's checks of the values. */
static int check_values(struct parser *ps, const struct token *at, const struct requirement *r)
{
	for (char **v = r->values; v && *v; v++) {
		if ((r->op == OP_GT || r->op == OP_LT) && !go_int64(*v))
			return fail(ps, at, "for '%s' the value must be an integer",
				    operator_name(r->op));
		if (!label_name(*v, strlen(*v), 63, true))
			return fail(ps, at, "invalid label value '%s'", *v);
	}
	return 0;
}

/* One requirement: parseRequirement, NewRequirement's checks. */
static int parse_requirement(struct parser *ps, struct requirement *r)
{
	static const struct { enum tok tok; enum op op; } ops[] = {
		{ T_IN, OP_IN }, { T_EQ, OP_EQ }, { T_DEQ, OP_EQ }, { T_GT, OP_GT },
		{ T_LT, OP_LT }, { T_NOTIN, OP_NOTIN }, { T_NE, OP_NE },
	};
	size_t n = 0;
	bool negated = peek(ps, true) == T_NOT;
	if (negated)
		take(ps, true);
	const struct token *k = &ps->toks[ps->pos];
	if (take(ps, true) != T_ID)
		return fail(ps, k, "found '%.*s', expected: identifier", FOUND(k));
	if (!label_key(k->at, k->len))
		return fail(ps, k, "invalid label key '%.*s'", (int)k->len, k->at);
	r->key = xstrndup(k->at, k->len);
	/* "!key" whatever follows: the caller finds "!a=b"'s '=' out of place. */
	if (negated || peek(ps, true) == T_END || peek(ps, true) == T_COMMA) {
		r->op = negated ? OP_NOT_EXISTS : OP_EXISTS;
		return 0;
	}
	const struct token *o = &ps->toks[ps->pos];
	enum tok ot = take(ps, false);
	size_t i = 0;
	while (i < ARRAY_SIZE(ops) && ops[i].tok != ot)
		i++;
	if (i == ARRAY_SIZE(ops))
		return fail(ps, o, "found '%.*s', expected: in, notin, =, ==, !=, gt, lt",
			    FOUND(o));
	r->op = ops[i].op;
	if (r->op == OP_IN || r->op == OP_NOTIN) {
		if (parse_set(ps, r, &n) < 0)
			return -1;
	} else if (peek(ps, true) == T_END || peek(ps, true) == T_COMMA) {
		add_value(r, &n, "", 0);
	} else {
		const struct token *v = &ps->toks[ps->pos];
		if (take(ps, true) != T_ID)
			return fail(ps, v, "found '%.*s', expected: identifier", FOUND(v));
		add_value(r, &n, v->at, v->len);
	}
	return check_values(ps, o, r);
}

struct selector *selector_parse(const char *text, struct errbuf *err)
{
	struct selector *sel = xcalloc(1, sizeof(*sel));
	size_t nr;
	struct token *toks = lex(text, &nr);
	struct parser ps = { .toks = toks };

	while (peek(&ps, true) != T_END) {
		const struct token *t = &toks[ps.pos];
		if (peek(&ps, true) != T_ID && peek(&ps, true) != T_NOT) {
			fail(&ps, t, "found '%.*s', expected: !, identifier, or 'end of string'",
			     FOUND(t));
			goto fail;
		}
		ALLOC_GROW(sel->reqs, sel->nr + 1, sel->alloc);
		struct requirement *r = &sel->reqs[sel->nr++];
		memset(r, 0, sizeof(*r));
		if (parse_requirement(&ps, r) < 0)
			goto fail;
		t = &toks[ps.pos];
		enum tok after = take(&ps, true);
		if (after == T_END)
			break;
		if (after != T_COMMA) {
			fail(&ps, t, "found '%.*s', expected: ',' or 'end of string'", FOUND(t));
			goto fail;
		}
		if (peek(&ps, true) != T_ID && peek(&ps, true) != T_NOT) {
			t = &toks[ps.pos];
			fail(&ps, t, "found '%.*s', expected: identifier after ','", FOUND(t));
			goto fail;
		}
	}
	free(toks);
	return sel;
fail:
	errbuf_set(err, "invalid selector '%s': %s at offset %d", text, ps.why,
		   (int)(ps.at->at - text));
	free(toks);
	selector_free(sel);
	return NULL;
}

void selector_free(struct selector *sel)
{
	if (!sel)
		return;
	for (size_t i = 0; i < sel->nr; i++) {
		free(sel->reqs[i].key);
		strv_free(sel->reqs[i].values);
	}
	free(sel->reqs);
	free(sel);
}

/* The value of key in a packed label list, or NULL. */
static const char *label_value(const char *labels, const char *key)
{
	size_t n = strlen(key);
	for (const char *l = labels; l && *l; l += strlen(l) + 1)
		if (!strncmp(l, key, n) && l[n] == '=')
			return l + n + 1;
	return NULL;
}

/* Both parse as Go's int64s, and the label's is above (gt) or below (lt). */
static bool compare_int(const char *label, const char *value, enum op op)
{
	if (!go_int64(label) || !go_int64(value))
		return false;
	long long l = strtoll(label, NULL, 10), v = strtoll(value, NULL, 10);
	return op == OP_GT ? l > v : l < v;
}

bool selector_matches(const struct selector *sel, const char *labels)
{
	for (size_t i = 0; i < sel->nr; i++) {
		const struct requirement *r = &sel->reqs[i];
		const char *const *values = (const char *const *)r->values;
		const char *v = label_value(labels, r->key);
		bool ok;
		switch (r->op) {
		case OP_EQ:         ok = v && !strcmp(v, r->values[0]); break;
		case OP_NE:         ok = !v || strcmp(v, r->values[0]); break;
		case OP_IN:         ok = v && strv_has(values, v); break;
		case OP_NOTIN:      ok = !v || !strv_has(values, v); break;
		case OP_EXISTS:     ok = v != NULL; break;
		case OP_NOT_EXISTS: ok = v == NULL; break;
		case OP_GT:
		case OP_LT:         ok = v && compare_int(v, r->values[0], r->op); break;
		default:            ok = false;
		}
		if (!ok)
			return false;
	}
	return true;
}

char *field_selector_term(const char *field, const char *value)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s=", field);
	for (const char *p = value; *p; p++) {
		if (*p == '\\' || *p == ',' || *p == '=')
			strbuf_addch(&sb, '\\');
		strbuf_addch(&sb, *p);
	}
	return strbuf_detach(&sb, NULL);
}
