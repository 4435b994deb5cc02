/*
 * base64.h — the standard alphabet (RFC 4648 §4), as kubeconfig's *-data
 * fields and HTTP basic auth use it.
 */
#ifndef KINF_BASE64_H
#define KINF_BASE64_H

#include <stddef.h>

#include "lib/strbuf.h"

/*
 * Decodes text into out (appended).  Whitespace is skipped, as Go's decoder
 * skips newlines; padding may be absent.  -1 on any other character or a
 * truncated quantum; out then holds a partial result.
 */
int base64_decode(const char *text, size_t len, struct strbuf *out);
/* Appends the padded encoding of data to out. */
void base64_encode(const void *data, size_t len, struct strbuf *out);
/*
 * The bytes text decodes to, from its characters alone: padding and line
 * breaks are not counted, nothing is checked.  What kubectl describe
 * shows of a Secret's value.
 */
size_t base64_decoded_size(const char *text);

#endif
