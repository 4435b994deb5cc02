/*
 * kubeconfig.c — reading, merging and resolving kubeconfig files; see
 * kubeconfig.h for the rules.  libyaml loads each file into a document
 * tree; tables of fields (below) say which keys fill which struct member,
 * so the shape of the format is readable in one place.
 */
#include "cluster/kubeconfig.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "cluster/incluster.h"
#include "cluster/proxy.h"
#include "lib/base64.h"
#include "lib/strbuf.h"
#include "lib/goyaml.h"
#include "lib/yaml_plain.h"

/* ---- the parsed form of one file (or of a merge) ------------------------ */

/*
 * Each entry struct begins with these members, in this order: one layout
 * for the three named lists, so reading, finding and merging them needs no
 * switch.
 */
struct kc_entry_head {
	char *name, *file;
	int line;
};

/* A named list in file order; names are unique (the first one wins). */
struct kc_list {
	struct kc_entry_head **v;
	size_t nr, alloc;
};

struct kc_cluster {
	char *name, *file;	/* the kc_entry_head */
	int line;
	char *server, *tls_server_name, *proxy_url, *ca_file;
	struct blob ca_data;
	bool insecure, disable_compression;
	char *exec_extension;	/* JSON: extensions' client.authentication.k8s.io/exec */
};

struct kc_user {
	char *name, *file;	/* the kc_entry_head */
	int line;
	char *cert_file, *key_file;
	struct blob cert_data, key_data;
	char *token, *token_file, *username, *password;
	char *auth_provider;
	struct exec_config *exec;
	char *as, *as_uid;
	char **as_groups;
	char **as_extra;	/* key, value, key, value...: one pair per value */
};

struct kc_context {
	char *name, *file;	/* the kc_entry_head */
	int line;
	char *cluster, *user, *namespace;
};

struct kubeconfig {
	char *file;		/* the file, or "a:b:c" after a merge */
	char *current_context;
	struct kc_list lists[3];	/* indexed by enum kc_list_id */
};

enum kc_list_id { KC_CLUSTERS, KC_USERS, KC_CONTEXTS, KC__LISTS };

static void entry_head_release(struct kc_entry_head *h)
{
	free(h->name);
	free(h->file);
}

static void cluster_free(struct kc_entry_head *h)
{
	struct kc_cluster *c = (struct kc_cluster *)h;

	entry_head_release(h);
	free(c->server);
	free(c->tls_server_name);
	free(c->proxy_url);
	free(c->ca_file);
	blob_release(&c->ca_data);
	free(c->exec_extension);
	free(c);
}

static void user_free(struct kc_entry_head *h)
{
	struct kc_user *u = (struct kc_user *)h;

	entry_head_release(h);
	free(u->cert_file);
	free(u->key_file);
	blob_release(&u->cert_data);
	blob_release(&u->key_data);
	free(u->token);
	free(u->token_file);
	free(u->username);
	free(u->password);
	free(u->auth_provider);
	exec_config_free(u->exec);
	free(u->as);
	free(u->as_uid);
	strv_free(u->as_groups);
	strv_free(u->as_extra);
	free(u);
}

static void context_free(struct kc_entry_head *h)
{
	struct kc_context *c = (struct kc_context *)h;

	entry_head_release(h);
	free(c->cluster);
	free(c->user);
	free(c->namespace);
	free(c);
}

static void (*const entry_free[KC__LISTS])(struct kc_entry_head *) = {
	[KC_CLUSTERS] = cluster_free,
	[KC_USERS] = user_free,
	[KC_CONTEXTS] = context_free,
};

void kubeconfig_free(struct kubeconfig *kc)
{
	if (!kc)
		return;
	for (int l = 0; l < KC__LISTS; l++) {
		for (size_t i = 0; i < kc->lists[l].nr; i++)
			entry_free[l](kc->lists[l].v[i]);
		free(kc->lists[l].v);
	}
	free(kc->current_context);
	free(kc->file);
	free(kc);
}

static void *kc_find(const struct kubeconfig *kc, enum kc_list_id id, const char *name)
{
	const struct kc_list *list = &kc->lists[id];

	for (size_t i = 0; i < list->nr; i++)
		if (!strcmp(list->v[i]->name, name))
			return list->v[i];
	return NULL;
}

/* Appends e unless its name is taken; false (e untouched) if it is. */
static bool kc_append(struct kubeconfig *kc, enum kc_list_id id, struct kc_entry_head *e)
{
	struct kc_list *list = &kc->lists[id];

	if (kc_find(kc, id, e->name))
		return false;
	ALLOC_GROW(list->v, list->nr + 1, list->alloc);
	list->v[list->nr++] = e;
	return true;
}

/* ---- walking the YAML document ----------------------------------------- */

struct walk {
	yaml_document_t *doc;
	const char *file;
	char *dir;		/* absolute; relative paths resolve against it */
	struct errbuf *err;
	struct goyaml_members *members;	/* a mapping's, by node id - 1, made once */
	size_t merged;		/* keys merges have set (goyaml.h) */
};

static int line_of(const yaml_node_t *n)
{
	return (int)n->start_mark.line + 1;
}

