/* selector.c — label selectors; see selector.h. */
#include "lib/selector.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum op { OP_EQ, OP_NE, OP_IN, OP_NOTIN, OP_EXISTS, OP_NOT_EXISTS };

struct requirement {
	enum op op;
	char *key;
	char **values;		/* NULL-terminated */
};

struct selector {
	struct requirement *reqs;
	size_t nr, alloc;
};

static void skip_space(const char **p)
{
	while (isspace((unsigned char)**p))
		(*p)++;
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.' || c == '/';
}

static char *read_name(const char **p)
{
	const char *start = *p;
	while (is_name_char(**p))
		(*p)++;
	return *p > start ? xstrndup(start, (size_t)(*p - start)) : NULL;
}

static void push_value(struct requirement *r, char *v, size_t *n)
{
	r->values = xrealloc(r->values, (*n + 2) * sizeof(*r->values));
	r->values[(*n)++] = v;
	r->values[*n] = NULL;
}

/* One requirement at *p; returns -1 with err->msg's reason. */
static int parse_requirement(const char **p, struct requirement *r, const char **why)
{
	size_t n = 0;
	skip_space(p);
	if (**p == '!') {
		(*p)++;
		skip_space(p);
		r->op = OP_NOT_EXISTS;
		r->key = read_name(p);
		return r->key ? 0 : (*why = "expected a key after '!'", -1);
	}
	r->key = read_name(p);
	if (!r->key)
		return *why = "expected a key", -1;
	skip_space(p);
	if (!**p || **p == ',') {
		r->op = OP_EXISTS;
		return 0;
	}
	if (!strncmp(*p, "==", 2) || !strncmp(*p, "!=", 2) || **p == '=') {
		r->op = **p == '!' ? OP_NE : OP_EQ;
		*p += (**p == '=' && (*p)[1] != '=') ? 1 : 2;
		skip_space(p);
		char *v = read_name(p);
		push_value(r, v ? v : xstrdup(""), &n);
		return 0;
	}
	if (!strncmp(*p, "notin", 5) || !strncmp(*p, "in", 2)) {
		r->op = (*p)[0] == 'n' ? OP_NOTIN : OP_IN;
		*p += r->op == OP_IN ? 2 : 5;
		skip_space(p);
		if (**p != '(')
			return *why = "expected '(' after in/notin", -1;
		(*p)++;
		for (;;) {
			skip_space(p);
			char *v = read_name(p);
			push_value(r, v ? v : xstrdup(""), &n);
			skip_space(p);
			if (**p == ')') {
				(*p)++;
				return 0;
			}
			if (**p != ',')
				return *why = "expected ',' or ')' in a value list", -1;
			(*p)++;
		}
	}
	return *why = "expected an operator (=, ==, !=, in, notin)", -1;
}

struct selector *selector_parse(const char *text, struct errbuf *err)
{
	struct selector *sel = xcalloc(1, sizeof(*sel));
	const char *p = text, *why = NULL;

	skip_space(&p);
	while (*p) {
		ALLOC_GROW(sel->reqs, sel->nr + 1, sel->alloc);
		struct requirement *r = &sel->reqs[sel->nr++];
		memset(r, 0, sizeof(*r));
		if (parse_requirement(&p, r, &why) < 0)
			goto fail;
		skip_space(&p);
		if (*p == ',')
			p++;
		else if (*p) {
			why = "unexpected character";
			goto fail;
		}
	}
	return sel;
fail:
	errbuf_set(err, "invalid selector '%s': %s at offset %d", text, why, (int)(p - text));
	selector_free(sel);
	return NULL;
}

void selector_free(struct selector *sel)
{
	if (!sel)
		return;
	for (size_t i = 0; i < sel->nr; i++) {
		free(sel->reqs[i].key);
		for (char **v = sel->reqs[i].values; v && *v; v++)
			free(*v);
		free(sel->reqs[i].values);
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

static bool in_values(char **values, const char *v)
{
	for (; values && *values; values++)
		if (!strcmp(*values, v))
			return true;
	return false;
}

bool selector_matches(const struct selector *sel, const char *labels)
{
	for (size_t i = 0; i < sel->nr; i++) {
		const struct requirement *r = &sel->reqs[i];
		const char *v = label_value(labels, r->key);
		bool ok;
		switch (r->op) {
		case OP_EQ:         ok = v && !strcmp(v, r->values[0]); break;
		case OP_NE:         ok = !v || strcmp(v, r->values[0]); break;
		case OP_IN:         ok = v && in_values(r->values, v); break;
		case OP_NOTIN:      ok = !v || !in_values(r->values, v); break;
		case OP_EXISTS:     ok = v != NULL; break;
		case OP_NOT_EXISTS: ok = v == NULL; break;
		default:            ok = false;
		}
		if (!ok)
			return false;
	}
	return true;
}
