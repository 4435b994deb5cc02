/*
 * test_kubeconfig.c — the kubeconfig as kubectl reads it: parsing,
 * KUBECONFIG merging, relative paths, overrides, in-cluster, and an
 * actionable message for every malformed or incomplete file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/base64.h"
#include "cluster/exec_credential.h"
#include "cluster/incluster.h"
#include "cluster/kubeconfig.h"
#include "old_cert.h"
#include "unit.h"

static char tmpdir[] = "/tmp/kinf-kubeconfig-XXXXXX";

static char *path_in(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

static void write_file(const char *name, const char *text)
{
	char *path = path_in(name);
	for (char *p = path + strlen(tmpdir) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0700);
		*p = '/';
	}
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
	free(path);
}

/* Parses text as if it were the file `name` and resolves opts' context. */
static int load_text(const char *text, const struct kubeconfig_opts *opts,
		     struct rest_config **cfg, struct errbuf *err)
{
	static const struct kubeconfig_opts none;
	struct kubeconfig *kc = kubeconfig_parse("/cfg/config", text, strlen(text), err);
	if (!kc)
		return -1;
	int rc = kubeconfig_rest_config(kc, opts ? opts : &none, cfg, err);
	kubeconfig_free(kc);
	return rc;
}

#define CHECK_CONTAINS(hay, needle)                                         \
	do {                                                                \
		const char *h_ = (hay), *n_ = (needle);                     \
		UNIT_CHECK(#hay " contains " #needle, h_ && strstr(h_, n_), \
			   "\"%s\" does not contain \"%s\"", h_ ? h_ : "(null)", n_); \
	} while (0)

static const char basic[] =
	"apiVersion: v1\n"
	"kind: Config\n"
	"current-context: dev\n"
	"clusters:\n"
	"- name: kind\n"
	"  cluster:\n"
	"    server: https://127.0.0.1:6443/\n"
	"    certificate-authority-data: aGVsbG8=\n"
	"    tls-server-name: kubernetes\n"
	"    proxy-url: socks5://proxy:1080\n"
	"- name: other\n"
	"  cluster: {server: 'https://other:443', insecure-skip-tls-verify: true}\n"
	"users:\n"
	"- name: admin\n"
	"  user:\n"
	"    token: s3cr3t\n"
	"- name: basic\n"
	"  user: {username: jane, password: pw}\n"
	"contexts:\n"
	"- name: dev\n"
	"  context: {cluster: kind, user: admin, namespace: team-a}\n"
	"- name: prod\n"
	"  context:\n"
	"    cluster: other\n"
	"    user: basic\n"
	"preferences: {}\n";

TEST(parses_the_current_context)
{
	struct rest_config *cfg = NULL;
	struct errbuf err = { "" };
	CHECK_INT(load_text(basic, NULL, &cfg, &err), 0);
	if (!cfg)
		return;
	CHECK_STR(cfg->context, "dev");
	CHECK_STR(cfg->cluster, "kind");
	CHECK_STR(cfg->user, "admin");
	CHECK_STR(cfg->server, "https://127.0.0.1:6443");
	CHECK_STR(cfg->namespace, "team-a");
	CHECK_STR(cfg->tls_server_name, "kubernetes");
	CHECK_STR(cfg->proxy_url, "socks5://proxy:1080");
	CHECK_INT(cfg->ca.len, 5);
	CHECK(cfg->ca.data && !memcmp(cfg->ca.data, "hello", 5));
	CHECK_CONTAINS(cfg->ca_origin, "certificate-authority-data of cluster 'kind'");
	CHECK_INT(cfg->auth, AUTH_TOKEN);
	CHECK_STR(cfg->token, "s3cr3t");
	CHECK_STR(cfg->source, "/cfg/config");
	CHECK(!cfg->insecure);
	char *id = rest_config_identity(cfg);
	CHECK_STR(id, "user 'admin' (bearer token)");
	CHECK(!strstr(id, "s3cr3t"));
	free(id);
	cfg->impersonate_user = xstrdup("jane");
	id = rest_config_identity(cfg);
	CHECK_STR(id, "user 'admin' (bearer token) impersonating 'jane'");
	free(id);
	rest_config_free(cfg);
}

