/*
 * goyaml.c — a YAML document as client-go reads it; see goyaml.h.
 */
#include "lib/goyaml.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/strbuf.h"
#include "lib/util.h"
#include "lib/yaml_plain.h"

static const char *text_of(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

static bool is_merge_key(const yaml_node_t *k)
{
	return k->type == YAML_SCALAR_NODE && !strcmp(text_of(k), "<<") &&
	       (k->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ||
		!strcmp((const char *)k->tag, "tag:yaml.org,2002:merge"));
}

static int refuse(struct goyaml_error *err, const yaml_node_t *at, const char *why)
{
	err->at = at;
	err->why = why;
	return -1;
}

struct reading {
	yaml_document_t *doc;
	size_t *merged;
	struct goyaml_members *m;
	struct goyaml_error *err;
};

/* The mappings a merge is inside of, innermost first. */
struct merging {
	const yaml_node_t *map;
	const struct merging *up;
};

static const char loop[] = "an anchor's value contains itself";

static int add_members(struct reading *r, yaml_node_t *map, const struct merging *up);

/* What "<<: from" sets: go-yaml's decoder.merge(). */
static int merge(struct reading *r, yaml_node_t *from, const struct merging *up)
{
	static const char want[] = "a merge (<<) takes a mapping or a list of mappings";

	if (from->type == YAML_MAPPING_NODE)
		return add_members(r, from, up);
	if (from->type != YAML_SEQUENCE_NODE)
		return refuse(r->err, from, want);
	for (yaml_node_item_t *it = from->data.sequence.items.top;
	     it-- > from->data.sequence.items.start;) {
		yaml_node_t *x = yaml_document_get_node(r->doc, *it);
		if (!x || x->type != YAML_MAPPING_NODE)
			return refuse(r->err, from, want);
		if (add_members(r, x, up) < 0)
			return -1;
	}
	return 0;
}

/* map's keys into r->m; up: the mappings that merge it, NULL for the one read */
static int add_members(struct reading *r, yaml_node_t *map, const struct merging *up)
{
	struct goyaml_members *m = r->m;
	struct merging here = { map, up };

	for (const struct merging *u = up; u; u = u->up)
		if (u->map == map)
			return refuse(r->err, map, loop);
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(r->doc, p->value);
		if (!k || !v)
			continue;
		if (up && ++*r->merged > GOYAML_MAX_MERGED)
			return refuse(r->err, NULL, "merges (<<) set too many keys");
		if (is_merge_key(k)) {
			if (merge(r, v, &here) < 0)
				return -1;
			continue;
		}
		if (k->type != YAML_SCALAR_NODE)
			return refuse(r->err, k, k->type == YAML_MAPPING_NODE
					 ? "a key must be a string, not a mapping"
					 : "a key must be a string, not a list");
		ALLOC_GROW(m->v, m->nr + 1, m->alloc);
		m->v[m->nr] = (struct goyaml_member){ k, v, m->nr };
		m->nr++;
	}
	return 0;
}

/* By key, and of one key the one set last first. */
static int member_cmp(const void *a, const void *b)
{
	const struct goyaml_member *x = a, *y = b;
	int c = strcmp(text_of(x->key), text_of(y->key));
	return c ? c : (x->seq < y->seq) - (x->seq > y->seq);
}

int goyaml_members(yaml_document_t *doc, yaml_node_t *map, size_t *merged,
		   struct goyaml_members *m, struct goyaml_error *err)
{
	struct reading r = { doc, merged, m, err };

	if (add_members(&r, map, NULL) < 0) {
		if (!err->at)
			err->at = map;	/* the merges' bound: said of the mapping read */
		return -1;
	}
	if (m->nr)
		qsort(m->v, m->nr, sizeof(*m->v), member_cmp);
	size_t kept = 0;
	for (size_t i = 0; i < m->nr; i++)
		if (!kept || strcmp(text_of(m->v[i].key), text_of(m->v[kept - 1].key)))
			m->v[kept++] = m->v[i];
	m->nr = kept;
	return 0;
}

