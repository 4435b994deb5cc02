/* discovery_cache.c — kubectl's discovery disk cache; see discovery_cache.h. */
#include "cluster/discovery_cache.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/strbuf.h"

char *discovery_cache_root(void)
{
	const char *env = getenv("KUBECACHEDIR");
	if (env && *env)
		return xstrdup(env);
	const char *home = getenv("HOME");
	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());
		home = pw && pw->pw_dir ? pw->pw_dir : "/";
	}
	return xasprintf("%s/.kube/cache", home);
}

/* Go's filepath.Join(a, b): joined, then cleaned ("//", ".", ".." and a trailing '/'). */
static char *path_join_clean(const char *a, const char *b)
{
	char *joined = xasprintf("%s/%s", a, b);
	bool absolute = joined[0] == '/';
	char **parts = NULL;
	size_t n = 0, alloc = 0;
	char *save = NULL;

	for (char *p = strtok_r(joined, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		if (!strcmp(p, "."))
			continue;
		if (!strcmp(p, "..") && n && strcmp(parts[n - 1], "..")) {
			n--;
			continue;
		}
		if (!strcmp(p, "..") && absolute)
			continue;
		ALLOC_GROW(parts, n + 1, alloc);
		parts[n++] = p;
	}
	struct strbuf sb = STRBUF_INIT;
	if (absolute)
		strbuf_addch(&sb, '/');
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%s", i ? "/" : "", parts[i]);
	if (!sb.len)
		strbuf_addch(&sb, '.');
	free(parts);
	free(joined);
	return strbuf_detach(&sb, NULL);
}

/* s without the first `what` in it (Go's strings.Replace(s, what, "", 1)). */
static char *without_first(const char *s, const char *what)
{
	const char *at = strstr(s, what);
	return at ? xasprintf("%.*s%s", (int)(at - s), s, at + strlen(what)) : xstrdup(s);
}

char *discovery_cache_dir(const char *root, const char *server)
{
	/* computeDiscoverCacheDir: the first "https://" or "http://" goes... */
	char *https = without_first(server, "https://");
	char *schemeless = without_first(https, "http://");
	free(https);

	/* ... and each character outside [\w/.()] becomes '_' (one per UTF-8 character). */
	struct strbuf safe = STRBUF_INIT;
	for (const unsigned char *p = (const unsigned char *)schemeless; *p; p++) {
		if ((*p & 0xC0) == 0x80)
			continue;	/* a continuation byte: its character was replaced */
		if (isalnum(*p) || strchr("_/.()", *p))
			strbuf_addch(&safe, (char)*p);
		else
			strbuf_addch(&safe, '_');
	}
	free(schemeless);
	char *discovery = xasprintf("%s/discovery", root);
	char *dir = path_join_clean(discovery, safe.buf);
	free(discovery);
	strbuf_release(&safe);
	return dir;
}

json_object *discovery_cache_read(const char *dir, const char *name, int64_t *age_ms)
{
	char *path = xasprintf("%s/%s", dir, name);
	json_object *doc = NULL;
	struct strbuf sb = STRBUF_INIT;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		goto cleanup;
	int64_t age = wall_ms() - ((int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000);
	if (age > DISCOVERY_CACHE_TTL_MS)
		goto cleanup;	/* "cache expired" */
	if (strbuf_read_fd(&sb, fd) < 0)
		goto cleanup;
	doc = sb.len ? json_parse_deep(sb.buf) : NULL;
	if (doc && !json_object_is_type(doc, json_type_object)) {
		json_object_put(doc);
		doc = NULL;
	}
	if (doc && age_ms)
		*age_ms = age;
cleanup:
	if (fd >= 0)
		close(fd);
	strbuf_release(&sb);
	free(path);
	return doc;
}

/* mkdir -p with mode 0750 (the umask applies, as to Go's os.MkdirAll). */
static int make_dirs(const char *dir)
{
	char *p = xstrdup(dir);
	int ret = 0;
	for (char *s = p + 1; *s && !ret; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0750) < 0 && errno != EEXIST)
			ret = -1;
		*s = '/';
	}
	if (!ret && mkdir(p, 0750) < 0 && errno != EEXIST)
		ret = -1;
	free(p);
	return ret;
}

int discovery_cache_write(const char *dir, const char *name, json_object *doc,
			  struct errbuf *err)
{
	char *path = xasprintf("%s/%s", dir, name);
	char *parent = xstrdup(path);
	char *tmp = NULL;
	int fd = -1, ret = -1;

	*strrchr(parent, '/') = '\0';
	if (make_dirs(parent) < 0) {
		errbuf_set(err, "cannot make directory '%s': %s", parent, strerror(errno));
		goto cleanup;
	}
	/* os.CreateTemp(dir, base + ".") then os.Chmod(0660): what client-go does. */
	tmp = xasprintf("%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		errbuf_set(err, "cannot create '%s': %s", tmp, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto cleanup;
	}
	size_t len;
	const char *text = json_object_to_json_string_length(doc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, text + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			errbuf_set(err, "cannot write '%s': %s", tmp, strerror(errno));
			goto cleanup;
		}
		off += (size_t)n;
	}
	if (fchmod(fd, 0660) < 0 || close(fd) < 0) {
		fd = -1;
		errbuf_set(err, "cannot write '%s': %s", tmp, strerror(errno));
		goto cleanup;
	}
	fd = -1;
	if (rename(tmp, path) < 0) {
		errbuf_set(err, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
		goto cleanup;
	}
	ret = 0;
cleanup:
	if (fd >= 0)
		close(fd);
	if (tmp && ret < 0)
		unlink(tmp);
	free(tmp);
	free(parent);
	free(path);
	return ret;
}
