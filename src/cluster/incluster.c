/*
 * incluster.c — the configuration of a pod's service account, as
 * client-go's rest.InClusterConfig() builds it; see kubeconfig.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/incluster.h"
#include "cluster/tls_cert.h"

#define SERVICEACCOUNT_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

/* Tests fake a pod by pointing this at a directory of their own. */
static const char *serviceaccount_dir(void)
{
	const char *dir = getenv("KINF_SERVICEACCOUNT_DIR");
	return dir && *dir ? dir : SERVICEACCOUNT_DIR;
}

static const char *env_nonempty(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

bool incluster_possible(void)
{
	if (!env_nonempty("KUBERNETES_SERVICE_HOST") || !env_nonempty("KUBERNETES_SERVICE_PORT"))
		return false;
	char *token = xasprintf("%s/token", serviceaccount_dir());
	bool ok = access(token, F_OK) == 0;
	free(token);
	return ok;
}

int incluster_rest_config(const struct kubeconfig_opts *opts, struct rest_config **out,
			  struct errbuf *err)
{
	const char *host = env_nonempty("KUBERNETES_SERVICE_HOST");
	const char *port = env_nonempty("KUBERNETES_SERVICE_PORT");
	const char *dir = serviceaccount_dir();
	struct rest_config *cfg = NULL;
	struct blob b = { 0 };
	char *path = NULL;
	int ret = -1;

	*out = NULL;
	if (!host || !port) {
		errbuf_set(err, "not running in a cluster: KUBERNETES_SERVICE_HOST and "
			   "KUBERNETES_SERVICE_PORT must be set");
		goto cleanup;
	}
	cfg = rest_config_new();
	cfg->in_cluster = true;
	/* An IPv6 address needs brackets in a URL. */
	cfg->server = strchr(host, ':') ? xasprintf("https://[%s]:%s", host, port)
					: xasprintf("https://%s:%s", host, port);

	path = xasprintf("%s/token", dir);
	if (blob_read_file(&b, path) < 0) {
		errbuf_set(err, "cannot read the service account token '%s': %s", path,
			   strerror(errno));
		goto cleanup;
	}
	cfg->auth = AUTH_TOKEN_FILE;
	cfg->token = blob_text(&b, false);
	cfg->token_file = path;
	path = NULL;
	blob_release(&b);

	/* kubectl's --token stands for the account's (clientcmd's inClusterClientConfig) */
	if (opts->token && *opts->token) {
		secret_free(cfg->token);
		free(cfg->token_file);
		cfg->token_file = NULL;
		cfg->auth = AUTH_TOKEN;
		cfg->token = xstrdup(opts->token);
	}

	/*
	 * client-go goes on with the system's roots when ca.crt is unreadable
	 * or holds no certificate (certutil.NewPool fails); --certificate-authority
	 * stands for it, and must be there.
	 */
	if (opts->ca_file && *opts->ca_file) {
		if (blob_read_file(&cfg->ca, opts->ca_file) < 0) {
			errbuf_set(err, "cannot read certificate-authority '%s': %s", opts->ca_file,
				   strerror(errno));
			goto cleanup;
		}
		cfg->ca_origin = xasprintf("'%s'", opts->ca_file);
		cfg->ca_file = xstrdup(opts->ca_file);
	} else {
		struct cert_info ci;
		path = xasprintf("%s/ca.crt", dir);
		if (blob_read_file(&cfg->ca, path) == 0 &&
		    cert_info_from_pem(cfg->ca.data, cfg->ca.len, &ci) == 0) {
			cfg->ca_origin = xasprintf("'%s'", path);
			cfg->ca_file = xstrdup(path);
		} else {
			blob_release(&cfg->ca);
		}
		free(path);
		path = NULL;
	}

	const char *ns = opts->namespace && *opts->namespace ? opts->namespace
							     : env_nonempty("POD_NAMESPACE");
	if (ns) {
		cfg->namespace = xstrdup(ns);
	} else {
		path = xasprintf("%s/namespace", dir);
		if (blob_read_file(&b, path) == 0)
			cfg->namespace = blob_text(&b, true);
		blob_release(&b);
		if (!cfg->namespace || !*cfg->namespace) {
			free(cfg->namespace);
			cfg->namespace = xstrdup("default");
		}
	}
	cfg->context = xstrdup("");
	cfg->cluster = xstrdup("");
	cfg->user = xstrdup("");
	*out = cfg;
	cfg = NULL;
	ret = 0;
cleanup:
	free(path);
	blob_release(&b);
	rest_config_free(cfg);
	return ret;
}
