/*
 * sim.h — the unit tests' way to the simulated kube-apiserver
 * (tests/apiserver/kube-sim): start one as a child process, talk to its
 * control interface, read its oracle, and connect a kclient to it.
 *
 *   struct sim sim;
 *   if (sim_start(&sim, "--pods", "20", "--plain-http", NULL) < 0) ...
 *   sim_post(&sim, "/update", "{\"name\":\"x\",\"patch\":{...}}");
 *   sim_stop(&sim);
 *
 * The script is found at $KUBE_SIM, else tests/apiserver/kube-sim relative
 * to the current directory (make check-unit runs from the repository's
 * root).  Each simulator gets a fresh temporary directory for its
 * kubeconfig, certificates and log; sim_stop() removes it.  It writes the
 * kubeconfig last, when it is ready, and exits by itself when its parent
 * goes away, so a crashed test leaves nothing running for long.
 *
 * Control calls are plain HTTP on 127.0.0.1 through libcurl.  Call
 * curl_global_init() once in main() before any thread starts.
 *
 * Every function here is static: include this header from one test
 * program.  Not thread-safe: call from the test's main thread.
 */
#ifndef KINF_TEST_SIM_H
#define KINF_TEST_SIM_H

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <json-c/json.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cluster/discovery.h"
#include "cluster/http.h"
#include "cluster/kubeconfig.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#define SIM_DEFAULT_PATH "tests/apiserver/kube-sim"
#define SIM_READY_MS 20000
#define SIM_MAX_ARGS 32

extern char **environ;

struct sim {
	pid_t pid;
	char dir[PATH_MAX];
	char kubeconfig[PATH_MAX + 16];
	char control[256];	/* "http://127.0.0.1:PORT" */
};

/* A connection to a running simulator, as a command would make one. */
struct sim_client {
	struct rest_config *cfg;
	struct kclient *client;
	struct discovery *disco;
};

static void sim_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int sim_rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	remove(path);
	return 0;
}

/* Prints the simulator's log as TAP comments (when it failed to start). */
static void sim_dump_log(const struct sim *sim)
{
	char path[PATH_MAX + 8], line[512];
	snprintf(path, sizeof(path), "%s/log", sim->dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("# kube-sim: %s", line);
	fclose(f);
}

/*
 * SIGTERM, then SIGKILL if it lingers; removes the directory.  Safe on a
 * sim that never started or was already stopped.
 */
static void sim_stop(struct sim *sim)
{
	if (sim->pid > 0) {
		int status;
		kill(sim->pid, SIGTERM);
		for (int i = 0; i < 100; i++) {
			if (waitpid(sim->pid, &status, WNOHANG) == sim->pid) {
				sim->pid = 0;
				break;
			}
			sim_sleep_ms(50);
		}
		if (sim->pid > 0) {
			kill(sim->pid, SIGKILL);
			waitpid(sim->pid, &status, 0);
			sim->pid = 0;
		}
	}
	if (sim->dir[0]) {
		nftw(sim->dir, sim_rm_cb, 8, FTW_DEPTH | FTW_PHYS);
		sim->dir[0] = '\0';
	}
}

/*
 * Starts kube-sim with the given arguments (NULL-terminated; --kubeconfig
 * is added) and waits until it is serving.  0, or -1 after printing why.
 */
static int sim_start(struct sim *sim, ...)
{
	const char *script = getenv("KUBE_SIM");
	const char *tmp = getenv("TMPDIR");
	char *argv[SIM_MAX_ARGS + 4];
	size_t argc = 0;
	posix_spawn_file_actions_t fa;
	char log[PATH_MAX + 8];
	va_list ap;
	int rc;

	memset(sim, 0, sizeof(*sim));
	if (!script || !*script)
		script = SIM_DEFAULT_PATH;
	if (access(script, X_OK) < 0) {
		printf("# cannot run kube-sim '%s': %s (set KUBE_SIM, or run from the repository's root)\n",
		       script, strerror(errno));
		return -1;
	}
	snprintf(sim->dir, sizeof(sim->dir), "%s/kinf-unit-sim.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(sim->dir)) {
		printf("# cannot create '%s': %s\n", sim->dir, strerror(errno));
		sim->dir[0] = '\0';
		return -1;
	}
	snprintf(sim->kubeconfig, sizeof(sim->kubeconfig), "%s/kubeconfig", sim->dir);
	snprintf(log, sizeof(log), "%s/log", sim->dir);

	argv[argc++] = (char *)script;
	argv[argc++] = "--kubeconfig";
	argv[argc++] = sim->kubeconfig;
	va_start(ap, sim);
	for (const char *a; (a = va_arg(ap, const char *)) && argc < SIM_MAX_ARGS + 3;)
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log,
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
	rc = posix_spawn(&sim->pid, script, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		printf("# cannot start kube-sim '%s': %s\n", script, strerror(rc));
		sim->pid = 0;
		sim_stop(sim);
		return -1;
	}

	/* The kubeconfig is written last, atomically, once it serves. */
	for (int64_t deadline = mono_ms() + SIM_READY_MS;;) {
		int status;
		if (access(sim->kubeconfig, F_OK) == 0)
			break;
		if (waitpid(sim->pid, &status, WNOHANG) == sim->pid) {
			printf("# kube-sim exited before it was ready\n");
			sim->pid = 0;
			sim_dump_log(sim);
			sim_stop(sim);
			return -1;
		}
		if (mono_ms() > deadline) {
			printf("# kube-sim not ready after %d ms\n", SIM_READY_MS);
			sim_dump_log(sim);
			sim_stop(sim);
			return -1;
		}
		sim_sleep_ms(20);
	}

	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s.control", sim->kubeconfig);
	FILE *f = fopen(path, "r");
	if (!f || !fgets(sim->control, sizeof(sim->control), f)) {
		printf("# cannot read '%s'\n", path);
		if (f)
			fclose(f);
		sim_stop(sim);
		return -1;
	}
	fclose(f);
	sim->control[strcspn(sim->control, "\r\n")] = '\0';
	return 0;
}

static size_t sim_write_cb(char *data, size_t size, size_t nmemb, void *userp)
{
	strbuf_add(userp, data, size * nmemb);
	return size * nmemb;
}

/*
 * One control call: METHOD path (with its query) and an optional JSON
 * body.  Returns the HTTP status (0 when no answer came) and the body in
 * *out when out is not NULL.
 */
static long sim_call(const struct sim *sim, const char *method, const char *path,
		     const char *body, struct strbuf *out)
{
	struct strbuf sink = STRBUF_INIT;
	struct curl_slist *headers = NULL;
	char url[512];
	long status = 0;
	CURL *h = curl_easy_init();

	if (!h)
		return 0;
	snprintf(url, sizeof(url), "%s%s", sim->control, path);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 60L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sim_write_cb);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, out ? out : &sink);
	if (body) {
		headers = curl_slist_append(headers, "Content-Type: application/json");
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	}
	CURLcode cc = curl_easy_perform(h);
	if (cc == CURLE_OK)
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	else
		printf("# control %s %s: %s\n", method, path, curl_easy_strerror(cc));
	if (status && (status < 200 || status > 299))
		printf("# control %s %s answered %ld: %s\n", method, path, status,
		       strbuf_str(out ? out : &sink));
	curl_slist_free_all(headers);
	curl_easy_cleanup(h);
	strbuf_release(&sink);
	return status;
}

