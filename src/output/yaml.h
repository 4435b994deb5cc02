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
 * Returns 0, or -1 with err set when the emitter failed.
 */
int yaml_emit(struct json_object *obj, struct strbuf *out, struct errbuf *err);
/*
 * Whether kubectl's JSON-to-YAML step refuses obj: go-yaml's reader takes
 * a character of a string or key that encoding/json leaves raw (U+007F,
 * U+0080 to U+009F but U+0085, U+FFFE, U+FFFF) for a control character:
 * "yaml: control characters are not allowed".
 */
bool yaml_go_refuses(struct json_object *obj);
/*
 * yaml_emit() for a terminal: a string holding DEL, a C1 control or a
 * bidirectional override is double-quoted and those written as \u
 * escapes, so nothing a terminal obeys reaches it and the text still
 * reads back as the same data.
 */
int yaml_emit_to(struct json_object *obj, struct strbuf *out, bool terminal,
		 struct errbuf *err);

#endif