TEST(context_flag_and_overrides)
{
	struct rest_config *cfg = NULL;
	struct errbuf err = { "" };
	struct kubeconfig_opts opts = { .context = "prod" };
	CHECK_INT(load_text(basic, &opts, &cfg, &err), 0);
	if (cfg) {
		CHECK_STR(cfg->server, "https://other:443");
		CHECK(cfg->insecure);
		CHECK_INT(cfg->auth, AUTH_BASIC);
		CHECK_STR(cfg->username, "jane");
		CHECK_STR(cfg->namespace, "default");
		rest_config_free(cfg);
	}

	struct kubeconfig_opts over = { .cluster = "other", .user = "basic",
					.namespace = "ns1" };
	cfg = NULL;
	CHECK_INT(load_text(basic, &over, &cfg, &err), 0);
	if (cfg) {
		CHECK_STR(cfg->context, "dev");
		CHECK_STR(cfg->cluster, "other");
		CHECK_STR(cfg->user, "basic");
		CHECK_STR(cfg->namespace, "ns1");
		rest_config_free(cfg);
	}
}

TEST(unknown_context_lists_the_known_ones)
{
	struct rest_config *cfg = NULL;
	struct errbuf err = { "" };
	struct kubeconfig_opts opts = { .context = "staging" };
	CHECK_INT(load_text(basic, &opts, &cfg, &err), -1);
	CHECK(!cfg);
	CHECK_STR(err.msg, "context 'staging' not found in kubeconfig '/cfg/config' "
		  "(contexts: 'dev', 'prod')");
}

TEST(unknown_cluster_and_user)
{
	struct rest_config *cfg = NULL;
	struct errbuf err = { "" };
	struct kubeconfig_opts opts = { .cluster = "nope" };
	CHECK_INT(load_text(basic, &opts, &cfg, &err), -1);
	CHECK_STR(err.msg, "cluster 'nope' (--cluster) not found in kubeconfig '/cfg/config'");

	static const char dangling[] =
		"current-context: c\n"
		"contexts: [{name: c, context: {cluster: gone, user: u}}]\n";
	CHECK_INT(load_text(dangling, NULL, &cfg, &err), -1);
	CHECK_STR(err.msg, "cluster 'gone' of context 'c' not found in kubeconfig '/cfg/config'");

	static const char no_user[] =
		"current-context: c\n"
		"clusters: [{name: k, cluster: {server: 'https://k'}}]\n"
		"contexts: [{name: c, context: {cluster: k, user: ghost}}]\n";
	/* clientcmd's getAuthInfo(): a user only a context names may be missing */
	CHECK_INT(load_text(no_user, NULL, &cfg, &err), 0);
	CHECK_STR(cfg->user, "ghost");
	CHECK(cfg->user_missing && cfg->auth == AUTH_NONE);
	rest_config_free(cfg);
	struct kubeconfig_opts by_flag = { .user = "ghost" };
	CHECK_INT(load_text(no_user, &by_flag, &cfg, &err), -1);
	CHECK_STR(err.msg, "user 'ghost' (--user) not found in kubeconfig '/cfg/config'");
}

TEST(malformed_yaml_names_file_and_line)
{
	struct errbuf err = { "" };
	static const char text[] =
		"clusters:\n"
		"- name: a\n"
		"  cluster:\n"
		"    server: https://a\n"
		"   bad: indentation\n";
	struct kubeconfig *kc = kubeconfig_parse("/home/me/.kube/config", text, strlen(text), &err);
	CHECK(!kc);
	CHECK_CONTAINS(err.msg, "malformed kubeconfig '/home/me/.kube/config' line 5");

	static const char unclosed[] = "users:\n- name: u\n  user: {token: x\n";
	kc = kubeconfig_parse("k", unclosed, strlen(unclosed), &err);
	CHECK(!kc);
	CHECK_CONTAINS(err.msg, "malformed kubeconfig 'k' line");

	static const char tab[] = "clusters:\n\t- name: a\n";
	kc = kubeconfig_parse("k", tab, strlen(tab), &err);
	CHECK(!kc);
	CHECK_CONTAINS(err.msg, "line 2");
}

