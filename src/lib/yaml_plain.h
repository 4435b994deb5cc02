/*
 * yaml_plain.h — what go-yaml v2 reads an unquoted scalar as.
 *
 * Go reads YAML through go-yaml v2 (sigs.k8s.io/yaml, and so kubectl and
 * client-go's kubeconfig loader): a plain scalar, neither quoted nor
 * tagged, is a YAML 1.1 null, boolean or number when its text says so
 * (resolve() in resolve.go: "y", "off", "~", "0x1F", "1e3", ".inf"), and
 * a string only otherwise.  A timestamp ("2001-12-14") is read back as
 * its text.  Readers that must refuse what Go refuses (a number where a
 * string goes) and the writer that must quote what Go would misread
 * both ask here.
 */
#ifndef KINF_YAML_PLAIN_H
#define KINF_YAML_PLAIN_H

#include <stdbool.h>

enum yaml_plain {
	YAML_PLAIN_STRING,
	YAML_PLAIN_NULL,	/* "", "~", "null", "Null", "NULL" */
	YAML_PLAIN_BOOL,	/* "y", "yes", "on", "true", "n", "no", "off", "false", ... */
	YAML_PLAIN_NUMBER,	/* an int (0x, 0o, 0b, 0 octal, '_' apart), a float, .inf, .nan */
};

/* What go-yaml v2 makes of the plain scalar s. */
enum yaml_plain yaml_plain_kind(const char *s);

/* Whether s, a YAML_PLAIN_BOOL, is true ("y", "yes", "on", "true", ...). */
bool yaml_plain_true(const char *s);

/* "a string", "null", "a boolean" or "a number": for messages. */
const char *yaml_plain_name(enum yaml_plain kind);

#endif
