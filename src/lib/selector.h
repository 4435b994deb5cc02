/*
 * selector.h — Kubernetes label selectors, matched on the client side:
 * `get --from-cache -l` filters the Indexer as a controller's lister does,
 * and the TUI's `l:` filter uses the same.
 *
 * Syntax and checks as apimachinery's labels.Parse has them, its lexer
 * and parser ported: comma-separated requirements, all of which must
 * hold: key=value, key==value, key!=value, key in (a,b), key notin (a,b),
 * key (exists), !key (does not exist), key>N and key<N (both integers, as
 * strconv.ParseInt reads them); a key a qualified name ([prefix/]name), a
 * value a label value (63 characters of [A-Za-z0-9-_.], alphanumeric at
 * both ends, or empty).  What it refuses is refused with labels.Parse's
 * reason, where in the text it found it, and kinf's own form:
 * "invalid selector 'a,': found '', expected: identifier after ',' at
 * offset 2".
 */
#ifndef KINF_SELECTOR_H
#define KINF_SELECTOR_H

#include <stdbool.h>

#include "lib/util.h"

struct selector;

/* NULL and err ("invalid selector 'x': ...") when it doesn't parse. */
struct selector *selector_parse(const char *text, struct errbuf *err);
void selector_free(struct selector *sel);
/* labels: a packed "key=value\0...\0\0" list, as kobj->labels. */
bool selector_matches(const struct selector *sel, const char *labels);

/*
 * "field=value", the value escaped as fields.OneTermEqualSelector escapes
 * it (a backslash before each '\\', ',' and '='): kubectl's one NAME as a
 * field selector, whatever the name holds (an RBAC role's may hold ','
 * and '=').  Free it.
 */
char *field_selector_term(const char *field, const char *value);

#endif
