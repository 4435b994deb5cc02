/*
 * termsafe.h — text from a server made safe to show on a terminal.
 *
 * Anyone who can write to an object kinf reads can put bytes into it
 * that a terminal obeys: ESC sequences that set the title or clear the
 * screen, a carriage return that overwrites a line, C1 controls (U+009B
 * is a CSI of its own), bidirectional overrides that reorder what is
 * shown, bytes of no UTF-8 character.  Every sink that writes such text
 * where a person reads it (the watch lines, --diff, get's tables,
 * messages on stderr, the TUI) passes it through termsafe_escape(),
 * which writes them as printable ASCII:
 *
 *   ESC            ^[        (as kubectl's table printer, PR 112553)
 *   CR             \r        (as kubectl)
 *   LF             \n        unless TERMSAFE_NEWLINE (kept) or
 *                            TERMSAFE_ONE_LINE (a space)
 *   TAB            kept      TERMSAFE_ONE_LINE: a space
 *   other C0       ^@ … ^_   (caret notation, BEL is ^G)
 *   DEL            ^?
 *   C1             \u0080 … \u009f
 *   bidi overrides \u202a … \u202e, \u2066 … \u2069
 *   invalid UTF-8  \xNN      each byte that starts no valid sequence
 *
 * Everything else is copied.  The result holds no byte a terminal acts
 * on, so escaping twice changes nothing, and it is not reversible
 * ("^[" may have been sent as is): it is for reading, never parsing.
 *
 * Threads: none; every function is reentrant.
 */
#ifndef KINF_TERMSAFE_H
#define KINF_TERMSAFE_H

#include <stdbool.h>
#include <stddef.h>

enum {
	TERMSAFE_NEWLINE = 1 << 0,	/* keep '\n': text of many lines */
	TERMSAFE_ONE_LINE = 1 << 1,	/* '\n' and '\t' become spaces: a message */
	/*
	 * Only what kubectl escapes where scripts read it (custom-columns'
	 * cells): ESC and CR; every other byte copied.
	 */
	TERMSAFE_KUBECTL = 1 << 2,
	/*
	 * Text in JSON, or in YAML's double-quoted strings, which escape
	 * C0 by themselves: only what they leave raw, DEL, C1 and the bidi
	 * overrides, as \u escapes (valid in both), so the text still
	 * parses as the same data; every other byte copied.
	 */
	TERMSAFE_JSON = 1 << 3,
};

/*
 * Writes s[0..len) escaped into dst, snprintf's way: at most size bytes
 * with a NUL (none when size is 0; dst may be NULL then), never cutting
 * an escape or a character in two.  Returns the length of the whole
 * escaped text, so a result >= size means it was cut.
 */
size_t termsafe_escape(char *dst, size_t size, const char *s, size_t len,
		       unsigned flags);
/* True when termsafe_escape() would copy s[0..len) unchanged. */
bool termsafe_is_safe(const char *s, size_t len, unsigned flags);
/* s escaped, in a new string the caller frees. */
char *termsafe_dup(const char *s, unsigned flags);
/*
 * Rewrites the string in buf (size bytes) escaped, as one line, cut on a
 * character boundary when the escapes make it longer than buf holds.
 */
void termsafe_line(char *buf, size_t size);

/*
 * Length of the valid UTF-8 sequence at s (1 to 4 bytes; 1 for an ASCII
 * byte, NUL included), or 0: Go's utf8.DecodeRune rules (util.h's
 * utf8_sequence() is this).
 */
size_t termsafe_utf8_len(const char *s, size_t len);

#endif
