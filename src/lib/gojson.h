/*
 * gojson.h — one JSON value read as Go's encoding/json reads it, for
 * what Go says of it: where a json.Decoder ends the value, and the
 * scanner's syntax error, word for word ("invalid character '}' looking
 * for beginning of object key string").
 *
 * kinf validates JSON with json_scan, in its own words.  Where a message
 * of Go's reaches the user as data (kubectl prints the Status client-go
 * makes of a watch event it cannot decode), this gives the very text.
 * It is a byte-at-a-time state machine, slower than json_scan: for text
 * already known to be wrong, and for get -w's events, each printed
 * anyway; never on an informer's path.
 */
#ifndef KINF_GOJSON_H
#define KINF_GOJSON_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf;

/*
 * Reads text[0..len) as json.Decoder.Decode reads the next value.
 * Returns the bytes the value takes, white space before it included,
 * when it is whole; 0 when the text ends inside it (or holds only white
 * space); -1 when a byte is wrong, with Go's message appended to msg.
 */
long gojson_value(const char *text, size_t len, struct strbuf *msg);

/*
 * Whether encoding/json decodes a member named key[0..klen) (decoded
 * UTF-8) into a struct field named name (ASCII): the very name, or one
 * bytes.EqualFold holds equal to it (ASCII letters in any case, and the
 * Kelvin sign K as k, ſ as s).
 */
bool gojson_name_is(const char *key, size_t klen, const char *name);

#endif
