/*
 * rest_config.c — the rest config's life: made, copied, described, freed.
 * Filled by kubeconfig.c or incluster.c; consumed by http.c.
 */
#include "cluster/rest_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/strbuf.h"

void blob_release(struct blob *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
}

void blob_copy(struct blob *dst, const struct blob *src)
{
	dst->data = src->len ? xstrndup(src->data, src->len) : NULL;
	dst->len = src->len;
}

char *blob_text(const struct blob *b, bool trim)
{
	const char *s = b->data ? b->data : "";
	size_t len = b->len;

	if (trim)
		go_trim_space(&s, &len);
	char *text = xstrndup(s, len);
	for (size_t i = 0; i < len; i++)
		if (!text[i])
			text[i] = 0x7f;
	return text;
}

void secret_free(char *s)
{
	if (s)
		explicit_bzero(s, strlen(s));
	free(s);
}

int blob_read_file(struct blob *b, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	FILE *f = fopen(path, "rb");
	int rc = f ? strbuf_read_fd(&sb, fileno(f)) : -1, saved = errno;

	if (f)
		fclose(f);
	if (rc < 0) {
		strbuf_release(&sb);
		errno = saved;
		return -1;
	}
	b->data = strbuf_detach(&sb, &b->len);
	return 0;
}

void exec_config_free(struct exec_config *e)
{
	if (!e)
		return;
	free(e->api_version);
	free(e->command);
	strv_free(e->args);
	strv_free(e->env);
	free(e->install_hint);
	free(e);
}

struct exec_config *exec_config_dup(const struct exec_config *e)
{
	struct exec_config *d = xcalloc(1, sizeof(*d));
	d->api_version = xstrdup_or_null(e->api_version);
	d->command = xstrdup_or_null(e->command);
	d->args = strv_dup(e->args);
	d->env = strv_dup(e->env);
	d->install_hint = xstrdup_or_null(e->install_hint);
	d->provide_cluster_info = e->provide_cluster_info;
	d->interactive = e->interactive;
	return d;
}

struct rest_config *rest_config_new(void)
{
	struct rest_config *cfg = xcalloc(1, sizeof(*cfg));
	cfg->impersonate_groups = xcalloc(1, sizeof(char *));
	cfg->impersonate_extra = xcalloc(1, sizeof(char *));
	return cfg;
}

/* Every TLS setting and credential, let go of (the secrets wiped first). */
static void release_tls_and_auth(struct rest_config *cfg)
{
	free(cfg->tls_server_name);
	cfg->tls_server_name = NULL;
	cfg->insecure = false;
	blob_release(&cfg->ca);
	free(cfg->ca_origin);
	cfg->ca_origin = NULL;
	free(cfg->ca_file);
	cfg->ca_file = NULL;
	blob_release(&cfg->client_cert);
	blob_release(&cfg->client_key);
	free(cfg->client_cert_file);
	free(cfg->client_key_file);
	cfg->client_cert_file = cfg->client_key_file = NULL;
	secret_free(cfg->token);
	free(cfg->token_file);
	free(cfg->username);
	secret_free(cfg->password);
	exec_config_free(cfg->exec);
	cfg->token = cfg->token_file = cfg->username = cfg->password = NULL;
	cfg->exec = NULL;
	cfg->auth = AUTH_NONE;
}

void rest_config_plain_http(struct rest_config *cfg)
{
	release_tls_and_auth(cfg);
	cfg->plain_http = true;
}

void rest_config_free(struct rest_config *cfg)
{
	if (!cfg)
		return;
	release_tls_and_auth(cfg);
	free(cfg->server);
	free(cfg->server_user);
	secret_free(cfg->server_password);
	free(cfg->proxy_url);
	free(cfg->exec_cluster_config);
	free(cfg->impersonate_user);
	free(cfg->impersonate_uid);
	strv_free(cfg->impersonate_groups);
	strv_free(cfg->impersonate_extra);
	free(cfg->namespace);
	free(cfg->context);
	free(cfg->cluster);
	free(cfg->user);
	free(cfg->source);
	free(cfg);
}

