/*
 * rest_config.h — everything needed to reach one cluster as one user,
 * whichever source it came from (a kubeconfig, or the pod's service
 * account): the structure kubeconfig.c and incluster.c fill and
 * kclient_new() consumes.  Below both of them, so neither needs the other
 * for its types.
 */
#ifndef KINF_REST_CONFIG_H
#define KINF_REST_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/util.h"

/* What the command line chose; NULL fields mean "not given". */
struct kubeconfig_opts {
	const char *kubeconfig;
	const char *context;
	const char *cluster;
	const char *user;
	/* Impersonation over the user's own (kubectl's --as, --as-uid, --as-group). */
	const char *as, *as_uid;
	const char *const *as_groups;	/* NULL-terminated; NULL: the user's own */
	const char *namespace;
	/*
	 * kubectl's flags over the cluster and user the context names
	 * (clientcmd's ConfigOverrides): --server, --certificate-authority,
	 * --insecure-skip-tls-verify, --tls-server-name,
	 * --disable-compression, --token, --username, --password,
	 * --client-certificate, --client-key.
	 */
	const char *server, *ca_file, *tls_server_name;
	bool insecure, disable_compression;
	const char *token, *username, *password, *cert_file, *key_file;
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

enum exec_interactive {
	EXEC_INTERACTIVE_UNSET,	/* the kubeconfig did not say; never in a rest_config */
	EXEC_INTERACTIVE_NEVER,
	EXEC_INTERACTIVE_IF_AVAILABLE,
	EXEC_INTERACTIVE_ALWAYS,
	EXEC_INTERACTIVE_INVALID,	/* none of those; refused if the user is used */
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
	/* JSON: the cluster's client.authentication.k8s.io/exec extension, for exec plugins */
	char *exec_cluster_config;
	bool insecure;		/* insecure-skip-tls-verify */
	bool disable_compression;
	struct blob ca;		/* PEM bundle; empty: the system's trust store */
	char *ca_file;		/* the file ca was read from; NULL: data, or none */
	/* For messages: "'/path/ca.crt'", "certificate-authority-data of cluster 'c'". */
	char *ca_origin;
	struct blob client_cert, client_key;	/* PEM, both or neither */
	/*
	 * Both read from files, neither given as data: client-go's
	 * ReloadTLSFiles, under which a new certificate in them replaces
	 * client_cert and client_key (credential.h).  NULL otherwise.
	 */
	char *client_cert_file, *client_key_file;

	enum auth_method auth;
	char *token;		/* AUTH_TOKEN; AUTH_TOKEN_FILE: its content at load */
	char *token_file;	/* AUTH_TOKEN_FILE */
	char *username, *password;	/* AUTH_BASIC */
	/*
	 * The user information of the server's URL ("https://jane:pw@host"),
	 * taken out of server: Go's http.Client sends it as Basic auth, ahead
	 * of every credential above, https or not.  NULL: none (password NULL:
	 * empty).
	 */
	char *server_user, *server_password;
	struct exec_config *exec;	/* AUTH_EXEC */
	/*
	 * Impersonation (`as`, `as-uid`, `as-groups`, `as-user-extra`);
	 * groups NULL-terminated, extra key, value, key, value..., NULL.
	 */
	char *impersonate_user, *impersonate_uid;
	char **impersonate_groups;	/* never NULL */
	char **impersonate_extra;	/* never NULL */

	char *namespace;	/* never NULL: -n, else the context's, else "default" */
	/* Names as the kubeconfig spells them; "" when in-cluster. */
	char *context, *cluster, *user;
	/* the context names a user the kubeconfig does not define: none is used */
	bool user_missing;
	/* The kubeconfig file that defined the context; NULL in-cluster. */
	char *source;
	bool in_cluster;
	/* rest_config_plain_http() dropped the credential and TLS settings */
	bool plain_http;
};

/*
 * The server is not https: drops what clientcmd never reads then, every
 * credential and TLS setting (its ClientConfig reads the user's auth and
 * the cluster's CA only "if we are secure"), and sets plain_http.
 */
void rest_config_plain_http(struct rest_config *cfg);

/* An empty config (impersonate_groups and _extra allocated, every string NULL). */
struct rest_config *rest_config_new(void);
void rest_config_free(struct rest_config *cfg);
/* A deep copy (kclient_new keeps one, so callers may free theirs). */
struct rest_config *rest_config_dup(const struct rest_config *cfg);

/* Who is asking, for messages: "user 'admin' (bearer token)", then " impersonating
 * 'jane'" when it does.  Caller frees. */
char *rest_config_identity(const struct rest_config *cfg);

/* Reads a whole file into b (NUL-terminated past len).  -1 and errno. */
int blob_read_file(struct blob *b, const char *path);
void blob_release(struct blob *b);
/* A copy of src into dst (NUL-terminated past len); empty stays empty. */
void blob_copy(struct blob *dst, const struct blob *src);
/*
 * A file's text as client-go takes it, as a string: all of it (the
 * BearerToken clientcmd reads from a tokenFile), or with trim as Go's
 * strings.TrimSpace leaves it (a token file read again, the in-cluster
 * namespace).  A NUL, which a C string cannot hold, becomes DEL: in a
 * header Go refuses either, and kinf refuses DEL as it does
 * (header_refused()).
 */
char *blob_text(const struct blob *b, bool trim);
/*
 * Frees s (NULL: nothing), a credential, zeroed first.  Every wipe of a
 * secret is explicit_bzero(): a memset() right before free() is a dead
 * store the compiler drops.
 */
void secret_free(char *s);

void exec_config_free(struct exec_config *e);
struct exec_config *exec_config_dup(const struct exec_config *e);

#endif
