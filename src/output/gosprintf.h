/*
 * gosprintf.h — Go's fmt.Sprintf over JSON values, as a template's
 * printf runs it (kubectl's -o go-template).
 *
 * All of doPrintf: the flags (+ - # 0 space), widths and precisions
 * given or taken from an argument (*), explicit argument indexes
 * ([n]), and fmt's own reports: %!(NOVERB), %!d(MISSING),
 * %!d(BADINDEX), %!(BADWIDTH), %!(BADPREC), %!d(string=x) for a verb
 * that does not fit its value, %!(EXTRA ...) for arguments left over
 * (but after an index).  The verbs are those of the values a template
 * holds: integers (v d b o O x X c q U), floats (v b e E f F g G x X),
 * strings (v s q x X), bools (v t), maps and slices (each element with
 * the verb; %#v as Go syntax) and %T.  A float's # flag is not kept.
 *
 * The values are json-c's: an int is an integer, a double a float64,
 * NULL nil.
 */
#ifndef KINF_GOSPRINTF_H
#define KINF_GOSPRINTF_H

#include <stddef.h>

struct json_object;
struct strbuf;

/* Go's name of a value's type, for %T and the reports ("int64", "string"). */
typedef const char *gosprintf_type_fn(struct json_object *v);

/* Appends fmt.Sprintf(format[0..len), args...) to out. */
void go_sprintf(const char *format, size_t len, struct json_object *const *args, size_t n,
		gosprintf_type_fn *type_of, struct strbuf *out);

#endif