yaml_node_t *goyaml_member(const struct goyaml_members *m, const char *key)
{
	size_t lo = 0, hi = m->nr;

	while (lo < hi) {	/* they are sorted by key */
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(text_of(m->v[mid].key), key);
		if (!c)
			return m->v[mid].value;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void goyaml_members_release(struct goyaml_members *m)
{
	free(m->v);
	m->v = NULL;
	m->nr = m->alloc = 0;
}

/* ---- the document as JSON ----------------------------------------------- */

struct converting {
	yaml_document_t *doc;
	size_t merged;
	size_t nodes;		/* made so far: aliases may repeat a subtree */
	bool *open;		/* by node id - 1: being made, so an alias to it loops */
	struct goyaml_error err;
};

/*
 * A plain number as go-yaml resolves it, '_' dropped: an int64 (strconv's
 * base 0: 0x, 0o, 0b, a 0 for octal), else a uint64, else a float64.
 */
static struct json_object *number_json(const char *s)
{
	char *plain = xstrdup(s), *d = plain, *end;
	struct json_object *v;

	for (const char *q = s; *q; q++)
		if (*q != '_')
			*d++ = *q;
	*d = '\0';
	bool minus = *plain == '-';
	const char *digits = plain + (minus || *plain == '+');
	int base = 10;
	if (digits[0] == '0' && digits[1]) {
		char x = (char)tolower((unsigned char)digits[1]);
		base = x == 'x' ? 16 : x == 'b' ? 2 : 8;
		digits += x == 'x' || x == 'o' || x == 'b' ? 2 : 1;
	}
	errno = 0;
	unsigned long long u = strtoull(digits, &end, base);
	if (*digits && !*end && !errno && *digits != '-' && *digits != '+' &&
	    u <= (minus ? (unsigned long long)INT64_MAX + 1 : UINT64_MAX))
		v = minus ? json_object_new_int64((int64_t)(0 - u)) :
		    u > INT64_MAX ? json_object_new_uint64(u) : json_object_new_int64((int64_t)u);
	else
		v = json_object_new_double(strtod(plain, NULL));
	free(plain);
	return v;
}

static struct json_object *scalar_json(const yaml_node_t *n)
{
	const char *s = text_of(n);

	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return json_object_new_string_len(s, (int)n->data.scalar.length);
	switch (yaml_plain_kind(s)) {
	case YAML_PLAIN_NULL:
		return NULL;
	case YAML_PLAIN_BOOL:
		return json_object_new_boolean(yaml_plain_true(s));
	case YAML_PLAIN_NUMBER:
		return number_json(s);
	case YAML_PLAIN_STRING:
		break;
	}
	return json_object_new_string(s);
}

/*
 * A key as YAMLToJSON writes it: a boolean "true" or "false", an int in
 * decimal, other text as it is.  A null key is refused, as there.
 */
static char *key_json(const yaml_node_t *k)
{
	struct json_object *v = scalar_json(k);
	char *text;

	if (!v)
		return NULL;
	text = xstrdup(json_object_is_type(v, json_type_string) ||
		       json_object_is_type(v, json_type_double) ? text_of(k) :
		       json_object_to_json_string(v));
	json_object_put(v);
	return text;
}

struct json_member {
	char *key;
	struct json_object *value;
};

static int json_member_cmp(const void *a, const void *b)
{
	return strcmp(((const struct json_member *)a)->key, ((const struct json_member *)b)->key);
}

static int node_json(struct converting *c, yaml_node_t *n, int depth, struct json_object **out);

/* A mapping's members under their keys' JSON text, sorted, as Go writes a map. */
static int mapping_json(struct converting *c, yaml_node_t *n, int depth, struct json_object **out)
{
	struct goyaml_members m = { 0 };
	int rc = goyaml_members(c->doc, n, &c->merged, &m, &c->err);
	struct json_member *v = xcalloc(m.nr ? m.nr : 1, sizeof(*v));
	size_t nr = 0;

	for (size_t i = 0; !rc && i < m.nr; i++, nr++) {
		v[nr].key = key_json(m.v[i].key);
		rc = v[nr].key ? node_json(c, m.v[i].value, depth + 1, &v[nr].value) :
		     refuse(&c->err, m.v[i].key, "a key must not be null");
	}
	if (!rc && nr)
		qsort(v, nr, sizeof(*v), json_member_cmp);
	*out = json_object_new_object();
	for (size_t i = 0; i < nr; i++) {
		if (!rc)	/* the last of a key that two texts give wins */
			json_object_object_add(*out, v[i].key, v[i].value);
		else
			json_object_put(v[i].value);
		free(v[i].key);
	}
	free(v);
	goyaml_members_release(&m);
	return rc;
}

static int node_json(struct converting *c, yaml_node_t *n, int depth, struct json_object **out)
{
	*out = NULL;
	if (++c->nodes > GOYAML_MAX_MERGED * 10)
		return refuse(&c->err, n, "the document repeats its aliases too often");
	if (depth > JSON_MAX_DEPTH)
		return refuse(&c->err, n, "the document nests too deep");
	if (n->type == YAML_SCALAR_NODE) {
		*out = scalar_json(n);
		return 0;
	}
	bool *open = &c->open[n - c->doc->nodes.start];
	if (*open)
		return refuse(&c->err, n, loop);
	*open = true;
	int rc = 0;
	if (n->type == YAML_MAPPING_NODE) {
		rc = mapping_json(c, n, depth, out);
	} else {
		*out = json_object_new_array();
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     !rc && it < n->data.sequence.items.top; it++) {
			struct json_object *v = NULL;
			yaml_node_t *x = yaml_document_get_node(c->doc, *it);
			rc = x ? node_json(c, x, depth + 1, &v) : 0;
			json_object_array_add(*out, v);	/* what there is, to be freed */
		}
	}
	*open = false;
	return rc;
}

int goyaml_node_json(yaml_document_t *doc, yaml_node_t *n, struct json_object **out,
		     struct goyaml_error *err)
{
	struct converting c = { .doc = doc };
	size_t nodes = (size_t)(doc->nodes.top - doc->nodes.start);

	c.open = xcalloc(nodes ? nodes : 1, sizeof(*c.open));
	int rc = node_json(&c, n, 0, out);
	free(c.open);
	if (rc < 0) {
		*err = c.err;
		json_object_put(*out);
		*out = NULL;
	}
	return rc;
}

/* ---- reading ------------------------------------------------------------ */

/*
 * go-yaml refuses flow nesting
 * deeper than 10000 ("exceeded max depth", scannerc.go max_flow_level).
 * libyaml has no limit, and its scanner takes time quadratic in the depth
 * (80,000 '[' took half a minute): so the depth is counted first.  Only
 * brackets outside quoted scalars and comments count.
 */
#define MAX_FLOW_LEVEL 10000

static bool flow_too_deep(const char *buf, size_t len)
{
	int depth = 0;
	char quote = 0, prev = '\n';

	for (size_t i = 0; i < len; prev = buf[i++]) {
		char c = buf[i];
		if (quote) {
			if (quote == '"' && c == '\\' && i + 1 < len)
				i++;
			else if (c == quote)
				quote = 0;
			continue;
		}
		bool at_start = strchr(" \t\r\n:,[{-", prev) != NULL;
		if (c == '#' && (prev == ' ' || prev == '\t' || prev == '\n')) {
			while (i + 1 < len && buf[i + 1] != '\n')
				i++;
		} else if ((c == '"' || c == '\'') && at_start) {
			quote = c;
		} else if (c == '[' || c == '{') {
			if (++depth > MAX_FLOW_LEVEL)
				return true;
		} else if ((c == ']' || c == '}') && depth) {
			depth--;
		}
	}
	return false;
}

int goyaml_load(const char *text, size_t len, yaml_document_t *doc, struct strbuf *why)
{
	yaml_parser_t parser;

	if (flow_too_deep(text, len)) {
		strbuf_addf(why, "line 1: nested deeper than %d levels", MAX_FLOW_LEVEL);
		return -1;
	}
	if (!yaml_parser_initialize(&parser))
		out_of_memory(0);	/* its one failure */
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	int rc = yaml_parser_load(&parser, doc) ? 0 : -1;
	if (rc < 0) {
		const yaml_mark_t *m = parser.problem_mark.line || !parser.context_mark.line
					       ? &parser.problem_mark : &parser.context_mark;
		strbuf_addf(why, "line %zu: %s%s%s", m->line + 1,
			    parser.problem ? parser.problem : "cannot parse",
			    parser.context ? " " : "", parser.context ? parser.context : "");
	}
	yaml_parser_delete(&parser);
	return rc;
}

int goyaml_to_json(const char *text, size_t len, struct json_object **out, struct strbuf *why)
{
	yaml_document_t doc;
	struct goyaml_error err;

	*out = NULL;
	if (goyaml_load(text, len, &doc, why) < 0)
		return -1;
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	int rc = root ? goyaml_node_json(&doc, root, out, &err) : 0;
	if (rc < 0)
		strbuf_addf(why, "line %zu: %s", err.at->start_mark.line + 1, err.why);
	yaml_document_delete(&doc);
	return rc;
}
