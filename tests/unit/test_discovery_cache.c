/*
 * test_discovery_cache.c — kubectl's discovery cache: where it lives for a
 * server (cli-runtime's computeDiscoverCacheDir), how files are written and
 * when they are too old.
 */
#include <stdlib.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cluster/discovery_cache.h"
#include "unit.h"

static void check_dir(const char *server, const char *want)
{
	char *dir = discovery_cache_dir("/home/u/.kube/cache", server);
	CHECK_STR(dir, want);
	free(dir);
}

TEST(cache_dir_is_kubectls)
{
	check_dir("https://127.0.0.1:6443", "/home/u/.kube/cache/discovery/127.0.0.1_6443");
	check_dir("http://localhost:8080", "/home/u/.kube/cache/discovery/localhost_8080");
	/* A path stays a path, cleaned as filepath.Join cleans it. */
	check_dir("https://api.example.com:443/prefix/",
		  "/home/u/.kube/cache/discovery/api.example.com_443/prefix");
	check_dir("https://h:1/a/../b", "/home/u/.kube/cache/discovery/h_1/b");
	/* Brackets and colons of IPv6, '-' and '~' are not in [\w/.()]. */
	check_dir("https://[fd00::1]:443", "/home/u/.kube/cache/discovery/_fd00__1__443");
	check_dir("https://my-cluster.example:6443",
		  "/home/u/.kube/cache/discovery/my_cluster.example_6443");
	/* One '_' per character, however many bytes it takes in UTF-8. */
	check_dir("https://b\xc3\xbc" "cher.example", "/home/u/.kube/cache/discovery/b_cher.example");
	/* Only the first "https://" goes, as strings.Replace(..., 1) does. */
	check_dir("https://x/https://y", "/home/u/.kube/cache/discovery/x/https_/y");
}

TEST(cache_root_from_environment)
{
	setenv("HOME", "/home/u", 1);
	unsetenv("KUBECACHEDIR");
	char *root = discovery_cache_root();
	CHECK_STR(root, "/home/u/.kube/cache");
	free(root);
	setenv("KUBECACHEDIR", "/tmp/kc", 1);
	root = discovery_cache_root();
	CHECK_STR(root, "/tmp/kc");
	free(root);
	unsetenv("KUBECACHEDIR");
}

TEST(written_files_read_back_until_they_expire)
{
	char tmpl[] = "/tmp/kinf-cache-XXXXXX";
	char *base = mkdtemp(tmpl);
	struct errbuf err;
	CHECK(base != NULL);
	char *dir = xasprintf("%s/discovery/h_1", base);
	json_object *doc = json_tokener_parse("{\"kind\":\"APIGroupList\",\"groups\":[]}");

	CHECK_INT(discovery_cache_write(dir, "apps/v1/serverresources.json", doc, &err), 0);
	char *path = xasprintf("%s/apps/v1/serverresources.json", dir);
	struct stat st;
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(st.st_mode & 07777, 0660);

	int64_t age = -1;
	json_object *back = discovery_cache_read(dir, "apps/v1/serverresources.json", &age);
	CHECK(back != NULL);
	CHECK(age >= 0 && age < 60000);
	json_object *kind;
	CHECK(back && json_object_object_get_ex(back, "kind", &kind) &&
	      !strcmp(json_object_get_string(kind), "APIGroupList"));
	json_object_put(back);

	/* Six hours and a second old: expired. */
	struct timespec old[2] = { { .tv_sec = time(NULL) - 6 * 3600 - 1 },
				   { .tv_sec = time(NULL) - 6 * 3600 - 1 } };
	CHECK_INT(utimensat(AT_FDCWD, path, old, 0), 0);
	CHECK(discovery_cache_read(dir, "apps/v1/serverresources.json", NULL) == NULL);
	CHECK(discovery_cache_read(dir, "absent.json", NULL) == NULL);

	json_object_put(doc);
	char *rm = xasprintf("rm -rf '%s'", base);
	CHECK_INT(system(rm), 0);
	free(rm);
	free(path);
	free(dir);
}

int main(void)
{
	RUN(cache_dir_is_kubectls);
	RUN(cache_root_from_environment);
	RUN(written_files_read_back_until_they_expire);
	return unit_done();
}
