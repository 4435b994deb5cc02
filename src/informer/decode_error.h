/*
 * decode_error.h — what client-go's watch decoder says of an event it
 * cannot decode, word for word.
 *
 * A watch stream's values go through three readers in client-go: the
 * JSON framer (a Go json.Decoder), the event decoder (the JSON
 * serializer into metav1.WatchEvent, after its Interpret of the value's
 * kind and apiVersion) and, for the event's object, the dynamic client's
 * UnstructuredJSONScheme.  Whichever refuses a value, StreamWatcher
 * sends an ERROR event instead, a Status whose message quotes the error,
 * and ends the watch.  kubectl's `get -w` prints that Status; an
 * informer's reflector logs it and relists.
 *
 * A number beyond float64 in the object is refused as the scheme's
 * decoder refuses it ("json: cannot unmarshal number 1e400 into Go value
 * of type float64").  Not followed: an object with a top-level "items"
 * member (the scheme decodes it as a list).
 */
#ifndef KINF_DECODE_ERROR_H
#define KINF_DECODE_ERROR_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf;

/*
 * Whether client-go refuses the watch value text[0..len), as framed
 * (white space around it allowed; what follows the value is left for
 * the next one).  When it does: true, and the error appended to why, as
 * StreamWatcher quotes it after "unable to decode an event from the
 * watch stream: " ("got invalid watch event type: SOMETHING").
 */
bool watch_decode_error(const char *text, size_t len, struct strbuf *why);

#endif