TEST(wrong_shapes_name_the_key_and_line)
{
	struct errbuf err = { "" };
	struct kubeconfig *kc;
	static const char *const cases[][2] = {
		{ "clusters: 5\n", "kubeconfig 'f' line 1: 'clusters' must be a list" },
		{ "users:\n- just-a-string\n",
		  "kubeconfig 'f' line 2: each of 'users' must be a mapping with a name" },
		{ "clusters:\n- name: a\n  cluster:\n    server: [x]\n",
		  "kubeconfig 'f' line 4: 'server' must be a string" },
		{ "clusters:\n- name: a\n  cluster:\n    insecure-skip-tls-verify: maybe\n",
		  "kubeconfig 'f' line 4: 'insecure-skip-tls-verify' must be true or false" },
		{ "clusters:\n- name: a\n  cluster:\n    certificate-authority-data: '***'\n",
		  "kubeconfig 'f' line 4: 'certificate-authority-data' is not valid base64" },
		{ "contexts:\n- name: a\n- name: a\n",
		  "kubeconfig 'f' line 3: context 'a' is defined twice" },
		{ "- a\n- b\n", "kubeconfig 'f' line 1: a kubeconfig must be a mapping" },
		{ "users:\n- name: u\n  user:\n    exec:\n      args: foo\n",
		  "kubeconfig 'f' line 5: 'args' must be a list of strings" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		err.msg[0] = '\0';
		kc = kubeconfig_parse("f", cases[i][0], strlen(cases[i][0]), &err);
		CHECK(!kc);
		kubeconfig_free(kc);
		CHECK_CONTAINS(err.msg, cases[i][1]);
	}
}

TEST(empty_and_null_values_are_absent)
{
	struct errbuf err = { "" };
	static const char *const texts[] = { "", "---\n", "~\n", "clusters:\nusers: null\n",
					     "{}\n" };
	for (size_t i = 0; i < ARRAY_SIZE(texts); i++) {
		struct kubeconfig *kc = kubeconfig_parse("f", texts[i], strlen(texts[i]), &err);
		CHECK(kc != NULL);
		kubeconfig_free(kc);
	}
	struct rest_config *cfg = NULL;
	CHECK_INT(load_text("", NULL, &cfg, &err), -1);
	CHECK_STR(err.msg, "kubeconfig '/cfg/config' defines no context");
	CHECK_INT(load_text("contexts: [{name: a}, {name: b}]\n", NULL, &cfg, &err), -1);
	CHECK_STR(err.msg, "kubeconfig '/cfg/config' has no current-context; choose one "
		  "with --context ('a', 'b')");
	/* no current-context names "", and a context of no name has it */
	CHECK_INT(load_text("clusters: [{name: k, cluster: {server: 'https://k'}}]\n"
			    "contexts: [{name: a}, {context: {cluster: k}}]\n", NULL, &cfg, &err), 0);
	CHECK_STR(cfg ? cfg->server : "(none)", "https://k");
	rest_config_free(cfg);
}

/* A merge that would set a key 10^8 times is refused, and soon. */
TEST(a_merge_bomb_is_refused)
{
	struct errbuf err = { "" };
	struct strbuf sb = STRBUF_INIT;
	strbuf_adds(&sb, "a0: &a0 {server: x, token: y}\n");
	for (int i = 1; i <= 8; i++) {
		strbuf_addf(&sb, "a%d: &a%d {<<: [", i, i);
		for (int j = 0; j < 10; j++)
			strbuf_addf(&sb, "%s*a%d", j ? ", " : "", i - 1);
		strbuf_adds(&sb, "]}\n");
	}
	strbuf_adds(&sb, "clusters: [{name: k, cluster: {<<: *a8}}]\n");
	struct kubeconfig *kc = kubeconfig_parse("f", sb.buf, sb.len, &err);
	CHECK(!kc);
	CHECK_CONTAINS(err.msg, "kubeconfig 'f' line 10: merges (<<) set too many keys");
	kubeconfig_free(kc);
	strbuf_release(&sb);
}

TEST(missing_fields_are_reported)
{
	struct errbuf err = { "" };
	struct rest_config *cfg = NULL;
	static const char *const cases[][2] = {
		{ "current-context: c\n"
		  "clusters: [{name: k, cluster: {}}]\n"
		  "contexts: [{name: c, context: {cluster: k}}]\n",
		  "cluster 'k' has no server (kubeconfig '/cfg/config' line 2)" },
		{ "current-context: c\n"
		  "contexts: [{name: c, context: {user: u}}]\n",
		  "context 'c' names no cluster" },
		{ "current-context: c\n"
		  "clusters: [{name: k, cluster: {server: 'https://k'}}]\n"
		  "users: [{name: u, user: {client-certificate-data: aGVsbG8=}}]\n"
		  "contexts: [{name: c, context: {cluster: k, user: u}}]\n",
		  "user 'u' has a client certificate but no client key" },
		{ "current-context: c\n"
		  "clusters: [{name: k, cluster: {server: 'https://k'}}]\n"
		  "users: [{name: u, user: {token: t, username: a, password: b}}]\n"
		  "contexts: [{name: c, context: {cluster: k, user: u}}]\n",
		  "user 'u' has both a token and a username/password" },
		{ "current-context: c\n"
		  "clusters: [{name: k, cluster: {server: 'https://k'}}]\n"
		  "contexts: [{name: c, context: {cluster: k, namespace: no}}]\n",
		  "'namespace' must be a string, and no unquoted is a boolean to client-go" },
		{ "current-context: c\n"
		  "clusters: [{name: k, cluster: {server: 'https://k'}}]\n"
		  "users: [{name: u, user: {token: 0x1F}}]\n"
		  "contexts: [{name: c, context: {cluster: k, user: u}}]\n",
		  "'token' must be a string, and 0x1F unquoted is a number to client-go" },
		{ "current-context: c\n"
		  "clusters: [{name: k, cluster: {server: 'https://k'}}]\n"
		  "users: [{name: u, user: {exec: {command: x, args: [a, 1e3]}}}]\n"
		  "contexts: [{name: c, context: {cluster: k, user: u}}]\n",
		  "'args' must be a string, and 1e3 unquoted is a number to client-go" },
		{ "current-context: c\n"
		  "clusters: [{name: k, cluster: {server: 'https://k', "
		  "insecure-skip-tls-verify: 'true'}}]\n"
		  "contexts: [{name: c, context: {cluster: k}}]\n",
		  "'insecure-skip-tls-verify' must be true or false, unquoted" },
		{ "current-context: c\n"
		  "clusters: [{name: k, cluster: {server: 'https://k'}}]\n"
		  "users: [{name: u, user: {exec: {command: x, interactiveMode: Sometimes, "
		  "apiVersion: client.authentication.k8s.io/v1}}}]\n"
		  "contexts: [{name: c, context: {cluster: k, user: u}}]\n",
		  "exec plugin of user 'u' has an interactiveMode neither Never, IfAvailable nor "
		  "Always (kubeconfig '/cfg/config' line 3)" },
		{ "current-context: c\n"
		  "clusters: [{name: k, cluster: {server: 'https://k'}}]\n"
		  "users: [{name: u, user: {exec: {command: x, env: [{value: v}], "
		  "apiVersion: client.authentication.k8s.io/v1beta1}}}]\n"
		  "contexts: [{name: c, context: {cluster: k, user: u}}]\n",
		  "exec plugin of user 'u' has an env entry with no name" },
		{ "current-context: c\n"
		  "clusters: [{name: k, cluster: {server: 'https://k'}}]\n"
		  "users: [{name: u, user: {tokenFile: /t, username: a}}]\n"
		  "contexts: [{name: c, context: {cluster: k, user: u}}]\n",
		  "user 'u' has both a token file and a username" },
		{ "current-context: c\n"
		  "clusters: [{name: k, cluster: {server: 'https://k', insecure-skip-tls-verify: true,"
		  " certificate-authority-data: aGVsbG8=}}]\n"
		  "contexts: [{name: c, context: {cluster: k}}]\n",
		  "cluster 'k' sets both insecure-skip-tls-verify and a certificate authority" },
		{ "current-context: c\n"
		  "clusters: [{name: k, cluster: {server: 'https://k'}}]\n"
		  "users: [{name: u, user: {exec: {command: x}}}]\n"
		  "contexts: [{name: c, context: {cluster: k, user: u}}]\n",
		  "exec plugin of user 'u' has no apiVersion" },
		{ "current-context: c\n"
		  "clusters: [{name: k, cluster: {server: 'https://k'}}]\n"
		  "users: [{name: u, user: {exec: {command: x, "
		  "apiVersion: client.authentication.k8s.io/v1}}}]\n"
		  "contexts: [{name: c, context: {cluster: k, user: u}}]\n",
		  "exec plugin of user 'u' needs interactiveMode" },
		{ "current-context: c\n"
		  "clusters: [{name: k, cluster: {server: 'https://k'}}]\n"
		  "users: [{name: u, user: {exec: {command: x, "
		  "apiVersion: client.authentication.k8s.io/v1alpha1}}}]\n"
		  "contexts: [{name: c, context: {cluster: k, user: u}}]\n",
		  "has apiVersion 'client.authentication.k8s.io/v1alpha1'" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		err.msg[0] = '\0';
		CHECK_INT(load_text(cases[i][0], NULL, &cfg, &err), -1);
		CHECK_CONTAINS(err.msg, cases[i][1]);
	}
}

TEST(auth_provider_is_refused_by_name)
{
	struct errbuf err = { "" };
	struct rest_config *cfg = NULL;
	static const char text[] =
		"current-context: gke\n"
		"clusters: [{name: k, cluster: {server: 'https://k'}}]\n"
		"users:\n"
		"- name: me@gke\n"
		"  user:\n"
		"    auth-provider:\n"
		"      name: gcp\n"
		"      config: {access-token: abc}\n"
		"contexts: [{name: gke, context: {cluster: k, user: me@gke}}]\n";
	CHECK_INT(load_text(text, NULL, &cfg, &err), -1);
	CHECK_CONTAINS(err.msg, "user 'me@gke' uses auth-provider 'gcp', which kinf does not support");
	CHECK_CONTAINS(err.msg, "gke-gcloud-auth-plugin");
	CHECK_CONTAINS(err.msg, "line 4");
	CHECK(!strstr(err.msg, "abc"));
}

TEST(exec_stanza)
{
	struct errbuf err = { "" };
	struct rest_config *cfg = NULL;
	static const char text[] =
		"current-context: c\n"
		"clusters: [{name: k, cluster: {server: 'https://k'}}]\n"
		"users:\n"
		"- name: u\n"
		"  user:\n"
		"    exec:\n"
		"      apiVersion: client.authentication.k8s.io/v1beta1\n"
		"      command: ./bin/plugin\n"
		"      args: [get-token, --cluster, k]\n"
		"      env:\n"
		"      - {name: FOO, value: bar}\n"
		"      - name: EMPTY\n"
		"      installHint: |\n"
		"        install it\n"
		"        with care\n"
		"      provideClusterInfo: true\n"
		"contexts: [{name: c, context: {cluster: k, user: u}}]\n";
	CHECK_INT(load_text(text, NULL, &cfg, &err), 0);
	if (!cfg)
		return;
	CHECK_INT(cfg->auth, AUTH_EXEC);
	CHECK_STR(cfg->exec->command, "/cfg/./bin/plugin");
	CHECK_STR(cfg->exec->args[0], "get-token");
	CHECK_STR(cfg->exec->args[2], "k");
	CHECK(cfg->exec->args[3] == NULL);
	CHECK_STR(cfg->exec->env[0], "FOO=bar");
	CHECK_STR(cfg->exec->env[1], "EMPTY=");
	CHECK_INT(cfg->exec->interactive, EXEC_INTERACTIVE_IF_AVAILABLE);
	CHECK(cfg->exec->provide_cluster_info);
	CHECK_STR(cfg->exec->install_hint, "install it\nwith care\n");
	struct rest_config *copy = rest_config_dup(cfg);
	CHECK_STR(copy->exec->env[0], "FOO=bar");
	rest_config_free(copy);
	rest_config_free(cfg);

	/* A bare command name is looked up in PATH, not next to the file. */
	static const char bare[] =
		"current-context: c\n"
		"clusters: [{name: k, cluster: {server: 'https://k'}}]\n"
		"users: [{name: u, user: {exec: {command: aws, interactiveMode: Never,"
		" apiVersion: client.authentication.k8s.io/v1}}}]\n"
		"contexts: [{name: c, context: {cluster: k, user: u}}]\n";
	CHECK_INT(load_text(bare, NULL, &cfg, &err), 0);
	if (cfg) {
		CHECK_STR(cfg->exec->command, "aws");
		CHECK_INT(cfg->exec->interactive, EXEC_INTERACTIVE_NEVER);
		rest_config_free(cfg);
	}
}

/* http, a CA or not, and then no credential or TLS setting: clientcmd's ClientConfig. */
TEST(server_without_scheme)
{
	struct errbuf err = { "" };
	struct rest_config *cfg = NULL;
	CHECK_INT(load_text("current-context: c\n"
			    "clusters: [{name: k, cluster: {server: 'k:6443', "
			    "certificate-authority-data: aGVsbG8=, tls-server-name: sn}}]\n"
			    "users: [{name: u, user: {token: t, as: bob}}]\n"
			    "contexts: [{name: c, context: {cluster: k, user: u}}]\n", NULL, &cfg,
			    &err), 0);
	if (cfg) {
		CHECK_STR(cfg->server, "http://k:6443");
		CHECK(cfg->plain_http);
		CHECK_INT(cfg->auth, AUTH_NONE);
		CHECK(!cfg->token && !cfg->ca.len && !cfg->tls_server_name);
		CHECK_STR(cfg->impersonate_user, "bob");
		CHECK_STR(cfg->user, "u");
		rest_config_free(cfg);
	}
}

/* clientcmd's ClientConfig: a '#' is part of a path longer than "/", escaped then */
TEST(server_path_as_a_request_uri)
{
	static const char *const cases[][2] = {
		{ "https://k/#f?x=1", "https://k/%23f" },
		{ "https://k/p#f", "https://k/p%23f" },
		{ "https://k/?x=1#f", "https://k/?x=1#f" },
		{ "https://k:1#f/p", "https://k:1#f/p" },
		{ "k:6443/#f", "http://k:6443/#f" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct errbuf err = { "" };
		struct rest_config *cfg = NULL;
		char *text = xasprintf("current-context: c\n"
				       "clusters: [{name: k, cluster: {server: '%s'}}]\n"
				       "contexts: [{name: c, context: {cluster: k}}]\n", cases[i][0]);
		CHECK_INT(load_text(text, NULL, &cfg, &err), 0);
		if (cfg)
			CHECK_STR(cfg->server, cases[i][1]);
		rest_config_free(cfg);
		free(text);
	}
}

TEST(relative_paths_resolve_against_the_file)
{
	struct errbuf err = { "" };
	struct rest_config *cfg = NULL;
	write_file("rel/certs/ca.crt", "CA PEM\n");
	write_file("rel/certs/me.crt", "CERT PEM\n");
	write_file("rel/certs/me.key", "KEY PEM\n");
	write_file("rel/token", "  tok-from-file\n");
	write_file("rel/config",
		   "current-context: c\n"
		   "clusters: [{name: k, cluster: {server: 'https://k', "
		   "certificate-authority: certs/ca.crt}}]\n"
		   "users: [{name: u, user: {client-certificate: certs/me.crt, "
		   "client-key: certs/me.key, tokenFile: token}}]\n"
		   "contexts: [{name: c, context: {cluster: k, user: u}}]\n");
	char *path = path_in("rel/config");
	struct kubeconfig_opts opts = { .kubeconfig = path };
	CHECK_INT(rest_config_load(&opts, &cfg, &err), 0);
	if (cfg) {
		CHECK_STR(cfg->ca.data, "CA PEM\n");
		CHECK_STR(cfg->client_cert.data, "CERT PEM\n");
		CHECK_STR(cfg->client_key.data, "KEY PEM\n");
		CHECK_INT(cfg->auth, AUTH_TOKEN_FILE);
		/* clientcmd's BearerToken: the file untrimmed (credential.c trims it) */
		CHECK_STR(cfg->token, "  tok-from-file\n");
		char *tok = path_in("rel/token");
		CHECK_STR(cfg->token_file, tok);
		free(tok);
		CHECK_STR(cfg->source, path);
		char *ca = path_in("rel/certs/ca.crt");
		char *origin = xasprintf("'%s'", ca);
		CHECK_STR(cfg->ca_origin, origin);
		free(origin);
		free(ca);
		rest_config_free(cfg);
	}
	free(path);

	/* A file it names that is missing is reported, with the path resolved. */
	write_file("rel/bad", "current-context: c\n"
		   "clusters: [{name: k, cluster: {server: 'https://k', "
		   "certificate-authority: nope.crt}}]\n"
		   "contexts: [{name: c, context: {cluster: k}}]\n");
	path = path_in("rel/bad");
	opts.kubeconfig = path;
	CHECK_INT(rest_config_load(&opts, &cfg, &err), -1);
	char *want = xasprintf("cannot read certificate-authority '%s/rel/nope.crt' of "
			       "cluster 'k': No such file or directory", tmpdir);
	CHECK_STR(err.msg, want);
	free(want);
	free(path);
}

TEST(kubeconfig_flag_must_exist)
{
	struct errbuf err = { "" };
	struct rest_config *cfg = NULL;
	char *path = path_in("does-not-exist");
	struct kubeconfig_opts opts = { .kubeconfig = path };
	CHECK_INT(rest_config_load(&opts, &cfg, &err), -1);
	char *want = xasprintf("cannot read kubeconfig '%s': No such file or directory", path);
	CHECK_STR(err.msg, want);
	free(want);
	free(path);
}

TEST(kubeconfig_env_merges_three_files)
{
	struct errbuf err = { "" };
	struct rest_config *cfg = NULL;
	/* The first file sets no current-context: the second's wins. */
	write_file("merge/a", "clusters: [{name: shared, cluster: {server: 'https://from-a'}}]\n"
		   "users: [{name: u, user: {token: token-a}}]\n"
		   "contexts: [{name: ctx-a, context: {cluster: shared, user: u}}]\n");
	write_file("merge/b", "current-context: ctx-b\n"
		   "clusters: [{name: shared, cluster: {server: 'https://from-b'}},"
		   " {name: only-b, cluster: {server: 'https://only-b'}}]\n"
		   "users: [{name: u, user: {token: token-b}}]\n"
		   "contexts: [{name: ctx-b, context: {cluster: shared, user: u, namespace: nb}},"
		   " {name: ctx-a, context: {cluster: only-b}}]\n");
	write_file("merge/c", "current-context: ctx-c\n"
		   "clusters: [{name: only-c, cluster: {server: 'https://only-c'}}]\n"
		   "contexts: [{name: ctx-c, context: {cluster: only-c}}]\n");
	char *a = path_in("merge/a"), *b = path_in("merge/b"), *c = path_in("merge/c");
	char *missing = path_in("merge/missing");
	char *env = xasprintf("%s::%s:%s:%s:%s", a, missing, b, c, a);
	setenv("KUBECONFIG", env, 1);

	struct kubeconfig_opts opts = { 0 };
	CHECK_INT(rest_config_load(&opts, &cfg, &err), 0);
	if (cfg) {
		CHECK_STR(cfg->context, "ctx-b");
		CHECK_STR(cfg->server, "https://from-a");	/* a defined 'shared' first */
		CHECK_STR(cfg->token, "token-a");
		CHECK_STR(cfg->namespace, "nb");
		CHECK_STR(cfg->source, b);
		rest_config_free(cfg);
	}
	opts.context = "ctx-a";	/* a's ctx-a, not b's */
	CHECK_INT(rest_config_load(&opts, &cfg, &err), 0);
	if (cfg) {
		CHECK_STR(cfg->server, "https://from-a");
		CHECK_STR(cfg->source, a);
		rest_config_free(cfg);
	}
	opts.context = "ctx-c";
	CHECK_INT(rest_config_load(&opts, &cfg, &err), 0);
	if (cfg) {
		CHECK_STR(cfg->server, "https://only-c");
		rest_config_free(cfg);
	}

	char **names;
	size_t nr;
	char *current;
	opts.context = NULL;
	CHECK_INT(kubeconfig_contexts(&opts, &names, &nr, &current, &err), 0);
	CHECK_INT(nr, 3);
	if (nr == 3) {
		CHECK_STR(names[0], "ctx-a");
		CHECK_STR(names[1], "ctx-b");
		CHECK_STR(names[2], "ctx-c");
	}
	CHECK_STR(current, "ctx-b");
	for (size_t i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	free(current);

	/* Every listed file missing, no pod around: say where we looked. */
	setenv("KUBECONFIG", missing, 1);
	unsetenv("KUBERNETES_SERVICE_HOST");
	CHECK_INT(rest_config_load(&opts, &cfg, &err), -1);
	CHECK_CONTAINS(err.msg, "no kubeconfig: KUBECONFIG=");
	CHECK_CONTAINS(err.msg, "names no existing file");

	/* A malformed file in the list stops the load, naming it. */
	write_file("merge/broken", "clusters: [\n");
	char *broken = path_in("merge/broken");
	char *env2 = xasprintf("%s:%s", a, broken);
	setenv("KUBECONFIG", env2, 1);
	CHECK_INT(rest_config_load(&opts, &cfg, &err), -1);
	char *want = xasprintf("malformed kubeconfig '%s' line 2", broken);
	CHECK_CONTAINS(err.msg, want);
	free(want);
	free(env2);
	free(broken);

	unsetenv("KUBECONFIG");
	free(env);
	free(a);
	free(b);
	free(c);
	free(missing);
}

TEST(in_cluster_when_no_kubeconfig)
{
	struct errbuf err = { "" };
	struct rest_config *cfg = NULL;
	write_file("sa/token", "sa-token\n");
	write_file("sa/ca.crt", old_cert);	/* any certificate will do */
	write_file("sa/namespace", "kube-system\n");
	char *sa = path_in("sa"), *missing = path_in("nothing-here");
	setenv("KINF_SERVICEACCOUNT_DIR", sa, 1);
	setenv("KUBECONFIG", missing, 1);
	setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);
	unsetenv("POD_NAMESPACE");

	struct kubeconfig_opts opts = { 0 };
	CHECK(incluster_possible());
	CHECK_INT(rest_config_load(&opts, &cfg, &err), 0);
	if (cfg) {
		CHECK(cfg->in_cluster);
		CHECK_STR(cfg->server, "https://10.0.0.1:443");
		CHECK_INT(cfg->auth, AUTH_TOKEN_FILE);
		CHECK_STR(cfg->token, "sa-token\n");	/* InClusterConfig's, untrimmed */
		CHECK_STR(cfg->ca.data, old_cert);
		CHECK_CONTAINS(cfg->ca_file, "sa/ca.crt");
		CHECK_STR(cfg->namespace, "kube-system");
		char *id = rest_config_identity(cfg);
		CHECK_CONTAINS(id, "the service account (token file");
		free(id);
		rest_config_free(cfg);
	}
	setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
	opts.namespace = "mine";
	CHECK_INT(rest_config_load(&opts, &cfg, &err), 0);
	if (cfg) {
		CHECK_STR(cfg->server, "https://[fd00::1]:443");
		CHECK_STR(cfg->namespace, "mine");
		rest_config_free(cfg);
	}
	opts.namespace = NULL;
	/* A ca.crt with no certificate in it: the system's roots, as certutil.NewPool fails. */
	write_file("sa/ca.crt", "SA CA\n");
	CHECK_INT(rest_config_load(&opts, &cfg, &err), 0);
	if (cfg) {
		CHECK_INT(cfg->ca.len, 0);
		CHECK(!cfg->ca_file);
		rest_config_free(cfg);
	}
	/* --context asks for a kubeconfig: no silent fallback to the pod's. */
	opts.context = "x";
	CHECK_INT(rest_config_load(&opts, &cfg, &err), -1);
	opts.context = NULL;

	char *tok = path_in("sa/token");
	unlink(tok);
	free(tok);
	CHECK(!incluster_possible());
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
	unsetenv("KINF_SERVICEACCOUNT_DIR");
	unsetenv("KUBECONFIG");
	free(sa);
	free(missing);
}

TEST(base64_round_trip)
{
	struct strbuf enc = STRBUF_INIT, dec = STRBUF_INIT;
	static const char *const samples[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
	for (size_t i = 0; i < ARRAY_SIZE(samples); i++) {
		strbuf_reset(&enc);
		strbuf_reset(&dec);
		base64_encode(samples[i], strlen(samples[i]), &enc);
		CHECK_INT(base64_decode(enc.buf, enc.len, &dec), 0);
		CHECK_STR(strbuf_str(&dec), samples[i]);
	}
	strbuf_reset(&enc);
	base64_encode("foobar", 6, &enc);
	CHECK_STR(enc.buf, "Zm9vYmFy");
	strbuf_reset(&dec);
	CHECK_INT(base64_decode("Zm9v\nYmE", 8, &dec), 0);	/* no padding, a newline */
	CHECK_STR(dec.buf, "fooba");
	strbuf_reset(&dec);
	CHECK_INT(base64_decode("Zm9v!", 5, &dec), -1);
	strbuf_reset(&dec);
	CHECK_INT(base64_decode("Z", 1, &dec), -1);
	strbuf_release(&enc);
	strbuf_release(&dec);
}

TEST(rfc3339)
{
	int64_t ms = 0;
	CHECK_INT(parse_time_rfc3339("1970-01-01T00:00:01Z", &ms), 0);
	CHECK_INT(ms, 1000);
	CHECK_INT(parse_time_rfc3339("1970-01-01T01:00:00.5+01:00", &ms), 0);
	CHECK_INT(ms, 500);
	CHECK_INT(parse_time_rfc3339("2024-05-01T10:00:00", &ms), -1);
	CHECK_INT(parse_time_rfc3339("tomorrow", &ms), -1);
	/* Offsets are exactly +HH:MM (a short one once read past the string). */
	CHECK_INT(parse_time_rfc3339("1970-01-01T00:00:00-00:30", &ms), 0);
	CHECK_INT(ms, 1800000);
	CHECK_INT(parse_time_rfc3339("2030-05-01T10:00:00.1+2:00", &ms), -1);
	CHECK_INT(parse_time_rfc3339("2030-05-01T10:00:00+02", &ms), -1);
	CHECK_INT(parse_time_rfc3339("2030-05-01T10:00:00+24:00", &ms), -1);
}

static void remove_tree(void)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
	free(cmd);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	unsetenv("KUBECONFIG");
	unsetenv("KUBERNETES_SERVICE_HOST");
	RUN(parses_the_current_context);
	RUN(context_flag_and_overrides);
	RUN(unknown_context_lists_the_known_ones);
	RUN(unknown_cluster_and_user);
	RUN(malformed_yaml_names_file_and_line);
	RUN(wrong_shapes_name_the_key_and_line);
	RUN(empty_and_null_values_are_absent);
	RUN(a_merge_bomb_is_refused);
	RUN(missing_fields_are_reported);
	RUN(auth_provider_is_refused_by_name);
	RUN(exec_stanza);
	RUN(server_without_scheme);
	RUN(server_path_as_a_request_uri);
	RUN(relative_paths_resolve_against_the_file);
	RUN(kubeconfig_flag_must_exist);
	RUN(kubeconfig_env_merges_three_files);
	RUN(in_cluster_when_no_kubeconfig);
	RUN(base64_round_trip);
	RUN(rfc3339);
	remove_tree();
	return unit_done();
}
