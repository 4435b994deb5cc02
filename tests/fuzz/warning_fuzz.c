/*
 * warning_fuzz.c — the Warning header reader (cluster/warning.c), which
 * reads what any server puts in a response's Warning headers.
 *
 * Input: one header's value.  Every text handed on must be a 299's, not
 * empty, and no longer than the value it came from.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/warning.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(void *ctx, const char *text)
{
	size_t len = *(size_t *)ctx, n = strlen(text);
	if (!n || n > len) {
		fprintf(stderr, "warning text of %zu bytes from a value of %zu\n", n, len);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *value = malloc(size + 1);

	memcpy(value, data, size);
	value[size] = '\0';
	size_t len = strlen(value);
	warning_header_each(value, check, &len);
	free(value);
	return 0;
}
