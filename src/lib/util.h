/*
 * util.h — the few helpers every module uses: allocation that never
 * returns NULL, messages to stderr, clocks and durations.
 *
 * Out of memory is not an error kinf recovers from: the x*() allocators
 * print one line and abort, so no caller checks for NULL.
 *
 * Messages: lowercase, no full stop, subjects quoted ('%s').  Only the
 * command layer prints errors; library modules return -1 and leave a
 * description in a caller-provided struct errbuf.
 */
#ifndef KINF_UTIL_H
#define KINF_UTIL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PRINTF(f, a) __attribute__((format(printf, f, a)))

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
/* xstrdup(s), or NULL for NULL. */
char *xstrdup_or_null(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) PRINTF(1, 2);
char *xvasprintf(const char *fmt, va_list ap) PRINTF(1, 0);

/* Grow *ptr (of *alloc elements of size) to hold at least nr elements. */
#define ALLOC_GROW(ptr, nr, alloc)                                          \
	do {                                                                \
		if ((size_t)(nr) > (alloc)) {                               \
			size_t n_ = (alloc) ? (alloc) * 2 : 16;             \
			while (n_ < (size_t)(nr))                           \
				n_ *= 2;                                    \
			(ptr) = xrealloc((ptr), n_ * sizeof(*(ptr)));       \
			(alloc) = n_;                                       \
		}                                                           \
	} while (0)

/*
 * A description of what went wrong, filled by a library function that
 * returns -1, printed by the command layer.  Fixed size, so that it
 * lives on the stack; a longer message keeps its start and its end,
 * where the cause is, with " ... " between.
 */
struct errbuf {
	char msg[512];
};
void errbuf_set(struct errbuf *err, const char *fmt, ...) PRINTF(2, 3);
/*
 * Messages quote what servers and users sent (a Status message, an
 * argument), and a message is one line: errbuf_set(), error(),
 * warning(), die() and usage_error() pass it through termsafe_line()
 * (termsafe.h), which escapes what a terminal would act on.
 */

/*
 * die() prints "error: MSG" and exits with status 1.  A hook registered
 * with set_die_hook() runs first (the TUI uses it to restore the terminal),
 * once only.
 */
void set_die_hook(void (*hook)(void));
noreturn void die(const char *fmt, ...) PRINTF(1, 2);
/*
 * An allocation of size bytes failed (the x*() allocators call it, and
 * so does any other allocation kinf cannot go on without): the die hook,
 * "error: out of memory (allocating SIZE bytes)" (0: a library's, of a
 * size not known), abort().
 */
noreturn void out_of_memory(size_t size);
/*
 * BUG("...") is for what cannot happen unless kinf is wrong: the die hook,
 * "BUG: FILE:LINE: MSG", abort() for a core.  The cluster layer ends the
 * process only through these two: whatever else goes wrong there (a pipe
 * or a thread refused, a library that does not start) is returned to its
 * caller, which may be a thread that must not exit(): die() is not its.
 */
#define BUG(...) bug_at(__FILE__, __LINE__, __VA_ARGS__)
noreturn void bug_at(const char *file, int line, const char *fmt, ...) PRINTF(3, 4);
void error(const char *fmt, ...) PRINTF(1, 2);
void warning(const char *fmt, ...) PRINTF(1, 2);
/*
 * Why poll() on nfds descriptors failed with errnum, in one line: its
 * EINVAL means more descriptors than the open-file limit allows, which
 * the message names with the limit.
 */
void poll_failure(struct errbuf *err, int errnum, size_t nfds);

/* Milliseconds: monotonic for intervals, wall clock for display. */
int64_t mono_ms(void);
int64_t wall_ms(void);

/*
 * Names the calling thread, as top -H, ps -L and gdb show it (at most 15
 * bytes).  Named from inside: naming another thread opens a file in
 * /proc for writing.
 */
void thread_name(const char *name);

/*
 * Timed waits on the monotonic clock, so that setting the wall clock
 * neither cuts a wait short nor stretches it.  cond_init_monotonic()
 * makes a condition variable whose deadlines are read on CLOCK_MONOTONIC;
 * cond_wait_until() waits on it (lock held, as pthread_cond_wait()) until
 * a wake-up or until mono_ms() reaches deadline_ms, and returns true when
 * the deadline passed.  Callers loop on their predicate, as with every
 * condition variable: wake-ups may be spurious.
 */
void cond_init_monotonic(pthread_cond_t *cond);
bool cond_wait_until(pthread_cond_t *cond, pthread_mutex_t *lock, int64_t deadline_ms);

/* Formats wall_ms as RFC 3339 UTC with milliseconds into buf[32]. */
void format_time_rfc3339(int64_t ms, char buf[32]);
/* Formats wall_ms as the local time of day, "12:03:04.567", into buf[16]. */
void format_clock(int64_t wall, char buf[16]);
/* Formats a positive duration as kubectl's AGE column does ("5d3h", "12m"). */
void format_age(int64_t ms, char buf[32]);
/*
 * kubectl's translateTimestampSince: the age at now_ms of an RFC 3339
 * time, or "<unknown>" when ts is NULL or no such time.
 */
