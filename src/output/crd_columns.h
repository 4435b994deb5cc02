/*
 * crd_columns.h — the printer columns of custom resources, by group and
 * kind, learned from their CustomResourceDefinitions as the apiextensions
 * apiserver's tableconvertor uses them: a Name column, then each column's JSONPath,
 * cells typed (integer, number, boolean, string, date as an age); no
 * columns means one, Age.  A kind it knows gets in the functions below
 * (columns.h's) its columns for tables and live headers, its priority-0 columns but
 * dates (as name=value) for the watch status, its priority-1 ones for
 * the wide detail.  Two CRDs of one kind in two groups (cert-manager.io's
 * Certificate and networking.internal.knative.dev's) each keep their own.
 *
 * Threads: every function is thread-safe, and crd_columns_add() may run
 * while other threads print: a kind once learned never changes or goes
 * away before crd_columns_free(), which no other thread may overlap.  So
 * what a lookup answers for a group and kind it knows is what it answers
 * from then on; for one it does not know yet, it may change once.
 */
#ifndef KINF_CRD_COLUMNS_H
#define KINF_CRD_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct errbuf;
struct json_object;
struct jsonpath;
struct strbuf;

struct crd_columns;

struct crd_columns *crd_columns_new(void);
void crd_columns_free(struct crd_columns *crds);	/* NULL is a no-op */
/*
 * Learns a CRD's columns (of spec.versions[name == version], or the
 * first version when version is NULL) for its spec.group and
 * spec.names.kind; a group and kind already known keep the columns they
 * had.  crd is borrowed.  -1 with err set when crd is not a CRD (no
 * group or kind) or names one of the built-in kinds (kinds.h) in its own
 * group (never a CRD's); a column whose path does not parse is left out
 * (err says which, and 0 is returned).
 */
int crd_columns_add(struct crd_columns *crds, struct json_object *crd,
		    const char *version, struct errbuf *err);
/* Whether the columns of group's kind were learned. */
bool crd_columns_has(const struct crd_columns *crds, const char *group, const char *kind);

/*
 * A kind's columns, as columns.h's functions read them: immutable once
 * learned, valid until crd_columns_free().
 */
struct crd_column {
	char *name;		/* "Replicas" */
	char *header;		/* "REPLICAS" */
	char *type;		/* integer, number, boolean, string, date */
	long priority;
	struct jsonpath *jp;
};

struct crd_kind {
	char *group;		/* "stable.example.com": never "" */
	char *kind;
	size_t n;
	struct crd_column *cols;
	const char **live;	/* NULL-terminated, into cols' headers */
};

/* group's kind's columns, or NULL: crds (NULL: none) does not know it. */
const struct crd_kind *crd_columns_kind(const struct crd_columns *crds, const char *group,
				       const char *kind);
/*
 * One cell as the apiextensions tableconvertor makes it (ConvertToTable,
 * cellForJSONValue): a new json-c value the caller puts, or NULL for none.
 */
struct json_object *crd_column_cell(const struct crd_column *c, struct json_object *obj,
				    int64_t now_ms);
/*
 * A cell's text as kubectl prints it (nothing for none), appended to
 * out.  A NUL in a string is "^@", as termsafe.h shows one: the views
 * keep cells as C strings (columns_cells() ends each with a NUL).
 */
void crd_column_text(const struct crd_column *c, struct json_object *obj,
		     int64_t now_ms, struct strbuf *out);

#endif