static int bad(struct walk *w, const yaml_node_t *n, const char *fmt, ...) PRINTF(3, 4);
static int bad(struct walk *w, const yaml_node_t *n, const char *fmt, ...)
{
	char what[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	errbuf_set(w->err, "kubeconfig '%s' line %d: %s", w->file, line_of(n), what);
	return -1;
}

static yaml_node_t *node_at(struct walk *w, int id)
{
	return yaml_document_get_node(w->doc, id);
}

/* YAML 1.1's null, which is also what an empty value is. */
static bool is_null(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *v = (const char *)n->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") ||
	       !strcmp(v, "Null") || !strcmp(v, "NULL");
}

static const char *scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/* map's members, as client-go reads them (goyaml.h); NULL with the error said. */
static const struct goyaml_members *members_of(struct walk *w, yaml_node_t *map)
{
	struct goyaml_members *m = &w->members[map - w->doc->nodes.start];
	struct goyaml_error why;

	if (m->v)
		return m;
	if (goyaml_members(w->doc, map, &w->merged, m, &why) < 0) {
		bad(w, why.at, "%s", why.why);
		return NULL;
	}
	return m;
}

static char *resolve_path(const char *dir, const char *path)
{
	if (!*path || path[0] == '/')
		return xstrdup(path);
	return xasprintf("%s/%s", dir, path);
}

enum field_type {
	F_STRING,	/* char * */
	F_PATH,		/* char *, resolved against the file's directory */
	F_COMMAND,	/* char *, resolved only when it holds a '/' */
	F_BOOL,		/* bool */
	F_BASE64,	/* struct blob, decoded */
	F_STRINGS,	/* char **, from a list of strings */
	F_ENV,		/* char ** "NAME=VALUE", from [{name, value}] */
	F_EXTRA,	/* char ** key, value, ..., from {key: [value...]} */
	F_EXEC,		/* struct exec_config * */
	F_AUTH_PROVIDER,	/* char *, the provider's name */
	F_INTERACTIVE,	/* enum exec_interactive */
	F_EXEC_EXTENSION,	/* char *, JSON, from [{name, extension}] */
};

struct field {
	const char *key;
	enum field_type type;
	size_t offset;
};

#define FIELD(k, t, s, m) { k, t, offsetof(struct s, m) }

static const struct field cluster_fields[] = {
	FIELD("server", F_STRING, kc_cluster, server),
	FIELD("tls-server-name", F_STRING, kc_cluster, tls_server_name),
	FIELD("proxy-url", F_STRING, kc_cluster, proxy_url),
	FIELD("certificate-authority", F_PATH, kc_cluster, ca_file),
	FIELD("certificate-authority-data", F_BASE64, kc_cluster, ca_data),
	FIELD("insecure-skip-tls-verify", F_BOOL, kc_cluster, insecure),
	FIELD("disable-compression", F_BOOL, kc_cluster, disable_compression),
	FIELD("extensions", F_EXEC_EXTENSION, kc_cluster, exec_extension),
	{ NULL, 0, 0 },
};

static const struct field user_fields[] = {
	FIELD("client-certificate", F_PATH, kc_user, cert_file),
	FIELD("client-certificate-data", F_BASE64, kc_user, cert_data),
	FIELD("client-key", F_PATH, kc_user, key_file),
	FIELD("client-key-data", F_BASE64, kc_user, key_data),
	FIELD("token", F_STRING, kc_user, token),
	FIELD("tokenFile", F_PATH, kc_user, token_file),
	FIELD("username", F_STRING, kc_user, username),
	FIELD("password", F_STRING, kc_user, password),
	FIELD("as", F_STRING, kc_user, as),
	FIELD("as-uid", F_STRING, kc_user, as_uid),
	FIELD("as-groups", F_STRINGS, kc_user, as_groups),
	FIELD("as-user-extra", F_EXTRA, kc_user, as_extra),
	FIELD("auth-provider", F_AUTH_PROVIDER, kc_user, auth_provider),
	FIELD("exec", F_EXEC, kc_user, exec),
	{ NULL, 0, 0 },
};

static const struct field context_fields[] = {
	FIELD("cluster", F_STRING, kc_context, cluster),
	FIELD("user", F_STRING, kc_context, user),
	FIELD("namespace", F_STRING, kc_context, namespace),
	{ NULL, 0, 0 },
};

static const struct field exec_fields[] = {
	FIELD("apiVersion", F_STRING, exec_config, api_version),
	FIELD("command", F_COMMAND, exec_config, command),
	FIELD("args", F_STRINGS, exec_config, args),
	FIELD("env", F_ENV, exec_config, env),
	FIELD("installHint", F_STRING, exec_config, install_hint),
	FIELD("provideClusterInfo", F_BOOL, exec_config, provide_cluster_info),
	FIELD("interactiveMode", F_INTERACTIVE, exec_config, interactive),
	{ NULL, 0, 0 },
};

static int parse_fields(struct walk *w, yaml_node_t *map, const struct field *fields,
			void *obj, const char *what);

/*
 * A string, as client-go decodes it: through JSON, where an unquoted
 * "yes" or "0123" is already a boolean or a number (yaml_plain.h), and no
 * string field takes one.
 */
static int want_scalar(struct walk *w, yaml_node_t *n, const char *key)
{
	if (n->type != YAML_SCALAR_NODE)
		return bad(w, n, "'%s' must be a string", key);
	if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		enum yaml_plain kind = yaml_plain_kind(scalar(n));
		if (kind == YAML_PLAIN_BOOL || kind == YAML_PLAIN_NUMBER)
			return bad(w, n, "'%s' must be a string, and %s unquoted is %s to "
				   "client-go: quote it", key, scalar(n), yaml_plain_name(kind));
	}
	return 0;
}

static int parse_bool(struct walk *w, yaml_node_t *n, const char *key, bool *out)
{
	if (n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    yaml_plain_kind(scalar(n)) == YAML_PLAIN_BOOL)
		return *out = yaml_plain_true(scalar(n)), 0;
	return bad(w, n, "'%s' must be true or false, unquoted", key);
}

/* One element of a list (NULL: none there): a new string, or NULL with the error said. */
typedef char *list_item_fn(struct walk *w, yaml_node_t *item, yaml_node_t *list, const char *key);

/* A null element is "", as JSON's null leaves a Go string. */
static char *string_item(struct walk *w, yaml_node_t *item, yaml_node_t *list, const char *key)
{
	if (!item || item->type != YAML_SCALAR_NODE) {
		bad(w, item ? item : list, "'%s' must be a list of strings", key);
		return NULL;
	}
	if (is_null(item))
		return xstrdup("");
	return want_scalar(w, item, key) < 0 ? NULL : xstrdup(scalar(item));
}

struct env_var {
	char *name, *value;
};

static const struct field env_fields[] = {
	FIELD("name", F_STRING, env_var, name),
	FIELD("value", F_STRING, env_var, value),
	{ NULL, 0, 0 },
};

/* An exec plugin's {name, value} as "name=value". */
static char *env_item(struct walk *w, yaml_node_t *item, yaml_node_t *list, const char *key)
{
	struct env_var ev = { 0 };
	char *s = NULL;

	if (!item)
		bad(w, list, "bad '%s' entry", key);
	else if (parse_fields(w, item, env_fields, &ev, "env") < 0)
		;	/* said */
	else	/* as client-go's exec.go makes it; a name is checked when used */
		s = xasprintf("%s=%s", ev.name ? ev.name : "", ev.value ? ev.value : "");
	free(ev.name);
	free(ev.value);
	return s;
}

/* A sequence of what, each element made by fn, as a NULL-terminated *out. */
static int parse_list(struct walk *w, yaml_node_t *n, const char *key, const char *what,
		      list_item_fn *fn, char ***out)
{
	if (n->type != YAML_SEQUENCE_NODE)
		return bad(w, n, "'%s' must be a list of %s", key, what);
	size_t nr = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	char **v = xcalloc(nr + 1, sizeof(*v));
	size_t i = 0;
	for (yaml_node_item_t *it = n->data.sequence.items.start;
	     it < n->data.sequence.items.top; it++)
		if (!(v[i++] = fn(w, node_at(w, *it), n, key))) {
			strv_free(v);
			return -1;
		}
	strv_free(*out);
	*out = v;
	return 0;
}

/* A map of lists of strings (Go's map[string][]string) as key, value pairs. */
static int parse_extra(struct walk *w, yaml_node_t *n, const char *key, char ***out)
{
	if (n->type != YAML_MAPPING_NODE)
		return bad(w, n, "'%s' must map names to lists of strings", key);
	const struct goyaml_members *m = members_of(w, n);
	if (!m)
		return -1;
	size_t nr = 0, alloc = 0;
	char **v = xcalloc(1, sizeof(*v));
	for (size_t at = 0; at < m->nr; at++) {
		yaml_node_t *k = m->v[at].key, *vals = m->v[at].value;
		char **list = NULL;
		if (!is_null(vals) && parse_list(w, vals, key, "strings", string_item, &list) < 0) {
			strv_free(v);
			return -1;
		}
		for (char **s = list; s && *s; s++) {
			ALLOC_GROW(v, nr + 3, alloc);
			v[nr++] = xstrdup(scalar(k));
			v[nr++] = *s;
			v[nr] = NULL;
		}
		free(list);
	}
	strv_free(*out);
	*out = v;
	return 0;
}