struct rest_config *rest_config_dup(const struct rest_config *cfg)
{
	struct rest_config *d = xcalloc(1, sizeof(*d));
	d->server = xstrdup_or_null(cfg->server);
	d->tls_server_name = xstrdup_or_null(cfg->tls_server_name);
	d->proxy_url = xstrdup_or_null(cfg->proxy_url);
	d->exec_cluster_config = xstrdup_or_null(cfg->exec_cluster_config);
	d->insecure = cfg->insecure;
	d->disable_compression = cfg->disable_compression;
	blob_copy(&d->ca, &cfg->ca);
	d->ca_origin = xstrdup_or_null(cfg->ca_origin);
	d->ca_file = xstrdup_or_null(cfg->ca_file);
	blob_copy(&d->client_cert, &cfg->client_cert);
	blob_copy(&d->client_key, &cfg->client_key);
	d->client_cert_file = xstrdup_or_null(cfg->client_cert_file);
	d->client_key_file = xstrdup_or_null(cfg->client_key_file);
	d->auth = cfg->auth;
	d->token = xstrdup_or_null(cfg->token);
	d->token_file = xstrdup_or_null(cfg->token_file);
	d->username = xstrdup_or_null(cfg->username);
	d->password = xstrdup_or_null(cfg->password);
	d->server_user = xstrdup_or_null(cfg->server_user);
	d->server_password = xstrdup_or_null(cfg->server_password);
	d->exec = cfg->exec ? exec_config_dup(cfg->exec) : NULL;
	d->impersonate_user = xstrdup_or_null(cfg->impersonate_user);
	d->impersonate_uid = xstrdup_or_null(cfg->impersonate_uid);
	d->impersonate_groups = strv_dup(cfg->impersonate_groups);
	d->impersonate_extra = strv_dup(cfg->impersonate_extra);
	d->namespace = xstrdup_or_null(cfg->namespace);
	d->context = xstrdup_or_null(cfg->context);
	d->cluster = xstrdup_or_null(cfg->cluster);
	d->user = xstrdup_or_null(cfg->user);
	d->source = xstrdup_or_null(cfg->source);
	d->in_cluster = cfg->in_cluster;
	d->user_missing = cfg->user_missing;
	d->plain_http = cfg->plain_http;
	return d;
}

static void credential_words(struct strbuf *sb, const struct rest_config *cfg)
{
	if (cfg->server_user) {
		strbuf_addf(sb, " (basic auth as '%s', from the server's URL)", cfg->server_user);
		return;
	}
	if (cfg->plain_http) {
		strbuf_adds(sb, " (no credentials: the server is not https, and client-go "
			    "sends none over http)");
		return;
	}
	switch (cfg->auth) {
	case AUTH_NONE:
		strbuf_adds(sb, cfg->client_cert.len ? " (client certificate)" :
			    cfg->user_missing ? " (no credentials: the kubeconfig does not define "
			    "the user)" : " (no credentials)");
		break;
	case AUTH_TOKEN:
		strbuf_adds(sb, " (bearer token)");
		break;
	case AUTH_TOKEN_FILE:
		strbuf_addf(sb, " (token file '%s')", cfg->token_file);
		break;
	case AUTH_BASIC:
		strbuf_addf(sb, " (basic auth as '%s')", cfg->username);
		break;
	case AUTH_EXEC:
		strbuf_addf(sb, " (exec plugin '%s')", cfg->exec->command);
		break;
	}
}

char *rest_config_identity(const struct rest_config *cfg)
{
	struct strbuf sb = STRBUF_INIT;

	if (cfg->in_cluster)
		strbuf_adds(&sb, "the service account");
	else if (cfg->user && *cfg->user)
		strbuf_addf(&sb, "user '%s'", cfg->user);
	else if (cfg->auth != AUTH_NONE || cfg->client_cert.len || cfg->server_user)
		strbuf_adds(&sb, "an unnamed user");	/* -s with --token, and no kubeconfig */
	else
		strbuf_adds(&sb, "an anonymous user");
	credential_words(&sb, cfg);
	if (cfg->impersonate_user)
		strbuf_addf(&sb, " impersonating '%s'", cfg->impersonate_user);
	return strbuf_detach(&sb, NULL);
}
