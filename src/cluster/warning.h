/*
 * warning.h — the apiserver's Warning headers (a deprecated API, a
 * field it dropped), read as client-go reads them: RFC 7234 warnings,
 * warn-code SP warn-agent SP quoted warn-text [SP quoted warn-date], one
 * or more to a header, comma-separated (apimachinery's
 * ParseWarningHeaders).  Only a 299 with a text is for the user, as
 * client-go's warning handlers have it; kubectl prints each text once,
 * "Warning: ..." on stderr, and so does kinf (http.c).
 */
#ifndef KINF_WARNING_H
#define KINF_WARNING_H

typedef void warning_fn(void *ctx, const char *text);

/*
 * Calls fn with the text of each 299 warning of one header's value, up to
 * the first that does not parse (the rest of that header is dropped, as
 * ParseWarningHeaders drops it).
 */
void warning_header_each(const char *value, warning_fn *fn, void *ctx);

#endif