/*
 * A cluster's extensions: of those, client-go hands an exec plugin the one
 * named client.authentication.k8s.io/exec (spec.cluster.config), as the
 * JSON the kubeconfig's YAML makes; the last of that name wins.
 */
static int parse_exec_extension(struct walk *w, yaml_node_t *n, const char *key, char **out)
{
	if (n->type != YAML_SEQUENCE_NODE)
		return bad(w, n, "'%s' must be a list of {name, extension}", key);
	for (yaml_node_item_t *it = n->data.sequence.items.start;
	     it < n->data.sequence.items.top; it++) {
		yaml_node_t *item = node_at(w, *it);
		if (!item || is_null(item))
			continue;
		const struct goyaml_members *m = item->type == YAML_MAPPING_NODE ?
						 members_of(w, item) : NULL;
		if (!m)
			return item->type == YAML_MAPPING_NODE ? -1 :
			       bad(w, item, "'%s' must be a list of {name, extension}", key);
		yaml_node_t *name = goyaml_member(m, "name"), *ext = goyaml_member(m, "extension");
		if (name && want_scalar(w, name, "name") < 0)
			return -1;
		if (!name || strcmp(scalar(name), "client.authentication.k8s.io/exec") ||
		    !ext || is_null(ext))
			continue;
		struct json_object *json;
		struct goyaml_error why;
		if (goyaml_node_json(w->doc, ext, &json, &why) < 0)
			return bad(w, why.at, "%s", why.why);
		free(*out);
		*out = xstrdup(json_object_to_json_string_ext(json, JSON_C_TO_STRING_PLAIN |
								JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(json);
	}
	return 0;
}

static int parse_exec(struct walk *w, yaml_node_t *n, struct exec_config **out)
{
	struct exec_config *e = xcalloc(1, sizeof(*e));
	if (parse_fields(w, n, exec_fields, e, "exec") < 0) {
		exec_config_free(e);
		return -1;
	}
	if (!e->args)
		e->args = xcalloc(1, sizeof(char *));
	if (!e->env)
		e->env = xcalloc(1, sizeof(char *));
	exec_config_free(*out);
	*out = e;
	return 0;
}

static int parse_field(struct walk *w, const struct field *f, yaml_node_t *v, void *obj)
{
	void *slot = (char *)obj + f->offset;

	if (is_null(v))
		return 0;	/* as absent, as Go decodes null */

	switch (f->type) {
	case F_STRING:
	case F_PATH:
	case F_COMMAND: {
		if (want_scalar(w, v, f->key) < 0)
			return -1;
		char **s = slot;
		free(*s);
		if (f->type == F_PATH ||
		    (f->type == F_COMMAND && strchr(scalar(v), '/')))
			*s = resolve_path(w->dir, scalar(v));
		else
			*s = xstrdup(scalar(v));
		return 0;
	}
	case F_BOOL:
		return parse_bool(w, v, f->key, slot);
	case F_BASE64: {
		if (want_scalar(w, v, f->key) < 0)
			return -1;
		struct blob *b = slot;
		struct strbuf sb = STRBUF_INIT;
		if (base64_decode(scalar(v), v->data.scalar.length, &sb) < 0) {
			strbuf_release(&sb);
			return bad(w, v, "'%s' is not valid base64", f->key);
		}
		blob_release(b);
		b->data = strbuf_detach(&sb, &b->len);
		return 0;
	}
	case F_STRINGS:
		return parse_list(w, v, f->key, "strings", string_item, slot);
	case F_ENV:
		return parse_list(w, v, f->key, "{name, value}", env_item, slot);
	case F_EXTRA:
		return parse_extra(w, v, f->key, slot);
	case F_EXEC:
		return parse_exec(w, v, slot);
	case F_EXEC_EXTENSION:
		return parse_exec_extension(w, v, f->key, slot);
	case F_AUTH_PROVIDER: {
		char **s = slot;
		if (v->type != YAML_MAPPING_NODE)
			return bad(w, v, "'%s' must be a mapping", f->key);
		const struct goyaml_members *m = members_of(w, v);
		if (!m)
			return -1;
		yaml_node_t *name = goyaml_member(m, "name");
		free(*s);
		*s = xstrdup(name && name->type == YAML_SCALAR_NODE ? scalar(name) : "(unnamed)");
		return 0;
	}
	case F_INTERACTIVE: {
		static const char *const modes[] = {
			[EXEC_INTERACTIVE_NEVER] = "Never",
			[EXEC_INTERACTIVE_IF_AVAILABLE] = "IfAvailable",
			[EXEC_INTERACTIVE_ALWAYS] = "Always",
		};
		if (want_scalar(w, v, f->key) < 0)
			return -1;
		/* clientcmd checks it only in the user it uses (validateAuthInfo) */
		*(enum exec_interactive *)slot = EXEC_INTERACTIVE_INVALID;
		for (size_t i = EXEC_INTERACTIVE_NEVER; i < ARRAY_SIZE(modes); i++)
			if (!strcmp(scalar(v), modes[i]))
				*(enum exec_interactive *)slot = (enum exec_interactive)i;
		return 0;
	}
	}
	return 0;
}

/* Fills obj from the keys of map the table knows; other keys are ignored. */
static int parse_fields(struct walk *w, yaml_node_t *map, const struct field *fields,
			void *obj, const char *what)
{
	if (is_null(map))
		return 0;
	if (map->type != YAML_MAPPING_NODE)
		return bad(w, map, "'%s' must be a mapping", what);
	const struct goyaml_members *m = members_of(w, map);
	if (!m)
		return -1;
	for (const struct field *f = fields; f->key; f++) {
		yaml_node_t *v = goyaml_member(m, f->key);
		if (v && parse_field(w, f, v, obj) < 0)
			return -1;
	}
	return 0;
}

/* How each of the three named lists is read into the kubeconfig. */
struct named_list {
	const char *key;	/* "clusters" */
	const char *item_key;	/* "cluster" */
	const struct field *fields;
	size_t size;		/* of the entry struct */
	enum kc_list_id id;
};

static const struct named_list named_lists[] = {
	{ "clusters", "cluster", cluster_fields, sizeof(struct kc_cluster), KC_CLUSTERS },
	{ "users", "user", user_fields, sizeof(struct kc_user), KC_USERS },
	{ "contexts", "context", context_fields, sizeof(struct kc_context), KC_CONTEXTS },
};

static int parse_named_list(struct walk *w, struct kubeconfig *kc,
			    const struct named_list *nl, yaml_node_t *seq)
{
	if (is_null(seq))
		return 0;
	if (seq->type != YAML_SEQUENCE_NODE)
		return bad(w, seq, "'%s' must be a list", nl->key);
	for (yaml_node_item_t *it = seq->data.sequence.items.start;
	     it < seq->data.sequence.items.top; it++) {
		yaml_node_t *item = node_at(w, *it);
		static const struct goyaml_members none;	/* null: Go's zero entry */
		if (!item || (!is_null(item) && item->type != YAML_MAPPING_NODE))
			return bad(w, item ? item : seq, "each of '%s' must be a mapping with a name",
				   nl->key);
		const struct goyaml_members *m = is_null(item) ? &none : members_of(w, item);
		if (!m)
			return -1;
		yaml_node_t *n = goyaml_member(m, "name"), *body = goyaml_member(m, nl->item_key);
		if (n && want_scalar(w, n, "name") < 0)
			return -1;
		const char *name = n && !is_null(n) ? scalar(n) : "";
		if (kc_find(kc, nl->id, name))
			return bad(w, item, "%s '%s' is defined twice", nl->item_key, name);
		struct kc_entry_head *e = xcalloc(1, nl->size);
		e->name = xstrdup(name);
		kc_append(kc, nl->id, e);
		e->file = xstrdup(w->file);
		e->line = line_of(item);
		if (body && parse_fields(w, body, nl->fields, e, nl->item_key) < 0)
			return -1;
	}
	return 0;
}

/* What client-go decodes a kubeconfig as: kind Config of v1, each the default. */
static int type_meta(struct walk *w, const struct goyaml_members *m, const char *key,
		     const char *want)
{
	yaml_node_t *v = goyaml_member(m, key);

	if (!v || is_null(v))
		return 0;
	if (want_scalar(w, v, key) < 0)
		return -1;
	if (*scalar(v) && strcmp(scalar(v), want))
		return bad(w, v, "%s '%s': a kubeconfig is kind Config of apiVersion v1, as "
			   "client-go reads it", key, scalar(v));
	return 0;
}

static int parse_root(struct walk *w, struct kubeconfig *kc, yaml_node_t *root)
{
	if (is_null(root))
		return 0;
	if (root->type != YAML_MAPPING_NODE)
		return bad(w, root, "a kubeconfig must be a mapping (clusters, users, contexts)");
	const struct goyaml_members *m = members_of(w, root);
	if (!m || type_meta(w, m, "apiVersion", "v1") < 0 ||
	    type_meta(w, m, "kind", "Config") < 0)
		return -1;
	yaml_node_t *v = goyaml_member(m, "current-context");
	if (v && !is_null(v)) {
		if (want_scalar(w, v, "current-context") < 0)
			return -1;
		kc->current_context = *scalar(v) ? xstrdup(scalar(v)) : NULL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(named_lists); i++) {
		v = goyaml_member(m, named_lists[i].key);
		if (v && parse_named_list(w, kc, &named_lists[i], v) < 0)
			return -1;
	}
	return 0;
}

static char *dir_of(const char *file)
{
	const char *slash = strrchr(file, '/');
	char *dir = slash ? xstrndup(file, slash == file ? 1 : (size_t)(slash - file))
			  : xstrdup(".");
	if (dir[0] == '/')
		return dir;
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd)))
		return dir;	/* relative is the best we have */
	char *abs = strcmp(dir, ".") ? xasprintf("%s/%s", cwd, dir) : xstrdup(cwd);
	free(dir);
	return abs;
}

