/*
 * get_watch.h — `kinf get RESOURCE -w`: what `kubectl get -w` prints,
 * from the requests kubectl makes (kubectl's get.go watch()).
 *
 * Not an informer: one LIST (or, for NAMEs, a GET each), its objects
 * printed (unless --watch-only), then one WATCH from the list's
 * resourceVersion ("0" after a GET, whose first event is the object
 * again and is not printed), each event printed as it comes.  Several
 * NAMEs are printed, then refused as kubectl's Result.Watch refuses
 * them ("you may only watch a single resource or type of resource at a
 * time"), with no WATCH.  No
 * relist, no retry of the watch, no bookmarks asked for: when the watch
 * ends (the server's timeout, a 410 as an ERROR event, which is printed
 * as kubectl prints a Status, or a cut connection) the command ends with
 * status 0, as kubectl's does.  Tables are asked for as kubectl asks
 * (Accept as=Table, includeObject=Object only with --sort-by), and print
 * through kubetable.h's stream; the other formats through format.h's
 * format_print_watch().
 *
 * Runs on the calling thread and blocks until the watch ends; SIGINT and
 * SIGTERM end the process with status 1, as they end kubectl.
 */
#ifndef KINF_GET_WATCH_H
#define KINF_GET_WATCH_H

#include <stdbool.h>

#include "output/format.h"
#include "output/kubetable.h"

struct api_resource;
struct cluster;
struct errbuf;
struct json_object;

struct get_watch_opts {
	struct format *fmt;		/* -o, parsed; its state changes */
	struct kubetable_opts table;	/* table and wide; sort_by sorts the list */
	const char *const *names;	/* objects of res, in order; nnames 0: the collection */
	size_t nnames;
	const char *label_selector;	/* NULL: none */
	const char *field_selector;	/* --field-selector, or NULL */
	long limit;			/* the LIST's page size: pager_opts' */
	bool watch_only;		/* the list (or object) not printed */
	bool events;			/* --output-watch-events */
	bool keep_managed_fields;
	bool show_kind;			/* tables name objects KIND/NAME */
	const char *name_prefix;	/* -o name's "pod", "deployment.apps" */
	/* -o's refusal, told once the list (or object) is got, as kubectl's; or NULL */
	const char *format_refused;
};

/*
 * Adds obj, a Table of one row (or an object: a server without Tables),
 * to *table (NULL: obj's, made a Table), as kubectl's tabwriter puts the
 * rows of several GETs under one header.  Takes obj.
 */
void get_table_add(struct json_object **table, struct json_object *obj);

/*
 * Lists (or gets) res in c's scope and watches it until the watch ends.
 * Returns the command's exit status: 0, or 1 after an error() on stderr.
 */
int get_watch(struct cluster *c, const struct api_resource *res,
	      const struct get_watch_opts *o);

/*
 * kubectl's GET of one object, res's name in the cluster's namespace, for
 * get and get -w: with table, as the Table of one row kubectl asks for
 * (holding the object with include_object), which a server without
 * Tables answers with the object itself.  *out: a new tree, read as
 * kobj_parse() reads it with flags.  -1 with err: the server's refusal,
 * or GET_NOT_FOUND (a 404) with err `pods "web" not found`, or another
 * answer apimachinery's IsNotFound takes (http_answer_is()).
 */
#define GET_NOT_FOUND (-2)
/* The apiserver's NotFound, as a lister's too: `deployments.apps "web" not found`. */
void get_not_found(const struct api_resource *res, const char *name, struct errbuf *err);
int get_object(struct cluster *c, const struct api_resource *res, const char *name,
	       bool table, bool include_object, unsigned flags, struct json_object **out,
	       struct errbuf *err);

#endif
