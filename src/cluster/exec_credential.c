/*
 * exec_credential.c — see exec_credential.h.  posix_spawn() rather than
 * fork(): kinf has threads by the time a plugin is re-run after a 401,
 * and only async-signal-safe work may follow a fork there.
 */
#include "cluster/exec_credential.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/base64.h"
#include "lib/gojson.h"
#include "lib/goyaml.h"
#include "lib/json_get.h"
#include "lib/strbuf.h"
#include "lib/termsafe.h"

extern char **environ;

/* A plugin printing more than this is not printing an ExecCredential. */
#define MAX_OUTPUT (4 << 20)

void exec_credential_release(struct exec_credential *cred)
{
	secret_free(cred->token);
	cred->token = NULL;
	if (cred->key.data)
		explicit_bzero(cred->key.data, cred->key.len);
	blob_release(&cred->cert);
	blob_release(&cred->key);
	cred->expires_ms = 0;
}

/* KUBERNETES_EXEC_INFO: what client-go tells a plugin about the request. */
static char *exec_info(const struct rest_config *cfg, bool interactive)
{
	json_object *root = json_object_new_object(), *spec = json_object_new_object();
	json_object_object_add(root, "kind", json_object_new_string("ExecCredential"));
	json_object_object_add(root, "apiVersion", json_object_new_string(cfg->exec->api_version));
	if (cfg->exec->provide_cluster_info) {
		json_object *cluster = json_object_new_object();
		json_object_object_add(cluster, "server", json_object_new_string(cfg->server));
		if (cfg->tls_server_name)
			json_object_object_add(cluster, "tls-server-name",
					       json_object_new_string(cfg->tls_server_name));
		if (cfg->insecure)
			json_object_object_add(cluster, "insecure-skip-tls-verify",
					       json_object_new_boolean(1));
		if (cfg->ca.len) {
			struct strbuf sb = STRBUF_INIT;
			base64_encode(cfg->ca.data, cfg->ca.len, &sb);
			json_object_object_add(cluster, "certificate-authority-data",
					       json_object_new_string(strbuf_str(&sb)));
			strbuf_release(&sb);
		}
		if (cfg->proxy_url)
			json_object_object_add(cluster, "proxy-url",
					       json_object_new_string(cfg->proxy_url));
		if (cfg->disable_compression)
			json_object_object_add(cluster, "disable-compression",
					       json_object_new_boolean(1));
		/* a RawExtension, which omitempty never leaves out: null for none */
		json_object_object_add(cluster, "config", cfg->exec_cluster_config ?
				       json_parse_deep(cfg->exec_cluster_config) : NULL);
		json_object_object_add(spec, "cluster", cluster);
	}
	json_object_object_add(spec, "interactive", json_object_new_boolean(interactive));
	json_object_object_add(root, "spec", spec);
	char *s = xstrdup(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN |
							       JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	return s;
}

static bool env_overridden(const char *entry, char *const *env)
{
	const char *eq = strchr(entry, '=');
	size_t n = eq ? (size_t)(eq - entry) : strlen(entry);
	for (char *const *e = env; *e; e++)
		if (!strncmp(*e, entry, n) && (*e)[n] == '=')
			return true;
	return false;
}

/*
 * Ours, minus what the stanza sets, plus the stanza's env, plus info_var
 * (KUBERNETES_EXEC_INFO=...) last.  Borrows every string.
 */
static char **plugin_environ(char *const *extra, char *info_var)
{
	size_t n = 0, m = 0, i = 0;
	while (environ && environ[n])
		n++;
	while (extra[m])
		m++;
	char **env = xcalloc(n + m + 2, sizeof(*env));
	char *const only_info[] = { info_var, NULL };
	for (size_t k = 0; k < n; k++)
		if (!env_overridden(environ[k], extra) && !env_overridden(environ[k], only_info))
			env[i++] = environ[k];
	for (size_t k = 0; k < m; k++)
		if (!env_overridden(extra[k], only_info))
			env[i++] = extra[k];
	env[i++] = info_var;
	return env;
}

/* One line from an installHint that may span several. */
static void add_one_line(struct strbuf *sb, const char *text)
{
	bool space = false;
	for (const char *p = text; *p; p++) {
		if (*p == '\n' || *p == '\r' || *p == '\t' || *p == ' ') {
			space = sb->len > 0;
			continue;
		}
		if (space)
			strbuf_addch(sb, ' ');
		space = false;
		strbuf_addch(sb, *p);
	}
}

static const char *user_name(const struct rest_config *cfg)
{
	return cfg->user && *cfg->user ? cfg->user : "(none)";
}

/* An executable regular file. */
static bool executable(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

/*
 * Go's exec.LookPath, as client-go runs a plugin: a command with a '/' is
 * taken as it is (the kubeconfig's folder already made a relative one
 * whole); one without is looked for in PATH, an empty entry meaning the
 * current folder.  Found through a relative entry, it is refused
 * (EACCES: Go 1.19's ErrDot), so that a file dropped into the current
 * folder is never run by mistake.  0 with *found (the caller frees it),
 * or ENOENT.
 */
static int find_command(const char *cmd, char **found)
{
	if (strchr(cmd, '/')) {
		*found = xstrdup(cmd);
		return 0;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";	/* glibc's, as posix_spawnp's */
	for (const char *p = path;; ) {
		size_t n = strcspn(p, ":");
		char *cand = xasprintf("%.*s%s%s", (int)n, p, n ? "/" : "", cmd);
		if (executable(cand)) {
			if (p[0] != '/') {
				free(cand);
				return EACCES;
			}
			*found = cand;
			return 0;
		}
		free(cand);
		if (!p[n])
			return ENOENT;
		p += n + 1;
	}
}

/* fds[0] reads the plugin's stdout, fds[1] its stderr. */
static int spawn_plugin(const struct rest_config *cfg, bool interactive, pid_t *pid,
			int fds[2], struct errbuf *err)
{
	const struct exec_config *e = cfg->exec;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t dfl;
	int pipefd[2], errfd[2];
	int ret = -1;

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		errbuf_set(err, "cannot run exec plugin '%s': %s", e->command, strerror(errno));
		return -1;
	}
	if (pipe2(errfd, O_CLOEXEC) < 0) {
		errbuf_set(err, "cannot run exec plugin '%s': %s", e->command, strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, errfd[1], STDERR_FILENO);
	if (!interactive)
		posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	/* kinf ignores SIGPIPE; a plugin (often a shell script) expects the default. */
	posix_spawnattr_init(&attr);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);

	size_t nargs = 0;
	while (e->args[nargs])
		nargs++;
	char **argv = xcalloc(nargs + 2, sizeof(*argv));
	argv[0] = e->command;
	for (size_t i = 0; i < nargs; i++)
		argv[i + 1] = e->args[i];
	char *info = exec_info(cfg, interactive);
	char *info_var = xasprintf("KUBERNETES_EXEC_INFO=%s", info);
	char **env = plugin_environ(e->env, info_var);

	char *path = NULL;
	int rc = find_command(e->command, &path);
	if (rc == EACCES) {
		errbuf_set(err, "exec plugin '%s' of user '%s' is found only relative to the "
			   "current directory (an empty or relative entry of PATH): refused, "
			   "as Go's exec.LookPath refuses it", e->command, user_name(cfg));
		rc = -1;
	} else if (!rc) {
		rc = posix_spawn(pid, path, &fa, &attr, argv, env);
	}
	free(path);
	if (rc == -1) {
		/* said */
	} else if (rc == ENOENT) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "exec plugin '%s' of user '%s' not found", e->command,
			    user_name(cfg));
		if (e->install_hint && *e->install_hint) {
			strbuf_adds(&sb, ": ");
			add_one_line(&sb, e->install_hint);
		}
		errbuf_set(err, "%s", sb.buf);
		strbuf_release(&sb);
	} else if (rc) {
		errbuf_set(err, "cannot run exec plugin '%s' of user '%s': %s", e->command,
			   user_name(cfg), strerror(rc));
	} else {
		fds[0] = pipefd[0];
		fds[1] = errfd[0];
		pipefd[0] = errfd[0] = -1;
		ret = 0;
	}
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (errfd[0] >= 0)
		close(errfd[0]);
	close(pipefd[1]);
	close(errfd[1]);
	free(argv);
	free(env);
	free(info_var);
	free(info);
	return ret;
}