struct kubeconfig *kubeconfig_parse(const char *name, const char *buf,
				    size_t len, struct errbuf *err)
{
	struct kubeconfig *kc = xcalloc(1, sizeof(*kc));
	yaml_document_t doc;
	struct strbuf why = STRBUF_INIT;
	struct walk w = { .doc = &doc, .file = name, .err = err };

	kc->file = xstrdup(name);
	if (goyaml_load(buf, len, &doc, &why) < 0) {
		errbuf_set(err, "malformed kubeconfig '%s' %s", name, why.buf);
		strbuf_release(&why);
		kubeconfig_free(kc);
		return NULL;
	}
	w.dir = dir_of(name);
	size_t nodes = (size_t)(doc.nodes.top - doc.nodes.start);
	w.members = xcalloc(nodes ? nodes : 1, sizeof(*w.members));
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	int rc = root ? parse_root(&w, kc, root) : 0;
	for (size_t i = 0; i < nodes; i++)
		goyaml_members_release(&w.members[i]);
	free(w.members);
	yaml_document_delete(&doc);
	free(w.dir);
	if (rc < 0) {
		kubeconfig_free(kc);
		return NULL;
	}
	return kc;
}

static struct kubeconfig *kubeconfig_read(const char *path, struct errbuf *err)
{
	struct blob b = { 0 };
	if (blob_read_file(&b, path) < 0) {
		errbuf_set(err, "cannot read kubeconfig '%s': %s", path, strerror(errno));
		return NULL;
	}
	struct kubeconfig *kc = kubeconfig_parse(path, b.data, b.len, err);
	blob_release(&b);
	return kc;
}

/*
 * kubectl's merge: the first file to define a name keeps it, whole; the
 * first current-context wins.  Entries move from `from`, which is freed.
 */
static void kubeconfig_merge(struct kubeconfig *into, struct kubeconfig *from)
{
	for (int l = 0; l < KC__LISTS; l++) {
		struct kc_list *list = &from->lists[l];

		for (size_t i = 0; i < list->nr; i++)
			if (!kc_append(into, l, list->v[i]))
				entry_free[l](list->v[i]);
		list->nr = 0;
	}
	if (!into->current_context && from->current_context) {
		into->current_context = from->current_context;
		from->current_context = NULL;
	}
	kubeconfig_free(from);
}

static bool file_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static char *home_config(void)
{
	const char *home = getenv("HOME");
	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : "/";
	}
	return xasprintf("%s/.kube/config", home);
}

/*
 * The kubeconfig opts selects, merged.  0 with *out NULL when no file
 * exists where kubectl would look (then *looked says where that was).
 */
static int kubeconfig_find(const struct kubeconfig_opts *opts, struct kubeconfig **out,
			   char **looked, struct errbuf *err)
{
	*out = NULL;
	*looked = NULL;

	if (opts->kubeconfig && *opts->kubeconfig) {
		*out = kubeconfig_read(opts->kubeconfig, err);
		return *out ? 0 : -1;
	}

	const char *env = getenv("KUBECONFIG");
	if (env && *env) {
		struct kubeconfig *merged = NULL;
		char *list = xstrdup(env), *save = NULL;
		struct strbuf files = STRBUF_INIT;
		for (char *f = strtok_r(list, ":", &save); f; f = strtok_r(NULL, ":", &save)) {
			/* A file listed twice counts once, where it first appears. */
			bool seen = false;
			for (char *g = list; g < f; g += strlen(g) + 1)
				if (!strcmp(g, f))
					seen = true;
			if (seen || !file_exists(f))
				continue;
			struct kubeconfig *kc = kubeconfig_read(f, err);
			if (!kc) {
				kubeconfig_free(merged);
				free(list);
				strbuf_release(&files);
				return -1;
			}
			if (files.len)
				strbuf_addch(&files, ':');
			strbuf_adds(&files, f);
			if (!merged)
				merged = kc;
			else
				kubeconfig_merge(merged, kc);
		}
		free(list);
		if (merged) {
			free(merged->file);
			merged->file = strbuf_detach(&files, NULL);
		} else {
			strbuf_release(&files);
			*looked = xasprintf("KUBECONFIG='%s' names no existing file", env);
		}
		*out = merged;
		return 0;
	}

	char *path = home_config();
	if (file_exists(path)) {
		*out = kubeconfig_read(path, err);
		free(path);
		return *out ? 0 : -1;
	}
	*looked = xasprintf("'%s' does not exist", path);
	free(path);
	return 0;
}

