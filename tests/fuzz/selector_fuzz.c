/*
 * selector_fuzz.c — the label selector parser (lib/selector.c), which
 * reads what a user types after `get --from-cache -l` and in the TUI's
 * `l:` filter.  (Field selectors have no parser in kinf: they go to the
 * server as typed.)
 *
 * Input: the selector, then after the first newline the labels to match
 * it against, one "key=value" a line.  A selector that does not parse
 * must say why; one that does must match without reading past anything.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/selector.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nl = memchr(data, '\n', size);
	size_t sel_len = nl ? (size_t)(nl - (const char *)data) : size;
	char *text = malloc(sel_len + 1);
	struct errbuf err = { "" };

	memcpy(text, data, sel_len);
	text[sel_len] = '\0';
	struct selector *sel = selector_parse(text, &err);
	if (!sel && !err.msg[0]) {
		fprintf(stderr, "selector '%s' refused without a reason\n", text);
		abort();
	}
	if (sel) {
		/* The labels, packed as kobj->labels: "k=v\0k=v\0\0". */
		size_t rest = nl ? size - sel_len - 1 : 0;
		char *labels = malloc(rest + 2);
		size_t n = 0;
		for (size_t i = 0; i < rest; i++) {
			char c = (char)data[sel_len + 1 + i];
			if (c == '\n' || c == '\0') {
				if (n && labels[n - 1] != '\0')
					labels[n++] = '\0';
			} else {
				labels[n++] = c;
			}
		}
		if (n && labels[n - 1] != '\0')
			labels[n++] = '\0';
		labels[n] = '\0';
		selector_matches(sel, labels);
		selector_matches(sel, "");
		free(labels);
	}
	selector_free(sel);
	free(text);
	return 0;
}