/* Bytes at the end of held that begin a UTF-8 character not yet whole. */
static size_t unfinished_tail(const struct strbuf *held)
{
	for (size_t back = 1; back <= 3 && back <= held->len; back++) {
		unsigned char c = (unsigned char)held->buf[held->len - back];
		if ((c & 0xC0) == 0x80)
			continue;
		size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
		return need > back ? back : 0;
	}
	return 0;
}

/*
 * Passes the plugin's stderr on to kinf's, as kubectl does, but escaped
 * (termsafe.h): a plugin's messages may quote a server.  A character cut
 * between two reads waits in held for its end; at the end, all goes.
 */
static void pass_stderr(struct strbuf *held, const char *data, size_t n, bool end)
{
	struct strbuf safe = STRBUF_INIT;
	size_t keep;

	strbuf_add(held, data, n);
	keep = held->len - (end ? 0 : unfinished_tail(held));
	strbuf_add_termsafe(&safe, held->buf, keep, TERMSAFE_NEWLINE);
	strbuf_remove_front(held, keep);
	for (size_t off = 0; off < safe.len;) {
		ssize_t w = write(STDERR_FILENO, safe.buf + off, safe.len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;	/* stderr gone: the messages are lost, not the credential */
		off += (size_t)w;
	}
	strbuf_release(&safe);
}

/* read_output()'s ends other than its plugin's: a stop, a timeout. */
#define READ_STOPPED (-2)
#define READ_TIMED_OUT (-3)

/*
 * Reads the plugin's stdout to its end (or past any sane size) while
 * passing its stderr on: both at once, so that neither pipe fills; or
 * until wait's stop or timeout.
 */
static int read_output(const int fds[2], const struct exec_wait *wait, struct strbuf *out)
{
	struct pollfd pfd[3] = {
		{ fds[0], POLLIN, 0 }, { fds[1], POLLIN, 0 },
		{ wait && wait->stop_fd > 0 ? wait->stop_fd : -1, POLLIN, 0 },
	};
	int64_t deadline = wait && wait->timeout_ms > 0 ? mono_ms() + wait->timeout_ms : 0;
	struct strbuf held = STRBUF_INIT;
	char chunk[8192];
	int ret = 0;

	while (ret == 0 && (pfd[0].fd >= 0 || pfd[1].fd >= 0)) {
		int64_t left = deadline ? deadline - mono_ms() : -1;
		if (deadline && left <= 0) {
			ret = READ_TIMED_OUT;
			break;
		}
		if (poll(pfd, 3, deadline ? (int)left : -1) < 0) {
			ret = errno == EINTR ? 0 : -1;
			continue;
		}
		if (pfd[2].revents) {
			ret = READ_STOPPED;
			break;
		}
		for (int i = 0; i < 2 && ret == 0; i++) {
			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			ssize_t n = read(pfd[i].fd, chunk, sizeof(chunk));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				ret = n < 0 && i == 0 ? -1 : 0;
				pfd[i].fd = -1;	/* poll() skips it */
			} else if (i == 1) {
				pass_stderr(&held, chunk, (size_t)n, false);
			} else if (out->len + (size_t)n > MAX_OUTPUT) {
				ret = -1;
			} else {
				strbuf_add(out, chunk, (size_t)n);
			}
		}
	}
	pass_stderr(&held, "", 0, true);
	strbuf_release(&held);
	return ret;
}

