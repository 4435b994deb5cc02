/*
 * kubeconfig.h — which cluster, as which user, in which namespace: the
 * kubeconfig read as kubectl reads it, or the pod's service account.
 *
 * Where the configuration comes from, first match wins:
 *   1. --kubeconfig FILE: that file alone; it must exist.
 *   2. KUBECONFIG, a ':'-separated list: every file that exists, merged —
 *      the first file to define a cluster, user or context name wins that
 *      name whole, and current-context comes from the first file that sets
 *      it.  Files that do not exist are skipped, as kubectl skips them.
 *   3. ~/.kube/config.
 *   4. In-cluster, when none of the above exists and the pod environment
 *      is there: KUBERNETES_SERVICE_HOST/_PORT, and the service account's
 *      token, ca.crt and namespace under KINF_SERVICEACCOUNT_DIR (default
 *      /var/run/secrets/kubernetes.io/serviceaccount; overridable for
 *      tests).  The namespace is POD_NAMESPACE if set, as in client-go.
 * Then --context picks the context (else current-context), --cluster and
 * --user override the context's, and -n overrides its namespace
 * ("default" when none says).
 *
 * Relative paths (certificate-authority, client-certificate, client-key,
 * tokenFile, an exec command containing '/') resolve against the directory
 * of the file that defined the entry.  Files named by the kubeconfig are
 * read at load time, so a missing CA or key is reported up front; their
 * PEM is held in memory and never written anywhere.  tokenFile is read at
 * load time too, and re-read by the HTTP layer when it changes.
 *
 * Errors name what to fix: the file and line of malformed YAML, the
 * context or cluster that does not exist (with the names that do), the
 * user whose auth-provider kinf cannot run.  No message ever contains a
 * credential.
 */
#ifndef KINF_KUBECONFIG_H
#define KINF_KUBECONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "cluster/rest_config.h"
#include "lib/util.h"

/*
 * Finds and reads the configuration (see the top of this file) and builds
 * the rest config for the chosen context.  0 and *out (free it with
 * rest_config_free), or -1 and err.
 */
int rest_config_load(const struct kubeconfig_opts *opts,
		     struct rest_config **out, struct errbuf *err);

/*
 * The context names of the kubeconfig opts selects (merged as above), in
 * file order, for shell completion; *current is current-context or NULL.
 * Caller frees each name, the array and *current.  -1 and err on a
 * missing or malformed file.
 */
int kubeconfig_contexts(const struct kubeconfig_opts *opts, char ***names,
			size_t *nr, char **current, struct errbuf *err);

/*
 * A parsed kubeconfig file, not merged nor resolved to a context yet.  For
 * tests and the fuzzer: the parser on a buffer, with `name` standing for
 * the file (messages, and the directory relative paths resolve against;
 * no file is read by kubeconfig_parse itself).
 */
struct kubeconfig;
struct kubeconfig *kubeconfig_parse(const char *name, const char *buf,
				    size_t len, struct errbuf *err);
void kubeconfig_free(struct kubeconfig *kc);

/*
 * The rest config of a parsed kubeconfig's context (opts->kubeconfig is
 * ignored).  Files it names are read, as by rest_config_load.
 */
int kubeconfig_rest_config(const struct kubeconfig *kc,
			   const struct kubeconfig_opts *opts,
			   struct rest_config **out, struct errbuf *err);

#endif
