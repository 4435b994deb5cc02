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

#include "util.h"

/* What the command line chose; NULL fields mean "not given". */
struct kubeconfig_opts {
	const char *kubeconfig;
	const char *context;
	const char *cluster;
	const char *user;
	const char *namespace;
};

/* Bytes owned by whoever holds the blob; len 0 means "none". */
struct blob {
	char *data;
	size_t len;
};

/* How requests prove who they are; a client certificate may come with any. */
enum auth_method {
	AUTH_NONE,		/* anonymous, or a client certificate only */
	AUTH_TOKEN,		/* token: a bearer token in the kubeconfig */
	AUTH_TOKEN_FILE,	/* tokenFile, or the service account's token */
	AUTH_BASIC,		/* username and password */
	AUTH_EXEC,		/* an exec credential plugin */
};

/* Short, credential-free names for messages: "bearer token", ... */
const char *auth_method_name(enum auth_method method);

enum exec_interactive {
	EXEC_INTERACTIVE_UNSET,	/* the kubeconfig did not say; never in a rest_config */
	EXEC_INTERACTIVE_NEVER,
	EXEC_INTERACTIVE_IF_AVAILABLE,
	EXEC_INTERACTIVE_ALWAYS,
};

/* A user's `exec:` stanza (client.authentication.k8s.io v1 or v1beta1). */
struct exec_config {
	char *api_version;	/* "client.authentication.k8s.io/v1" */
	char *command;		/* absolute when it named a relative path */
	char **args;		/* NULL-terminated, never NULL */
	char **env;		/* "NAME=VALUE", NULL-terminated, never NULL */
	char *install_hint;	/* may be NULL */
	bool provide_cluster_info;
	enum exec_interactive interactive;
};

/*
 * Everything needed to reach one cluster as one user: what kclient_new()
 * consumes.  Every string is owned by the struct; NULL means absent unless
 * said otherwise.
 */
struct rest_config {
	char *server;		/* never NULL: "https://host:port[/prefix]" */
	char *tls_server_name;	/* verify (and SNI) this name, not the host */
	char *proxy_url;
	bool insecure;		/* insecure-skip-tls-verify */
	bool disable_compression;
	struct blob ca;		/* PEM bundle; empty: the system's trust store */
	/* For messages: "'/path/ca.crt'", "certificate-authority-data of cluster 'c'". */
	char *ca_origin;
	struct blob client_cert, client_key;	/* PEM, both or neither */

	enum auth_method auth;
	char *token;		/* AUTH_TOKEN; AUTH_TOKEN_FILE: its content at load */
	char *token_file;	/* AUTH_TOKEN_FILE */
	char *username, *password;	/* AUTH_BASIC */
	struct exec_config *exec;	/* AUTH_EXEC */
	/* Impersonation (`as`, `as-uid`, `as-groups`); groups NULL-terminated. */
	char *impersonate_user, *impersonate_uid;
	char **impersonate_groups;	/* never NULL */

	char *namespace;	/* never NULL: -n, else the context's, else "default" */
	/* Names as the kubeconfig spells them; "" when in-cluster. */
	char *context, *cluster, *user;
	/* The kubeconfig file that defined the context; NULL in-cluster. */
	char *source;
	bool in_cluster;
};

/*
 * Finds and reads the configuration (see the top of this file) and builds
 * the rest config for the chosen context.  0 and *out (free it with
 * rest_config_free), or -1 and err.
 */
int rest_config_load(const struct kubeconfig_opts *opts,
		     struct rest_config **out, struct errbuf *err);
void rest_config_free(struct rest_config *cfg);
/* A deep copy (kclient_new keeps one, so callers may free theirs). */
struct rest_config *rest_config_dup(const struct rest_config *cfg);

/*
 * One line for a header or -v: "context 'kind' · cluster 'kind' · user
 * 'admin' · https://127.0.0.1:6443 · namespace 'default'" (in-cluster:
 * "in-cluster · https://10.0.0.1:443 · namespace 'x'").  Caller frees.
 */
char *rest_config_describe(const struct rest_config *cfg);

/* Who is asking, for messages: "user 'admin' (bearer token)". Caller frees. */
char *rest_config_identity(const struct rest_config *cfg);

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

/*
 * In-cluster configuration, from the environment and the service account
 * directory.  -1 and err when KUBERNETES_SERVICE_HOST/_PORT are unset or
 * the token is unreadable.  (incluster.c)
 */
bool incluster_possible(void);
int incluster_rest_config(const struct kubeconfig_opts *opts,
			  struct rest_config **out, struct errbuf *err);

/* Reads a whole file into b (NUL-terminated past len).  -1 and errno. */
int blob_read_file(struct blob *b, const char *path);
void blob_release(struct blob *b);

#endif