/*
 * The plugin's output as client-go's universal decoder reads it: JSON when
 * it begins with '{' after white space, one value to Go's syntax; YAML
 * otherwise, as sigs.k8s.io/yaml reads it (a BOM first makes it YAML).
 */
static json_object *decode_output(const char *text, struct strbuf *why)
{
	size_t len = strlen(text);
	json_object *root = NULL;

	if (text[strspn(text, " \t\r\n")] == '{') {
		long n = gojson_value(text, len, why);
		if (!n)
			strbuf_adds(why, "unexpected end of JSON input");
		else if (n > 0 && text[n + (long)strspn(text + n, " \t\r\n")])
			strbuf_adds(why, "more than one JSON value");
		else if (n > 0)
			root = json_parse_deep(text);
		return root;
	}
	if (goyaml_to_json(text, len, &root, why) < 0)
		return NULL;
	if (!json_object_is_type(root, json_type_object)) {
		strbuf_adds(why, "not an object");
		json_object_put(root);
		root = NULL;
	}
	return root;
}

/*
 * obj's member key into *out: a string, or NULL when absent or null.
 * -1 when it is some other value, which Go's decoder refuses.
 */
static int string_member(json_object *obj, const char *key, const char **out)
{
	json_object *v = json_get(obj, key);
	*out = json_get_value_str(v, NULL);
	return v && !*out ? -1 : 0;
}

int exec_credential_parse(const struct rest_config *cfg, const char *text,
			  struct exec_credential *out, struct errbuf *err)
{
	const struct exec_config *e = cfg->exec;
	struct strbuf why = STRBUF_INIT;
	json_object *root = decode_output(text, &why), *status = NULL;
	const char *kind, *api, *token, *cert, *key, *expiry;
	int ret = -1;

