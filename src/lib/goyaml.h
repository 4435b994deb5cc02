/*
 * goyaml.h — a YAML document as client-go reads it.
 *
 * client-go reads YAML (a kubeconfig, an exec plugin's answer) through
 * sigs.k8s.io/yaml: go-yaml v2 reads the document into Go maps and
 * lists, which are written as JSON for Go's JSON decoder.  So:
 *
 *   - a key given twice keeps its last value;
 *   - a merge key (a plain "<<") sets each key of the mapping it names,
 *     or of each mapping of a list, the first of the list winning; a
 *     key after it sets the key again;
 *   - a key that is a mapping or a list is refused;
 *   - a plain scalar is a null, boolean, number or string as
 *     yaml_plain.h says.
 *
 * Merges through aliases can be made to set keys without end; past
 * GOYAML_MAX_MERGED keys they are refused, as go-yaml refuses
 * "excessive aliasing".
 */
#ifndef KINF_GOYAML_H
#define KINF_GOYAML_H

#include <stddef.h>
#include <yaml.h>

struct strbuf;
struct json_object;

#define GOYAML_MAX_MERGED 100000

struct goyaml_member {
	yaml_node_t *key;	/* a scalar */
	yaml_node_t *value;
	size_t seq;		/* the order it was set in */
};

/* A mapping's members, each key once, in the order of their keys. */
struct goyaml_members {
	struct goyaml_member *v;
	size_t nr, alloc;
};

/* Where a document is refused, and why (a static string). */
struct goyaml_error {
	const yaml_node_t *at;
	const char *why;
};

/*
 * Fills *m, empty, with the members of the mapping node map.  *merged
 * counts the keys merges set, across calls on one document.  0, or -1
 * with *err said (m then holds what was read; release it).
 */
int goyaml_members(yaml_document_t *doc, yaml_node_t *map, size_t *merged,
		   struct goyaml_members *m, struct goyaml_error *err);
void goyaml_members_release(struct goyaml_members *m);

/* The value of m's member key, or NULL. */
yaml_node_t *goyaml_member(const struct goyaml_members *m, const char *key);

/*
 * Loads text's first document into *doc, for yaml_document_delete().  0,
 * or -1 with why appended to ("line 5: did not find expected key").  Flow
 * nesting deeper than go-yaml's 10,000 levels is refused unread: libyaml
 * would take time quadratic in it.
 */
int goyaml_load(const char *text, size_t len, yaml_document_t *doc, struct strbuf *why);

/*
 * The JSON YAMLToJSON makes of node n of doc, into *out: an int an int64
 * (or uint64), a float a double, the keys of a mapping sorted as Go
 * writes a map (a boolean key "true" or "false").  0, or -1 with *err.
 */
int goyaml_node_json(yaml_document_t *doc, yaml_node_t *n, struct json_object **out,
		     struct goyaml_error *err);

/*
 * The JSON sigs.k8s.io/yaml's YAMLToJSON makes of text's first document,
 * as goyaml_node_json() makes it, or NULL (JSON's null) for none.  0, or -1 with why appended to.
 */
int goyaml_to_json(const char *text, size_t len, struct json_object **out,
		   struct strbuf *why);

#endif
