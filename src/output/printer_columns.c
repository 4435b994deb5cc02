/*
 * printer_columns.c — custom resources' printer columns from their CRDs;
 * see printer_columns.h.
 */
#include "output/printer_columns.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cluster/cluster.h"
#include "cluster/discovery.h"
#include "cluster/http.h"
#include "output/columns.h"
#include "lib/util.h"

static bool may_be_custom(const char *group)
{
	return strchr(group, '.') && (!str_ends_with(group, ".k8s.io") ||
				      str_ends_with(group, ".x-k8s.io"));
}

void printer_columns_load(struct crd_columns *crds, struct cluster *c,
			  const struct api_resource *const *res, size_t nr)
{
	char *base = api_group_version_path("apiextensions.k8s.io", "v1");

	for (size_t i = 0; i < nr; i++) {
		struct http_response resp = { 0 };
		struct errbuf err;
		if (!may_be_custom(res[i]->group) || crd_columns_has(crds, res[i]->group, res[i]->kind))
			continue;
		char *path = xasprintf("%s/customresourcedefinitions/%s.%s", base,
				       res[i]->name, res[i]->group);
		if (kclient_get(c->client, path, &resp, &err) == 0 && resp.status == 200) {
			struct json_object *crd = json_parse_deep(strbuf_str(&resp.body));
			if (crd)
				crd_columns_add(crds, crd, res[i]->version, &err);
			json_object_put(crd);
		}
		http_response_release(&resp);
		free(path);
	}
	free(base);
}