	if (!root) {
		errbuf_set(err, "exec plugin '%s' of user '%s' did not print an ExecCredential "
			   "(%s)", e->command, user_name(cfg), why.buf);
		goto cleanup;
	}
	/* the kind may be left out: the decoder's type gives it */
	if (string_member(root, "kind", &kind) < 0 ||
	    (kind && *kind && strcmp(kind, "ExecCredential"))) {
		errbuf_set(err, "exec plugin '%s' of user '%s' printed kind '%s', not "
			   "ExecCredential", e->command, user_name(cfg), kind ? kind : "");
		goto cleanup;
	}
	if (string_member(root, "apiVersion", &api) < 0 || !api || strcmp(api, e->api_version)) {
		errbuf_set(err, "exec plugin '%s' of user '%s' answered in apiVersion '%s', "
			   "configured for '%s'", e->command, user_name(cfg), api ? api : "",
			   e->api_version);
		goto cleanup;
	}
	status = json_get(root, "status");
	if (!json_object_is_type(status, json_type_object)) {
		errbuf_set(err, "exec plugin '%s' of user '%s' returned no status",
			   e->command, user_name(cfg));
		goto cleanup;
	}
	if (string_member(status, "token", &token) < 0 ||
	    string_member(status, "clientCertificateData", &cert) < 0 ||
	    string_member(status, "clientKeyData", &key) < 0 ||
	    string_member(status, "expirationTimestamp", &expiry) < 0) {
		errbuf_set(err, "exec plugin '%s' of user '%s' returned a status whose members "
			   "are not all strings", e->command, user_name(cfg));
		goto cleanup;
	}
	if ((cert && *cert) != (key && *key)) {
		errbuf_set(err, "exec plugin '%s' of user '%s' returned a client %s without "
			   "its %s", e->command, user_name(cfg), cert && *cert ? "certificate" : "key",
			   cert && *cert ? "key" : "certificate");
		goto cleanup;
	}
	if (!(token && *token) && !(cert && *cert)) {
		errbuf_set(err, "exec plugin '%s' of user '%s' returned neither a token nor a "
			   "client certificate", e->command, user_name(cfg));
		goto cleanup;
	}
	/* metav1.Time: null is none, and "" is no time */
	if (expiry && parse_time_rfc3339(expiry, &out->expires_ms) < 0) {
		errbuf_set(err, "exec plugin '%s' of user '%s' returned a bad "
			   "expirationTimestamp '%s'", e->command, user_name(cfg), expiry);
		goto cleanup;
	}
	if (token && *token)
		out->token = xstrdup(token);
	if (cert && *cert) {
		out->cert.data = xstrdup(cert);
		out->cert.len = strlen(cert);
		out->key.data = xstrdup(key);
		out->key.len = strlen(key);
	}
	ret = 0;
cleanup:
	json_object_put(root);
	strbuf_release(&why);
	return ret;
}

int exec_credential_run(const struct rest_config *cfg, const struct exec_wait *wait,
			struct exec_credential *out, struct errbuf *err)
{
	const struct exec_config *e = cfg->exec;
	struct strbuf output = STRBUF_INIT;
	bool tty = isatty(STDIN_FILENO);
	bool interactive = e->interactive != EXEC_INTERACTIVE_NEVER && tty;
	int fds[2], status, ret = -1;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	if (e->interactive == EXEC_INTERACTIVE_ALWAYS && !tty) {
		errbuf_set(err, "exec plugin '%s' of user '%s' needs a terminal "
			   "(interactiveMode Always) and stdin is not one", e->command,
			   user_name(cfg));
		return -1;
	}
	if (spawn_plugin(cfg, interactive, &pid, fds, err) < 0)
		return -1;
	int rd = read_output(fds, wait, &output);
	close(fds[0]);
	close(fds[1]);
	if (rd == READ_STOPPED || rd == READ_TIMED_OUT)
		kill(pid, SIGKILL);	/* a hung plugin never holds kinf, nor outlives it */
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			errbuf_set(err, "cannot wait for exec plugin '%s': %s", e->command,
				   strerror(errno));
			goto cleanup;
		}
	if (rd == READ_STOPPED) {
		errbuf_set(err, "stopped");
		goto cleanup;
	}
	if (rd == READ_TIMED_OUT) {
		errbuf_set(err, "exec plugin '%s' of user '%s' did not answer within %.1f s "
			   "(--request-timeout): killed", e->command, user_name(cfg),
			   (double)wait->timeout_ms / 1000);
		goto cleanup;
	}
	if (WIFSIGNALED(status)) {
		errbuf_set(err, "exec plugin '%s' of user '%s' was killed by signal %d",
			   e->command, user_name(cfg), WTERMSIG(status));
		goto cleanup;
	}
	if (WEXITSTATUS(status)) {
		errbuf_set(err, "exec plugin '%s' of user '%s' failed with exit status %d",
			   e->command, user_name(cfg), WEXITSTATUS(status));
		goto cleanup;
	}
	if (rd < 0) {
		errbuf_set(err, "cannot read the output of exec plugin '%s' of user '%s'",
			   e->command, user_name(cfg));
		goto cleanup;
	}
	ret = exec_credential_parse(cfg, strbuf_str(&output), out, err);
cleanup:
	explicit_bzero(output.buf, output.len);	/* nothing when it owns no buffer */
	strbuf_release(&output);
	if (ret < 0)
		exec_credential_release(out);
	return ret;
}
