/*
 * exec_credential_fuzz.c — what a credential plugin prints, read as
 * kinf reads it (cluster/exec_credential.c: exec_credential_parse and the
 * RFC 3339 expirationTimestamp in it).  A plugin is outside input: any
 * program the kubeconfig names.  It must give a credential or one error
 * naming the plugin, never a crash, a leak or undefined behaviour.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/exec_credential.h"
#include "cluster/rest_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct exec_config exec = {
		.api_version = "client.authentication.k8s.io/v1",
		.command = "fuzz-plugin",
		.interactive = EXEC_INTERACTIVE_NEVER,
	};
	struct rest_config cfg = { .server = "https://127.0.0.1:6443", .user = "fuzz",
				   .auth = AUTH_EXEC, .exec = &exec };
	struct exec_credential cred = { 0 };
	struct errbuf err = { "" };
	char *text = malloc(size + 1);
	int64_t ms;

	memcpy(text, data, size);
	text[size] = '\0';
	if (exec_credential_parse(&cfg, text, &cred, &err) < 0) {
		if (!strstr(err.msg, "fuzz-plugin")) {
			fprintf(stderr, "error does not name the plugin: %s\n", err.msg);
			abort();
		}
	} else if (!cred.token && !cred.cert.len) {
		abort();
	}
	exec_credential_release(&cred);
	/* The timestamp parser on its own, as any string can reach it. */
	parse_time_rfc3339(text, &ms);
	free(text);
	return 0;
}