/* ---- from a context to a rest config ----------------------------------- */

/* "a, b, c" (at most a few), for messages that list what exists. */
static void list_names(struct strbuf *sb, const struct kubeconfig *kc)
{
	size_t shown = kc->lists[KC_CONTEXTS].nr < 6 ? kc->lists[KC_CONTEXTS].nr : 5;
	for (size_t i = 0; i < shown; i++)
		strbuf_addf(sb, "%s'%s'", i ? ", " : "", kc->lists[KC_CONTEXTS].v[i]->name);
	if (shown < kc->lists[KC_CONTEXTS].nr)
		strbuf_addf(sb, " and %zu more", kc->lists[KC_CONTEXTS].nr - shown);
}

static int read_file_into(struct blob *b, const char *path, const char *what,
			  const char *owner_kind, const char *owner, struct errbuf *err)
{
	if (blob_read_file(b, path) == 0)
		return 0;
	errbuf_set(err, "cannot read %s '%s' of %s '%s': %s", what, path, owner_kind,
		   owner, strerror(errno));
	return -1;
}

/* A key's file, else its inline data, into b (left empty when neither is set). */
static int file_or_data(struct blob *b, const char *file, const struct blob *data,
			const char *key, const char *owner_kind, const char *owner,
			struct errbuf *err)
{
	if (file && *file)
		return read_file_into(b, file, key, owner_kind, owner, err);
	if (data->len) {
		b->data = xstrndup(data->data, data->len);
		b->len = data->len;
	}
	return 0;
}

/*
 * The server's scheme, as clientcmd's ClientConfig decides it: a server
 * without one is http (it asks IsConfigTransportTLS before it has read
 * any CA, certificate or insecure-skip-tls-verify), and a server that is
 * not https gets no credential and no TLS setting at all.
 */
static void server_scheme(struct rest_config *cfg)
{
	if (!strstr(cfg->server, "://")) {
		char *s = xasprintf("http://%s", cfg->server);
		free(cfg->server);
		cfg->server = s;
	}
	if (strncasecmp(cfg->server, "https://", 8))
		rest_config_plain_http(cfg);
}

/*
 * The server as clientcmd's ClientConfig writes it back: it reads it as a
 * request URI (url.ParseRequestURI), to which a '#' is part of the path,
 * and a path longer than "/" loses its query and has the '#' escaped:
 * "https://h/#f" is reached as "https://h/%23f/api".  A path of "/" or
 * none keeps both, and the requests leave them out; so does a server
 * without a scheme, which is no request URI.
 */
static void server_path(struct rest_config *cfg)
{
	const char *scheme = strstr(cfg->server, "://");
	if (!scheme)
		return;
	const char *rest = scheme + 3;
	size_t host = strcspn(rest, "/?"), end = strcspn(rest, "?");

	if (memchr(rest, '#', host) || end - host <= 1)
		return;	/* no host Go takes, or a path too short to change */
	struct strbuf sb = STRBUF_INIT;
	strbuf_add(&sb, cfg->server, (size_t)(rest + host - cfg->server));
	for (const char *p = rest + host; p < rest + end; p++)
		if (*p == '#')
			strbuf_adds(&sb, "%23");
		else
			strbuf_addch(&sb, *p);
	free(cfg->server);
	cfg->server = strbuf_detach(&sb, NULL);
}

/* s[0..len) with its %-escapes decoded into out, as url.Parse decodes a userinfo's. */
static int url_unescape(const char *s, size_t len, struct strbuf *out)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] != '%') {
			strbuf_addch(out, s[i]);
			continue;
		}
		if (len - i < 3 || !isxdigit((unsigned char)s[i + 1]) ||
		    !isxdigit((unsigned char)s[i + 2]))
			return -1;
		char hex[3] = { s[i + 1], s[i + 2], '\0' };
		strbuf_addch(out, (char)strtol(hex, NULL, 16));
		i += 2;
	}
	return 0;
}

/*
 * The user information of the server's URL, out of cfg->server and into
 * server_user and server_password (rest_config.h), decoded; no message
 * shows it, this one's error included.
 */
static int server_userinfo(struct rest_config *cfg, struct errbuf *err)
{
	size_t start, n = url_userinfo_span(cfg->server, &start);
	struct strbuf user = STRBUF_INIT, password = STRBUF_INIT;

	if (!n)
		return 0;
	const char *info = cfg->server + start;
	size_t len = n - 1, colon = strcspn(info, ":");
	if (colon > len)
		colon = len;
	if (url_unescape(info, colon, &user) < 0 ||
	    (colon < len && url_unescape(info + colon + 1, len - colon - 1, &password) < 0)) {
		strbuf_release(&user);
		explicit_bzero(password.buf, password.len);
		strbuf_release(&password);
		errbuf_set(err, "the user information in the server URL of cluster '%s' has a '%%' "
			   "without two hex digits after it, which Go's url.Parse refuses", cfg->cluster);
		return -1;
	}
	cfg->server_user = strbuf_detach(&user, NULL);
	cfg->server_password = colon < len ? strbuf_detach(&password, NULL) : NULL;
	strbuf_release(&password);
	char *server = xasprintf("%.*s%s", (int)start, cfg->server, cfg->server + start + n);
	secret_free(cfg->server);
	cfg->server = server;
	return 0;
}

