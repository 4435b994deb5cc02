/*
 * test_credential.c — what each request presents: a token file re-read
 * when it changes, an exec plugin's answer cached until it expires and
 * dropped after a 401, basic auth encoded, impersonation untouched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster/credential.h"
#include "cluster/exec_credential.h"
#include "cluster/kubeconfig.h"
#include "unit.h"

static char tmpdir[] = "/tmp/kinf-credential-XXXXXX";

static char *path_in(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

static void write_file(const char *name, const char *text, int mode)
{
	char *path = path_in(name);
	char *tmp = xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		perror(tmp);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
	chmod(tmp, (mode_t)mode);
	/* Renamed into place, as kubelet swaps a projected token. */
	if (rename(tmp, path) < 0) {
		perror(path);
		exit(1);
	}
	free(tmp);
	free(path);
}

static int count_lines(const char *name)
{
	char *path = path_in(name);
	FILE *f = fopen(path, "r");
	int n = 0, c;
	free(path);
	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static struct rest_config *config_with(enum auth_method auth)
{
	struct rest_config *cfg = xcalloc(1, sizeof(*cfg));
	cfg->server = xstrdup("https://k");
	cfg->user = xstrdup("u");
	cfg->auth = auth;
	cfg->impersonate_groups = xcalloc(1, sizeof(char *));
	return cfg;
}

TEST(static_token)
{
	struct rest_config *cfg = config_with(AUTH_TOKEN);
	cfg->token = xstrdup("abc");
	struct credential *cred = credential_new(cfg);
	struct credential_snapshot snap;
	struct errbuf err = { "" };
	CHECK_INT(credential_get(cred, &snap, NULL, &err), 0);
	CHECK_STR(snap.authorization, "Bearer abc");
	CHECK_INT(snap.cert.len, 0);
	credential_refresh(cred, &snap);	/* nothing to refresh */
	credential_snapshot_release(&snap);
	CHECK_INT(credential_get(cred, &snap, NULL, &err), 0);
	CHECK_STR(snap.authorization, "Bearer abc");
	credential_snapshot_release(&snap);
	credential_free(cred);
	rest_config_free(cfg);
}

TEST(basic_auth)
{
	struct rest_config *cfg = config_with(AUTH_BASIC);
	cfg->username = xstrdup("jane");
	cfg->password = xstrdup("pw:1");
	struct credential *cred = credential_new(cfg);
	struct credential_snapshot snap;
	struct errbuf err = { "" };
	CHECK_INT(credential_get(cred, &snap, NULL, &err), 0);
	CHECK_STR(snap.authorization, "Basic amFuZTpwdzox");
	credential_snapshot_release(&snap);
	credential_free(cred);
	rest_config_free(cfg);
}

static int64_t test_clock(void *ctx)
{
	return *(int64_t *)ctx;
}

/* client-go's cached file token source: a read is good for 50 s, a 401 or not. */
TEST(token_file_read_again_when_50_s_old)
{
	write_file("token", "first\n", 0600);
	struct rest_config *cfg = config_with(AUTH_TOKEN_FILE);
	cfg->token_file = path_in("token");
	cfg->token = xstrdup("at-load");
	struct credential *cred = credential_new(cfg);
	struct credential_snapshot snap;
	struct errbuf err = { "" };
	int64_t now = 1000;
	credential_set_clock(cred, test_clock, &now);

	/* The first request reads the file, whatever was read at load. */
	CHECK_INT(credential_get(cred, &snap, NULL, &err), 0);
	CHECK_STR(snap.authorization, "Bearer first");
	unsigned gen = snap.generation;
	credential_refresh(cred, &snap);	/* a 401 */
	credential_snapshot_release(&snap);

	write_file("token", "  second-longer\n", 0600);
	now += 49999;
	CHECK_INT(credential_get(cred, &snap, NULL, &err), 0);
	CHECK_STR(snap.authorization, "Bearer first");
	credential_snapshot_release(&snap);
	now += 1;
	CHECK_INT(credential_get(cred, &snap, NULL, &err), 0);
	CHECK_STR(snap.authorization, "Bearer second-longer");
	CHECK(snap.generation != gen);
	credential_snapshot_release(&snap);

	/* Mid-rotation the file may vanish, or be empty: keep the last token. */
	write_file("token", " \n", 0600);
	now += 50000;
	CHECK_INT(credential_get(cred, &snap, NULL, &err), 0);
	CHECK_STR(snap.authorization, "Bearer second-longer");
	credential_snapshot_release(&snap);
	char *path = path_in("token");
	unlink(path);
	free(path);
	CHECK_INT(credential_get(cred, &snap, NULL, &err), 0);
	CHECK_STR(snap.authorization, "Bearer second-longer");
	credential_snapshot_release(&snap);

	credential_free(cred);
	rest_config_free(cfg);
}

/* Before any read worked: the file as it was at load (clientcmd's BearerToken). */
TEST(token_file_unreadable_at_first_is_the_token_at_load)
{
	struct rest_config *cfg = config_with(AUTH_TOKEN_FILE);
	cfg->token_file = path_in("no-such-token");
	cfg->token = xstrdup("at-load");
	struct credential *cred = credential_new(cfg);
	struct credential_snapshot snap;
	struct errbuf err = { "" };

	CHECK_INT(credential_get(cred, &snap, NULL, &err), 0);
	CHECK_STR(snap.authorization, "Bearer at-load");
	credential_snapshot_release(&snap);
	credential_free(cred);
	rest_config_free(cfg);
}

static struct rest_config *exec_config(const char *expiry, const char *api)
{
	/* The plugin logs each run and answers with the run's number. */
	char *script = xasprintf(
		"#!/bin/sh\n"
		"echo run >> '%s/runs'\n"
		"n=$(wc -l < '%s/runs')\n"
		"printf '{\"kind\":\"ExecCredential\",\"apiVersion\":\"%s\","
		"\"status\":{\"token\":\"tok-%%s\"%s%s%s}}' $n\n",
		tmpdir, tmpdir, api, expiry ? ",\"expirationTimestamp\":\"" : "",
		expiry ? expiry : "", expiry ? "\"" : "");
	write_file("plugin", script, 0700);
	free(script);
	char *runs = path_in("runs");
	unlink(runs);
	free(runs);

	struct rest_config *cfg = config_with(AUTH_EXEC);
	cfg->exec = xcalloc(1, sizeof(*cfg->exec));
	cfg->exec->api_version = xstrdup("client.authentication.k8s.io/v1");
	cfg->exec->command = path_in("plugin");
	cfg->exec->args = xcalloc(1, sizeof(char *));
	cfg->exec->env = xcalloc(1, sizeof(char *));
	cfg->exec->interactive = EXEC_INTERACTIVE_NEVER;
	return cfg;
}

TEST(exec_answer_cached_until_a_401)
{
	struct rest_config *cfg = exec_config("2999-01-01T00:00:00Z",
					      "client.authentication.k8s.io/v1");
	struct credential *cred = credential_new(cfg);
	struct credential_snapshot a, b, c;
	struct errbuf err = { "" };

	CHECK_INT(credential_get(cred, &a, NULL, &err), 0);
	CHECK_STR(a.authorization, "Bearer tok-1");
	CHECK_INT(credential_get(cred, &b, NULL, &err), 0);
	CHECK_STR(b.authorization, "Bearer tok-1");
	CHECK_INT(count_lines("runs"), 1);

	/* Two requests refused with the same credential: one new run. */
	credential_refresh(cred, &a);
	CHECK_INT(credential_get(cred, &c, NULL, &err), 0);
	CHECK_STR(c.authorization, "Bearer tok-2");
	credential_refresh(cred, &b);	/* stale: already replaced */
	credential_snapshot_release(&c);
	CHECK_INT(credential_get(cred, &c, NULL, &err), 0);
	CHECK_STR(c.authorization, "Bearer tok-2");
	CHECK_INT(count_lines("runs"), 2);

	credential_snapshot_release(&a);
	credential_snapshot_release(&b);
	credential_snapshot_release(&c);
	credential_free(cred);
	rest_config_free(cfg);
}

TEST(exec_answer_expired_is_fetched_again)
{
	struct rest_config *cfg = exec_config("2001-01-01T00:00:00Z",
					      "client.authentication.k8s.io/v1");
	struct credential *cred = credential_new(cfg);
	struct credential_snapshot snap;
	struct errbuf err = { "" };
	for (int i = 1; i <= 3; i++) {
		CHECK_INT(credential_get(cred, &snap, NULL, &err), 0);
		credential_snapshot_release(&snap);
	}
	CHECK_INT(count_lines("runs"), 3);
	credential_free(cred);
	rest_config_free(cfg);
}

TEST(exec_answer_of_another_api_version_is_refused)
{
	struct rest_config *cfg = exec_config(NULL, "client.authentication.k8s.io/v1beta1");
	struct exec_credential out;
	struct errbuf err = { "" };
	CHECK_INT(exec_credential_run(cfg, NULL, &out, &err), -1);
	CHECK(strstr(err.msg, "answered in apiVersion 'client.authentication.k8s.io/v1beta1'") != NULL);
	rest_config_free(cfg);
}

TEST(exec_env_and_args_reach_the_plugin)
{
	write_file("echo-plugin",
		   "#!/bin/sh\n"
		   "printf '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\","
		   "\"status\":{\"token\":\"%s-%s-%s\"}}' \"$1\" \"$GREETING\" \"$HOME_SET\"\n", 0700);
	struct rest_config *cfg = config_with(AUTH_EXEC);
	cfg->exec = xcalloc(1, sizeof(*cfg->exec));
	cfg->exec->api_version = xstrdup("client.authentication.k8s.io/v1");
	cfg->exec->command = path_in("echo-plugin");
	cfg->exec->args = xcalloc(2, sizeof(char *));
	cfg->exec->args[0] = xstrdup("arg1");
	cfg->exec->env = xcalloc(3, sizeof(char *));
	cfg->exec->env[0] = xstrdup("GREETING=hello");
	cfg->exec->env[1] = xstrdup("HOME_SET=over");
	cfg->exec->interactive = EXEC_INTERACTIVE_NEVER;
	setenv("HOME_SET", "parent", 1);	/* the stanza's env wins */
	struct exec_credential out;
	struct errbuf err = { "" };
	CHECK_INT(exec_credential_run(cfg, NULL, &out, &err), 0);
	CHECK_STR(out.token, "arg1-hello-over");
	exec_credential_release(&out);
	unsetenv("HOME_SET");
	rest_config_free(cfg);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(static_token);
	RUN(basic_auth);
	RUN(token_file_read_again_when_50_s_old);
	RUN(token_file_unreadable_at_first_is_the_token_at_load);
	RUN(exec_answer_cached_until_a_401);
	RUN(exec_answer_expired_is_fetched_again);
	RUN(exec_answer_of_another_api_version_is_refused);
	RUN(exec_env_and_args_reach_the_plugin);
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
	free(cmd);
	return unit_done();
}
