/*
 * yaml.h — a JSON tree as `kubectl get -o yaml` writes it.
 *
 * kubectl turns an object into JSON, the JSON into YAML through
 * sigs.k8s.io/yaml (JSONToYAML: go-yaml v2 reads the JSON, then writes
 * it), and go-yaml's writer is a port of libyaml's emitter — which this
 * module drives, with go-yaml's choices made the same way:
 *
 *   - mapping keys sorted as go-yaml sorts them (encode.go keyList.Less:
 *     runs of digits compare as numbers, non-letters before letters);
 *   - block style, two-space indent, sequences in mappings not indented
 *     ("- a" under "key:"), empty ones as {} and [];
 *   - a string plain when it would read back as a string, else double
 *     quoted ("true", "123", "", "2024-05-01T10:00:00Z", "1:20" are
 *     quoted); a string with a newline as a literal block (|); libyaml
 *     falls back to single quotes where plain is not allowed ('*');
 *   - numbers as kubectl's JSON round trip leaves them: an int64 as is,
 *     a float64 that is a whole number below 1e21 as an integer (1e6 is
 *     1000000, 1.0 is 1), others as Go's FormatFloat(f, 'g', -1) writes
 *     them (1.5e+21, 1e-07), an integer beyond int64 as a float; null as
 *     null;
 *   - lines folded at 80 columns, unicode written as is.
 *
 * Nothing is kept; thread-safe.
 */
#ifndef KINF_YAML_H
#define KINF_YAML_H

#include <stdbool.h>

struct json_object;
struct strbuf;
struct errbuf;

/*
 * Appends obj as one YAML document (no "---"), ending with a newline.
 * Returns 0, or -1 with err set when the emitter failed.  The flags (0:
 * none):
 *
 * YAML_TERMINAL: a string holding DEL, a C1 control or a bidirectional
 * override is double-quoted and those written as \u escapes, so nothing
 * a terminal obeys reaches it and the text still reads back as the same
 * data.
 *
 * YAML_AS_KUBECTL: obj as `kubectl get -o yaml` prints it.  kubectl's
 * YAML is the text json.Marshal writes, read back by go-yaml v2
 * (sigs.k8s.io/yaml's JSONToYAML), which takes that JSON for YAML and so
 * changes or refuses what encoding/json leaves raw:
 *   - a character YAML forbids (U+007F, U+0080 to U+009F but U+0085,
 *     U+FFFE, U+FFFF): "control characters are not allowed";
 *   - U+0085 (NEL), a line break in YAML 1.1: in a string, a run of
 *     spaces and NELs is folded as a quoted scalar's line breaks are, to
 *     a space for one NEL, to a newline for each after the first;
 *   - a line, so after a NEL, that starts with "---" or "..." and then a
 *     space or a NEL: "found unexpected document indicator";
 *   - a key on more than one line, or more than 1024 characters from its
 *     opening quote to its ':' (go-yaml's bounds of a simple key): "did
 *     not find expected ',' or '}'".
 * A refusal is kubectl's error (1.31 and later), "yaml: " then go-yaml's, with its line (1 + the NELs before) where go-yaml
 * names one.
 */
enum {
	YAML_TERMINAL = 1 << 0,
	YAML_AS_KUBECTL = 1 << 1,
};
int yaml_emit(struct json_object *obj, struct strbuf *out, unsigned flags,
	      struct errbuf *err);

#endif
