/*
 * fuzz.h — what the fuzz targets share: CHECK, a property that must hold
 * whatever the input (its failure aborts, which libFuzzer and replay.c
 * report with the input), and the split of an input into a template and
 * the data it runs on.
 */
#ifndef KINF_FUZZ_H
#define KINF_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: check failed: %s\n",         \
				__FILE__, __LINE__, #cond);                  \
			abort();                                             \
		}                                                            \
	} while (0)

/*
 * The input as a NUL-terminated text (the caller frees it), and in *json
 * what follows its first NUL byte, or dflt when it has none: a template,
 * then the data it is run on.
 */
static inline char *fuzz_split(const uint8_t *data, size_t size, const char *dflt,
			       const char **json)
{
	char *text = malloc(size + 1);

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	size_t len = strlen(text);
	*json = len < size ? text + len + 1 : dflt;
	return text;
}

#endif