/* POST path with a JSON body (printf-style); true on a 2xx answer. */
static bool sim_post(const struct sim *sim, const char *path, const char *fmt, ...)
	PRINTF(3, 4);
static bool sim_post(const struct sim *sim, const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *body = xvasprintf(fmt, ap);
	va_end(ap);
	long status = sim_call(sim, "POST", path, body, NULL);
	free(body);
	return status >= 200 && status <= 299;
}

/* POST path with a JSON body; the answer parsed (a new json-c reference),
 * or NULL on a non-2xx answer. */
static struct json_object *sim_post_json(const struct sim *sim, const char *path,
					 const char *fmt, ...) PRINTF(3, 4);
static struct json_object *sim_post_json(const struct sim *sim, const char *path,
					 const char *fmt, ...)
{
	struct strbuf out = STRBUF_INIT;
	struct json_object *root = NULL;
	va_list ap;
	va_start(ap, fmt);
	char *body = xvasprintf(fmt, ap);
	va_end(ap);
	long status = sim_call(sim, "POST", path, body, &out);
	if (status >= 200 && status <= 299)
		root = json_tokener_parse(strbuf_str(&out));
	free(body);
	strbuf_release(&out);
	return root;
}

/* GET path, parsed: a new json-c reference, or NULL. */
static struct json_object *sim_get_json(const struct sim *sim, const char *path)
{
	struct strbuf out = STRBUF_INIT;
	struct json_object *root = NULL;
	long status = sim_call(sim, "GET", path, NULL, &out);
	if (status >= 200 && status <= 299)
		root = json_tokener_parse(strbuf_str(&out));
	strbuf_release(&out);
	return root;
}

/*
 * The oracle: the true state of `resource`, as a json-c object mapping
 * "ns/name" to its resourceVersion (a new reference to the whole answer,
 * `items` inside it is *items).  NULL on failure.
 */
static struct json_object *sim_oracle(const struct sim *sim, const char *resource,
				      struct json_object **items)
{
	char path[128];
	snprintf(path, sizeof(path), "/oracle?resource=%s", resource);
	struct json_object *root = sim_get_json(sim, path);
	if (!root || !json_object_object_get_ex(root, "items", items) ||
	    !json_object_is_type(*items, json_type_object)) {
		json_object_put(root);
		return NULL;
	}
	return root;
}

/* Loads the simulator's kubeconfig, makes a kclient and loads discovery. */
static int sim_connect(const struct sim *sim, struct sim_client *sc)
{
	struct kubeconfig_opts opts = { .kubeconfig = sim->kubeconfig };
	struct errbuf err = { "" };

	memset(sc, 0, sizeof(*sc));
	if (rest_config_load(&opts, &sc->cfg, &err) < 0) {
		printf("# kubeconfig: %s\n", err.msg);
		return -1;
	}
	sc->client = kclient_new(sc->cfg, &err);
	if (!sc->client) {
		printf("# kclient: %s\n", err.msg);
		return -1;
	}
	sc->disco = discovery_new(sc->client);
	if (discovery_load(sc->disco, &err) < 0) {
		printf("# discovery: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static void sim_disconnect(struct sim_client *sc)
{
	if (sc->disco)
		discovery_free(sc->disco);
	kclient_free(sc->client);
	if (sc->cfg)
		rest_config_free(sc->cfg);
	memset(sc, 0, sizeof(*sc));
}

#endif