static int cluster_into(const struct kc_cluster *c, struct rest_config *cfg, struct errbuf *err)
{
	char where[PATH_MAX + 64], why[96];

	snprintf(where, sizeof(where), "(kubeconfig '%s' line %d)", c->file, c->line);
	if (!c->server || !*c->server) {
		errbuf_set(err, "cluster '%s' has no server %s", c->name, where);
		return -1;
	}
	if (c->ca_file && *c->ca_file && c->ca_data.len) {
		errbuf_set(err, "cluster '%s' sets both certificate-authority and "
			   "certificate-authority-data; keep one %s", c->name, where);
		return -1;
	}
	if (c->insecure && ((c->ca_file && *c->ca_file) || c->ca_data.len)) {
		errbuf_set(err, "cluster '%s' sets both insecure-skip-tls-verify and a "
			   "certificate authority; keep one %s", c->name, where);
		return -1;
	}
	if (c->proxy_url && *c->proxy_url && proxy_url_refused(c->proxy_url, why, sizeof(why))) {
		errbuf_set(err, "cluster '%s' has a proxy-url client-go refuses: %s %s", c->name,
			   why, where);
		return -1;
	}
	if (file_or_data(&cfg->ca, c->ca_file, &c->ca_data, "certificate-authority", "cluster",
			 c->name, err) < 0)
		return -1;
	if (c->ca_file && *c->ca_file) {
		cfg->ca_origin = xasprintf("'%s'", c->ca_file);
		cfg->ca_file = xstrdup(c->ca_file);
	}
	else if (c->ca_data.len)
		cfg->ca_origin = xasprintf("certificate-authority-data of cluster '%s'", c->name);

	/* Its scheme, if it has none, once the user is known (server_scheme()). */
	cfg->server = xstrdup(c->server);
	size_t n = strlen(cfg->server);
	while (n && cfg->server[n - 1] == '/')
		cfg->server[--n] = '\0';

	cfg->insecure = c->insecure;
	cfg->disable_compression = c->disable_compression;
	if (c->tls_server_name && *c->tls_server_name)
		cfg->tls_server_name = xstrdup(c->tls_server_name);
	if (c->proxy_url && *c->proxy_url)
		cfg->proxy_url = xstrdup(c->proxy_url);
	if (c->exec_extension)
		cfg->exec_cluster_config = xstrdup(c->exec_extension);
	cfg->cluster = xstrdup(c->name);
	return 0;
}

/* An auth-provider user, refused with what to configure instead. */
static int refuse_auth_provider(const struct kc_user *u, const char *where,
				struct errbuf *err)
{
	/* The in-tree providers are gone from client-go; kinf never had them. */
	const char *instead = "an exec credential plugin";

	if (!strcmp(u->auth_provider, "gcp"))
		instead = "the exec plugin gke-gcloud-auth-plugin";
	else if (!strcmp(u->auth_provider, "azure"))
		instead = "the exec plugin kubelogin";
	else if (!strcmp(u->auth_provider, "oidc"))
		instead = "an OIDC exec plugin such as kubelogin (kubectl oidc-login)";
	errbuf_set(err, "user '%s' uses auth-provider '%s', which kinf does not "
		   "support; configure %s instead %s", u->name, u->auth_provider,
		   instead, where);
	return -1;
}

/* A client certificate and key: each given once, and both or neither. */
static int check_client_cert(const struct kc_user *u, const char *where,
			     struct errbuf *err)
{
	bool has_cert = (u->cert_file && *u->cert_file) || u->cert_data.len;
	bool has_key = (u->key_file && *u->key_file) || u->key_data.len;

	if (u->cert_file && *u->cert_file && u->cert_data.len) {
		errbuf_set(err, "user '%s' sets both client-certificate and "
			   "client-certificate-data; keep one %s", u->name, where);
		return -1;
	}
	if (u->key_file && *u->key_file && u->key_data.len) {
		errbuf_set(err, "user '%s' sets both client-key and client-key-data; keep one %s",
			   u->name, where);
		return -1;
	}
	if (has_cert != has_key) {
		errbuf_set(err, "user '%s' has a client %s but no client %s %s", u->name,
			   has_cert ? "certificate" : "key", has_cert ? "key" : "certificate",
			   where);
		return -1;
	}
	return 0;
}

static bool has_token(const struct kc_user *u)
{
	return u->token && *u->token;
}

static bool has_basic(const struct kc_user *u)
{
	return (u->username && *u->username) || (u->password && *u->password);
}

/* An exec plugin with a command and an apiVersion kinf speaks. */
static int check_exec(const struct kc_user *u, const char *where, struct errbuf *err)
{
	const struct exec_config *e = u->exec;

	if (!e->command || !*e->command) {
		errbuf_set(err, "exec plugin of user '%s' has no command %s", u->name, where);
		return -1;
	}
	if (!e->api_version || !*e->api_version) {
		errbuf_set(err, "exec plugin of user '%s' has no apiVersion %s", u->name, where);
		return -1;
	}
	if (strcmp(e->api_version, "client.authentication.k8s.io/v1") &&
	    strcmp(e->api_version, "client.authentication.k8s.io/v1beta1")) {
		errbuf_set(err, "exec plugin of user '%s' has apiVersion '%s'; kinf "
			   "supports client.authentication.k8s.io/v1 and v1beta1 %s",
			   u->name, e->api_version, where);
		return -1;
	}
	for (char **env = e->env; *env; env++)
		if (**env == '=') {
			errbuf_set(err, "exec plugin of user '%s' has an env entry with no name %s",
				   u->name, where);
			return -1;
		}
	if (e->interactive == EXEC_INTERACTIVE_INVALID) {
		errbuf_set(err, "exec plugin of user '%s' has an interactiveMode neither Never, "
			   "IfAvailable nor Always %s", u->name, where);
		return -1;
	}
	if (e->interactive == EXEC_INTERACTIVE_UNSET &&
	    !strcmp(e->api_version, "client.authentication.k8s.io/v1")) {
		errbuf_set(err, "exec plugin of user '%s' needs interactiveMode "
			   "(Never, IfAvailable or Always) with apiVersion v1 %s",
			   u->name, where);
		return -1;
	}
	return 0;
}

/* The user's entries that contradict each other or cannot work; before any is read. */
static int check_user(const struct kc_user *u, struct errbuf *err)
{
	char where[PATH_MAX + 64];

	snprintf(where, sizeof(where), "(kubeconfig '%s' line %d)", u->file, u->line);
	if (u->auth_provider)
		return refuse_auth_provider(u, where, err);
	if (check_client_cert(u, where, err) < 0)
		return -1;
	if (has_token(u) && has_basic(u)) {
		errbuf_set(err, "user '%s' has both a token and a username/password; "
			   "only one authentication method is allowed %s", u->name, where);
		return -1;
	}
	return u->exec ? check_exec(u, where, err) : 0;
}

/*
 * The one way the user proves who it is, as clientcmd and client-go's
 * transport choose it.  A token file wins over a token, which then stands
 * in for the file (clientcmd reads the file at load only when alone).  A
 * username comes next; a password alone sends nothing, as HasBasicAuth()
 * reads only the username.  A token file beside a username passes
 * clientcmd's check, which counts tokens alone, and client-go's transport
 * refuses the two.  An exec plugin stands aside for all of those and for a
 * client certificate (its UpdateTransportConfig), never run.
 */
static int credentials_into(const struct kc_user *u, struct rest_config *cfg,
			    struct errbuf *err)
{
	if (u->token_file && *u->token_file && u->username && *u->username) {
		errbuf_set(err, "user '%s' has both a token file and a username; a bearer token "
			   "or a username/password may be set, not both (kubeconfig '%s' line %d)",
			   u->name, u->file, u->line);
		return -1;
	}
	if (u->token_file && *u->token_file) {
		cfg->auth = AUTH_TOKEN_FILE;
		cfg->token_file = xstrdup(u->token_file);
		if (has_token(u)) {
			cfg->token = xstrdup(u->token);
			return 0;
		}
		struct blob b = { 0 };
		if (read_file_into(&b, u->token_file, "tokenFile", "user", u->name, err) < 0)
			return -1;
		cfg->token = blob_text(&b, false);
		blob_release(&b);
	} else if (has_token(u)) {
		cfg->auth = AUTH_TOKEN;
		cfg->token = xstrdup(u->token);
	} else if (u->username && *u->username) {
		cfg->auth = AUTH_BASIC;
		cfg->username = xstrdup(u->username);
		cfg->password = xstrdup(u->password ? u->password : "");
	} else if (u->exec && !cfg->client_cert.len) {
		cfg->auth = AUTH_EXEC;
		cfg->exec = exec_config_dup(u->exec);
		/* v1beta1 defaults to IfAvailable; v1 had to say. */
		if (cfg->exec->interactive == EXEC_INTERACTIVE_UNSET)
			cfg->exec->interactive = EXEC_INTERACTIVE_IF_AVAILABLE;
	}
	return 0;
}

