/*
 * discovery_fuzz.c — discovery (cluster/discovery.c) on any answers a
 * server may give: /api and /apis, aggregated or not, and each group
 * version's resource list.  A server is outside input.
 *
 * The input is the server: documents separated by NUL bytes, each a line
 * "PATH STATUS CONTENT-TYPE" and the body after it.  A client backend
 * answers each GET from them (404 for a path none names), so discovery
 * runs as it does against a cluster, threads and all, with no socket.
 *
 * Besides "no crash, no leak, no undefined behaviour, no hang":
 *   - a discovery that fails says why;
 *   - every resource it lists has a name, kind, group and version, a path
 *     and a full name, and is found again by its name;
 *   - what resolve() finds can be listed and watched, and what it refuses
 *     says why.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/discovery.h"
#include "cluster/http.h"
#include "lib/strbuf.h"
#include "fuzz.h"

struct doc {
	const char *path, *content_type, *body;
	long status;
};

struct server {
	struct doc docs[32];
	size_t nr;
};

/* Splits the input (NUL-terminated pieces of text) into documents. */
static void server_read(struct server *srv, char *text, size_t size)
{
	for (char *p = text; p < text + size && srv->nr < 32; p += strlen(p) + 1) {
		char *nl = strchr(p, '\n'), *sp;
		if (!nl)
			continue;
		*nl = '\0';
		struct doc *d = &srv->docs[srv->nr];
		d->body = nl + 1;
		d->path = p;
		d->status = 200;
		d->content_type = "application/json";
		if ((sp = strchr(p, ' '))) {
			*sp = '\0';
			d->status = strtol(sp + 1, &sp, 10);
			d->content_type = *sp == ' ' ? sp + 1 : "";
		}
		srv->nr++;
	}
}

static int answer(struct kclient *c, const char *path, const char *accept,
		  int64_t within_ms, struct rest_limiter *limiter, struct http_response *resp,
		  struct errbuf *err)
{
	const struct server *srv = kclient_backend_data(c);

	(void)accept;
	(void)within_ms;
	(void)limiter;
	(void)err;
	resp->status = 404;
	resp->retry_after_ms = -1;
	for (size_t i = 0; i < srv->nr; i++)
		if (!strcmp(srv->docs[i].path, path)) {
			resp->status = srv->docs[i].status;
			snprintf(resp->content_type, sizeof(resp->content_type), "%s",
				 srv->docs[i].content_type);
			strbuf_adds(&resp->body, srv->docs[i].body);
			break;
		}
	return 0;
}

static int no_stream(struct kclient *c, const char *path, const struct stream_opts *opts,
		     http_data_fn *on_data, void *ctx, struct http_response *resp,
		     struct errbuf *err)
{
	(void)c, (void)path, (void)opts, (void)on_data, (void)ctx, (void)resp;
	errbuf_set(err, "discovery streams nothing");
	return -1;
}

static int64_t now_ms(const struct kclient *c)
{
	(void)c;
	return 0;
}

static bool no_sleep(struct kclient *c, struct stop *stop, int64_t ms)
{
	(void)c, (void)stop, (void)ms;
	return true;
}

static const struct kclient_ops server_ops = {
	.stream = no_stream, .get = answer, .now_ms = now_ms, .sleep = no_sleep,
};

/* What resolve() says of typed. */
static void resolve(struct discovery *d, const char *typed)
{
	const struct api_resource *res = NULL;
	struct errbuf err = { "" };

	if (discovery_resolve(d, typed, &res, &err) == 0) {
		struct errbuf why = { "" };
		CHECK(res && res->name && res->kind);
		/* resolved whatever its verbs, as kubectl's get; informers need two */
		bool informable = api_resource_has_verb(res, "list") &&
				  api_resource_has_verb(res, "watch");
		CHECK((discovery_informable(res, &why) == 0) == informable);
		CHECK(informable == !why.msg[0]);
	} else {
		CHECK(err.msg[0]);
	}
}

static void check_resources(struct discovery *d)
{
	const struct api_resource **all;
	size_t nr;

	discovery_all(d, &all, &nr);
	for (size_t i = 0; i < nr && i < 24; i++) {
		const struct api_resource *r = all[i];
		CHECK(r->name && *r->name && r->kind && r->group && r->version && r->singular);
		char *full = api_resource_full_name(r);
		char *path = api_resource_path(r, "ns");
		CHECK(*full && *path == '/');
		resolve(d, full);
		resolve(d, r->kind);
		if (r->short_names && r->short_names[0])
			resolve(d, r->short_names[0]);
		free(full);
		free(path);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct server srv = { .nr = 0 };

	CHECK(text);
	memcpy(text, data, size);
	text[size] = '\0';
	server_read(&srv, text, size);

	struct kclient *c = kclient_new_backend(&server_ops, &srv, "fuzz");
	struct discovery *d = discovery_new(c);
	struct errbuf err = { "" };
	if (discovery_load(d, &err) == 0) {
		check_resources(d);
		static const char *const typed[] = {
			"pods", "po", "deploy", "deployments.apps", "crontabs.stable.example.com",
			"Pod", "v1", "apps/v1", "nosuch", ".", "pods.", "pods.v1.",
		};
		for (size_t i = 0; i < sizeof(typed) / sizeof(*typed); i++)
			resolve(d, typed[i]);
	} else {
		CHECK(err.msg[0]);
	}
	discovery_free(d);
	kclient_free(c);
	free(text);
	return 0;
}
