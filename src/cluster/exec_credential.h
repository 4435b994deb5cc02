/*
 * exec_credential.h — running a client-go credential plugin (the user's
 * `exec:` stanza, client.authentication.k8s.io v1 and v1beta1) as kubectl
 * runs it: the command with its args, the parent's environment plus the
 * stanza's env and KUBERNETES_EXEC_INFO (with the cluster when
 * provideClusterInfo is set), the plugin's stderr passed on to ours as it
 * comes (escaped, termsafe.h: it may quote a server; a pipe, so the plugin
 * does not see a terminal there), its stdin ours only when interactive use is allowed and stdin is a
 * terminal.  Its stdout must be an ExecCredential of the same apiVersion.
 *
 * Blocks until the plugin exits; callers serialize runs (credential.c).
 */
#ifndef KINF_EXEC_CREDENTIAL_H
#define KINF_EXEC_CREDENTIAL_H

#include <stdint.h>

#include "cluster/kubeconfig.h"

/* What a plugin returned: a token, or a client certificate and key, or both. */
struct exec_credential {
	char *token;			/* NULL when it returned none */
	struct blob cert, key;		/* PEM, both or neither */
	int64_t expires_ms;		/* wall clock; 0: until the server says 401 */
};

/*
 * What a plugin's run waits for besides the plugin: a stop (stop_fd
 * readable; -1 or 0: none) and --request-timeout (timeout_ms; 0: none).
 * Either kills the plugin, so that a hung one never holds kinf.
 */
struct exec_wait {
	int stop_fd;
	int64_t timeout_ms;
};

/*
 * Runs cfg->exec (wait may be NULL).  -1 and err (naming the plugin and
 * the user, with the installHint when the command does not exist) when it
 * cannot run, exits non-zero, prints something that is not a usable
 * ExecCredential, or is killed for a stop or a timeout.
 */
int exec_credential_run(const struct rest_config *cfg, const struct exec_wait *wait,
			struct exec_credential *out, struct errbuf *err);
void exec_credential_release(struct exec_credential *cred);

/*
 * The part of exec_credential_run() that reads what the plugin printed
 * (text, NUL-terminated): out (zeroed by the caller) filled and 0, or -1
 * and err, out left as it was.
 */
int exec_credential_parse(const struct rest_config *cfg, const char *text,
			  struct exec_credential *out, struct errbuf *err);

#endif