/*
 * Who to impersonate: the user's as, as-uid and as-groups, each replaced
 * by its flag when given (clientcmd merges kubectl's --as, --as-uid and
 * --as-group over the user), and as-user-extra.  A uid, groups or extra
 * without a user to impersonate is refused, as client-go refuses the
 * merged user.  u is NULL when the context names no user.
 */
static int impersonation_into(const struct kc_user *u, const struct kubeconfig_opts *opts,
			      struct rest_config *cfg, struct errbuf *err)
{
	bool flag_uid = opts->as_uid && *opts->as_uid;
	bool flag_groups = opts->as_groups && *opts->as_groups;
	const char *as = opts->as && *opts->as ? opts->as : u ? u->as : NULL;
	const char *uid = flag_uid ? opts->as_uid : u ? u->as_uid : NULL;
	const char *const *groups = flag_groups ? opts->as_groups
						: u ? (const char *const *)u->as_groups : NULL;
	char *const *extra = u ? u->as_extra : NULL;

	if (!as || !*as) {
		if (flag_uid || flag_groups) {
			errbuf_set(err, "--as-uid and --as-group need --as (or the user's 'as'): "
				   "client-go impersonates no uid or group without a user");
			return -1;
		}
		if ((uid && *uid) || (groups && *groups) || (extra && *extra)) {
			errbuf_set(err, "user '%s' impersonates a uid, groups or user-extra without "
				   "a user ('as'), which client-go refuses (kubeconfig '%s' line %d)",
				   u->name, u->file, u->line);
			return -1;
		}
		return 0;
	}
	cfg->impersonate_user = xstrdup(as);
	if (uid && *uid)
		cfg->impersonate_uid = xstrdup(uid);
	if (groups) {
		strv_free(cfg->impersonate_groups);
		cfg->impersonate_groups = strv_dup((char *const *)groups);
	}
	if (extra) {
		strv_free(cfg->impersonate_extra);
		cfg->impersonate_extra = strv_dup(extra);
	}
	return 0;
}

static int user_into(const struct kc_user *u, struct rest_config *cfg, struct errbuf *err)
{
	if (check_user(u, err) < 0 ||
	    file_or_data(&cfg->client_cert, u->cert_file, &u->cert_data,
			 "client-certificate", "user", u->name, err) < 0 ||
	    file_or_data(&cfg->client_key, u->key_file, &u->key_data, "client-key", "user",
			 u->name, err) < 0)
		return -1;
	/* transport.loadTLSFiles: files alone make the pair one to read again */
	if (u->cert_file && *u->cert_file && !u->cert_data.len && u->key_file && *u->key_file &&
	    !u->key_data.len) {
		cfg->client_cert_file = xstrdup(u->cert_file);
		cfg->client_key_file = xstrdup(u->key_file);
	}
	return credentials_into(u, cfg, err);
}

static bool given(const char *s)
{
	return s && *s;
}

/*
 * The context's cluster (NULL: none) under kubectl's flags, as clientcmd's
 * getCluster merges its ConfigOverrides: what a flag gives replaces; a CA
 * or --insecure-skip-tls-verify replaces all three of CA, CA data and
 * insecure; --server or --tls-server-name replaces the TLS server name.
 * The copy shares the cluster's strings.
 */
static struct kc_cluster cluster_over(const struct kc_cluster *c, const char *name,
				      const struct kubeconfig *kc,
				      const struct kubeconfig_opts *opts)
{
	struct kc_cluster m = c ? *c : (struct kc_cluster){ .name = (char *)name,
							    .file = kc->file };

	if (given(opts->server))
		m.server = (char *)opts->server;
	if (opts->insecure || given(opts->ca_file)) {
		m.insecure = opts->insecure;
		m.ca_file = (char *)opts->ca_file;
		m.ca_data = (struct blob){ 0 };
	}
	if (given(opts->tls_server_name) || given(opts->server))
		m.tls_server_name = (char *)opts->tls_server_name;
	m.disable_compression |= opts->disable_compression;
	return m;
}

/* The context's user under kubectl's flags (getAuthInfo's merge); shares its strings. */
static struct kc_user user_over(const struct kc_user *u, const char *name,
				const struct kubeconfig *kc, const struct kubeconfig_opts *opts)
{
	struct kc_user m = u ? *u : (struct kc_user){ .name = (char *)name, .file = kc->file };

	if (given(opts->token))
		m.token = (char *)opts->token;
	if (given(opts->username))
		m.username = (char *)opts->username;
	if (given(opts->password))
		m.password = (char *)opts->password;
	if (given(opts->cert_file))
		m.cert_file = (char *)opts->cert_file;
	if (given(opts->key_file))
		m.key_file = (char *)opts->key_file;
	return m;
}

static bool user_flags(const struct kubeconfig_opts *opts)
{
	return given(opts->token) || given(opts->username) || given(opts->password) ||
	       given(opts->cert_file) || given(opts->key_file);
}

/*
 * The context --context or current-context names; with neither, the
 * context of no name, as clientcmd looks up "", or with --server or
 * --cluster an empty one, as clientcmd needs none then.
 * NULL and err when it is not there.
 */
static const struct kc_context *context_of(const struct kubeconfig *kc,
					   const struct kubeconfig_opts *opts,
					   const char *names, struct errbuf *err)
{
	static const struct kc_context none = { .name = "" };
	const char *name = given(opts->context) ? opts->context : kc->current_context;
	const struct kc_context *ctx;

	/* no name is the name "": a context of no name is found by it */
	if (!name && (ctx = kc_find(kc, KC_CONTEXTS, "")))
		return ctx;
	if (!name && (given(opts->server) || given(opts->cluster)))
		return &none;
	if (!name) {
		if (!kc->lists[KC_CONTEXTS].nr)
			errbuf_set(err, "kubeconfig '%s' defines no context", kc->file);
		else
			errbuf_set(err, "kubeconfig '%s' has no current-context; choose one "
				   "with --context (%s)", kc->file, names);
		return NULL;
	}
	ctx = kc_find(kc, KC_CONTEXTS, name);
	if (!ctx && !kc->lists[KC_CONTEXTS].nr)
		errbuf_set(err, "context '%s' not found: kubeconfig '%s' defines no context",
			   name, kc->file);
	else if (!ctx)
		errbuf_set(err, "context '%s' not found in kubeconfig '%s' (contexts: %s)",
			   name, kc->file, names);
	return ctx;
}