void format_age_since(const char *ts, int64_t now_ms, char buf[32]);
/*
 * Parses an RFC 3339 time as Go's time.Parse reads one
 * ("2024-05-01T10:00:00Z", a fraction, or an offset of exactly +HH:MM;
 * nothing after) into wall-clock ms.  Returns -1 if it is not one.
 */
int parse_time_rfc3339(const char *s, int64_t *ms);

/*
 * Parses a Go-style duration ("300ms", "5s", "1m30s", "2h"; ns and us or
 * µs too, what is under a millisecond counted as one) or a bare number
 * of seconds.  Returns 0 and sets *ms, or -1.
 */
int parse_duration(const char *s, int64_t *ms);

/*
 * Parses kubectl's --request-timeout as clientcmd's ParseTimeout does:
 * empty is 0 (none); an integer of seconds, not below 0 ("-0", "+5",
 * "007"); else Go's time.ParseDuration, a sign allowed and a unit on
 * every number ("-1s", "1.5h", "1m30s").  Returns 0 and sets *ms, or -1.
 */
int parse_kubectl_timeout(const char *s, int64_t *ms);

/*
 * Parses a size in bytes: 4096, 64K, 64Ki, 256M, 256Mi, 1G (K, M and G are
 * powers of 1024; a B may follow), above 0 and at most 1 TiB.  Returns 0
 * and sets *out, or -1.
 */
int parse_size(const char *s, size_t *out);

/* Uniform random in [0, 1), thread-safe, seeded once from the clock. */
double rand_unit(void);

bool str_starts_with(const char *s, const char *prefix);
/*
 * buf holds what snprintf() into size bytes cut: its end becomes mark
 * ("...", or the TUI's ellipsis), at a character's boundary, so that the
 * cut shows wherever it is read.
 */
void str_mark_cut(char *buf, size_t size, const char *mark);
/*
 * How deep JSON may nest: Go's encoding/json limit (maxNestingDepth), so
 * kinf reads every object client-go reads, and a custom resource with
 * preserve-unknown-fields may nest that deep.
 */
#define JSON_MAX_DEPTH 10000
/*
 * json_tokener_parse() without json-c's nesting limit of 32, which CRDs
 * exceed: JSON_MAX_DEPTH.  NULL when text is not one JSON document.
 */
struct json_object *json_parse_deep(const char *text);
/* A deep copy of a NULL-terminated vector; NULL gives an empty one. */
char **strv_dup(char *const *v);
/* Frees a NULL-terminated array of strings and the array (NULL: no-op). */
void strv_free(char **v);
/* Whether the NULL-terminated vector v (NULL: empty) holds s. */
bool strv_has(const char *const *v, const char *s);
/* qsort()'s comparison of two strings by their pointers (char *[] sorted by strcmp). */
int strv_cmp(const void *a, const void *b);
/* Width on a terminal: UTF-8 characters, as Go's tabwriter counts them. */
size_t utf8_width(const char *s);
/*
 * d as printf's %e with the fewest digits that read back as d (the
 * digits of Go's shortest formatting): "1e+20", "9.223372036854776e+18".
 */
void double_shortest_e(double d, char buf[32]);
/*
 * Length of the valid UTF-8 sequence at s (1 to 4 bytes; 1 for an ASCII
 * byte, NUL included), or 0 when the byte at s does not start one: Go's
 * rules (utf8.DecodeRune), so no overlong forms, surrogates or code
 * points past U+10FFFF.
 */
size_t utf8_sequence(const char *s, size_t len);
/*
 * The code point at s[0..len) as Go's utf8.DecodeRune reads it, its
 * length in *n: U+FFFD and 1 for a byte that starts no valid sequence;
 * *n 0 when len is.
 */
uint32_t utf8_decode(const char *s, size_t len, size_t *n);
/* Go's unicode.IsSpace. */
bool go_is_space(uint32_t r);
/*
 * strings.TrimSpace: *s and *len narrowed to the text without the white
 * space Go's unicode.IsSpace sees at either end (U+00A0 and U+3000 too).
 */
void go_trim_space(const char **s, size_t *len);
/*
 * NULL when s[0..len) is valid UTF-8; else a new NUL-terminated copy with
 * every byte that starts no valid sequence replaced by U+FFFD, as Go's
 * encoding/json does with strings, and its length in *out_len.
 */
char *utf8_replace_invalid(const char *s, size_t len, size_t *out_len);
bool str_ends_with(const char *s, const char *suffix);

/*
 * A file a user named, opened to be written anew (O_CREAT, O_TRUNC) with
 * mode for a new one, never through a symbolic link: a link planted where
 * the file is to be written would have another file overwritten.  -1
 * with err ("cannot create 'PATH': ..."), a link named as such.
 */
int open_new_file(const char *path, unsigned mode, struct errbuf *err);

/* Whether fd (> 0) hung up or failed: a pipe whose reader left. Never blocks. */
bool fd_hung_up(int fd);

#endif