/* The context's cluster (or --cluster's) into cfg, under --server and the like. */
static int context_cluster(const struct kubeconfig *kc, const struct kubeconfig_opts *opts,
			   const struct kc_context *ctx, struct rest_config *cfg,
			   struct errbuf *err)
{
	bool flag = given(opts->cluster);
	const char *name = flag ? opts->cluster : ctx->cluster;
	const struct kc_cluster *cluster = given(name) ? kc_find(kc, KC_CLUSTERS, name) : NULL;

	/* with --server, a cluster that is not there is only its flags */
	if (!given(name) && !given(opts->server)) {
		errbuf_set(err, "context '%s' names no cluster (kubeconfig '%s' line %d)",
			   ctx->name, ctx->file, ctx->line);
		return -1;
	}
	if (!cluster && given(name) && (flag || !given(opts->server))) {
		if (flag)
			errbuf_set(err, "cluster '%s' (--cluster) not found in kubeconfig '%s'",
				   name, kc->file);
		else
			errbuf_set(err, "cluster '%s' of context '%s' not found in kubeconfig '%s'",
				   name, ctx->name, kc->file);
		return -1;
	}
	struct kc_cluster merged = cluster_over(cluster, given(name) ? name : "", kc, opts);
	return cluster_into(&merged, cfg, err);
}

/*
 * The context's user (or --user's) into cfg, under --token and the like.
 * A user --user names must be there; one a context names need not be:
 * clientcmd's getAuthInfo() gives an empty user then, and the requests go
 * with the flags' credentials or none.  cfg->user_missing says so in the
 * errors that name the user.
 */
static int context_user(const struct kubeconfig *kc, const struct kubeconfig_opts *opts,
			const struct kc_context *ctx, struct rest_config *cfg,
			struct errbuf *err)
{
	bool flag = given(opts->user);
	const char *name = flag ? opts->user : ctx->user;
	const struct kc_user *user = given(name) ? kc_find(kc, KC_USERS, name) : NULL;

	if (given(name) && !user && flag) {
		errbuf_set(err, "user '%s' (--user) not found in kubeconfig '%s'", name,
			   kc->file);
		return -1;
	}
	cfg->user_missing = given(name) && !user;
	cfg->user = xstrdup(name ? name : "");
	if (!user && !user_flags(opts))
		return impersonation_into(NULL, opts, cfg, err);
	struct kc_user merged = user_over(user, cfg->user, kc, opts);
	return user_into(&merged, cfg, err) < 0 ? -1 : impersonation_into(&merged, opts, cfg, err);
}

int kubeconfig_rest_config(const struct kubeconfig *kc, const struct kubeconfig_opts *opts,
			   struct rest_config **out, struct errbuf *err)
{
	struct rest_config *cfg = rest_config_new();
	struct strbuf names = STRBUF_INIT;
	int ret = -1;

	*out = NULL;
	list_names(&names, kc);
	const struct kc_context *ctx = context_of(kc, opts, names.buf, err);
	if (!ctx || context_cluster(kc, opts, ctx, cfg, err) < 0 ||
	    context_user(kc, opts, ctx, cfg, err) < 0)
		goto cleanup;
	server_path(cfg);
	server_scheme(cfg);
	if (server_userinfo(cfg, err) < 0)
		goto cleanup;
	cfg->context = xstrdup(ctx->name);
	cfg->source = xstrdup(ctx->file ? ctx->file : kc->file);
	if (given(opts->namespace))
		cfg->namespace = xstrdup(opts->namespace);
	else
		cfg->namespace = xstrdup(given(ctx->namespace) ? ctx->namespace : "default");
	*out = cfg;
	cfg = NULL;
	ret = 0;
cleanup:
	strbuf_release(&names);
	rest_config_free(cfg);
	return ret;
}

int rest_config_load(const struct kubeconfig_opts *opts, struct rest_config **out,
		     struct errbuf *err)
{
	struct kubeconfig *kc;
	char *looked = NULL;
	int ret = -1;

	*out = NULL;
	if (kubeconfig_find(opts, &kc, &looked, err) < 0)
		return -1;

	/* kubectl turns to the service account only when no kubeconfig says anything. */
	bool empty = !kc || (!kc->lists[KC_CONTEXTS].nr && !kc->lists[KC_CLUSTERS].nr && !kc->lists[KC_USERS].nr &&
			     !kc->current_context);
	/* ... and no flag names what is not there, or a server. */
	bool choosing = given(opts->context) || given(opts->cluster) || given(opts->user) ||
			given(opts->server);
	/*
	 * kubectl takes the account with --as too, and drops it: a command
	 * asked to act as someone else must not act as the account instead.
	 */
	bool impersonating = (opts->as && *opts->as) || (opts->as_uid && *opts->as_uid) ||
			     (opts->as_groups && *opts->as_groups);
	bool incluster = incluster_possible();
	if (empty && !choosing && !impersonating && incluster) {
		ret = incluster_rest_config(opts, out, err);
		goto cleanup;
	}
	/* --server needs no file: an empty kubeconfig stands in, as in kubectl */
	if (!kc && given(opts->server) && !given(opts->context) && !given(opts->cluster) &&
	    !given(opts->user))
		kc = kubeconfig_parse("(no kubeconfig)", "", 0, err);
	if (!kc && incluster && choosing)
		errbuf_set(err, "no kubeconfig: %s; the in-cluster service account is not used "
			   "with --context, --cluster or --user (nor by kubectl)", looked);
	else if (!kc && incluster)
		errbuf_set(err, "no kubeconfig: %s; kinf does not impersonate as the in-cluster "
			   "service account, where kubectl drops --as and acts as the account "
			   "itself", looked);
	else if (!kc)
		errbuf_set(err, "no kubeconfig: %s, and kinf is not running in a cluster "
			   "(KUBERNETES_SERVICE_HOST is unset); use --kubeconfig or KUBECONFIG, "
			   "or --server", looked);
	if (kc)
		ret = kubeconfig_rest_config(kc, opts, out, err);
cleanup:
	free(looked);
	kubeconfig_free(kc);
	return ret;
}

int kubeconfig_contexts(const struct kubeconfig_opts *opts, char ***names, size_t *nr,
			char **current, struct errbuf *err)
{
	struct kubeconfig *kc;
	char *looked = NULL;

	*names = NULL;
	*nr = 0;
	*current = NULL;
	if (kubeconfig_find(opts, &kc, &looked, err) < 0)
		return -1;
	free(looked);
	if (!kc)
		return 0;
	*names = xcalloc(kc->lists[KC_CONTEXTS].nr + 1, sizeof(char *));
	for (size_t i = 0; i < kc->lists[KC_CONTEXTS].nr; i++)
		(*names)[i] = xstrdup(kc->lists[KC_CONTEXTS].v[i]->name);
	*nr = kc->lists[KC_CONTEXTS].nr;
	if (kc->current_context)
		*current = xstrdup(kc->current_context);
	kubeconfig_free(kc);
	return 0;
}

