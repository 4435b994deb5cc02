/*
 * pager.h — one LIST of a collection, page after page, as client-go's
 * tools/pager makes it: `limit` and `continue`, the first page at the
 * resourceVersion asked for, and (when asked) one full LIST when a
 * continue token has expired.
 *
 * The items of a JSON list reach the caller one at a time as their text,
 * while the body streams in, so that a list of 100,000 objects is never
 * held as one document; a Table (as=Table) is read a page at a time.
 * The pager decides only what is generic to a LIST; what an answer means
 * (a 410 to relist, a 403 to give up) is the caller's to decide from
 * struct pager_result.
 *
 * Runs on the caller's thread and blocks in libcurl (and in the hooks);
 * *stream.stop ends it.  No state outlives pager_list() but the result.
 */
#ifndef KINF_PAGER_H
#define KINF_PAGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster/http.h"
#include "lib/json_stream.h"
#include "lib/util.h"

struct json_object;

/* The Accept header of kubectl's Tables, a LIST's or a WATCH's. */
#define PAGER_ACCEPT_TABLE "application/json;as=Table;v=v1;g=meta.k8s.io," \
			   "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

/* What the pages are asked as. */
enum pager_as {
	PAGER_ITEMS,	/* a plain JSON list, split into items as it streams */
	PAGER_TABLE,	/* kubectl's Table (meta.k8s.io v1, v1beta1), else JSON */
	/*
	 * As PAGER_ITEMS, but asked as a PartialObjectMetadataList (meta.k8s.io
	 * v1), else JSON: each item is then {"kind":"PartialObjectMetadata",
	 * "apiVersion":"meta.k8s.io/v1","metadata":{...}}, or the whole object
	 * from a server (an aggregated API) that cannot answer so.  Never what
	 * client-go's reflector asks: for kinf's own requests only.
	 */
	PAGER_METADATA,
};

struct pager_page {
	unsigned page;		/* requests made, from 1 (retries included) */
	size_t items;		/* items handed to hooks.item so far */
	const char *rv;		/* this page's metadata.resourceVersion, or "" */
	const char *cont;	/* its continue token; NULL on the last page */
	/*
	 * With opts.dynamic, a page without an items array: the document as
	 * read (a Status, another kind of object), borrowed for the call;
	 * else NULL.
	 */
	struct json_object *no_items;
	/*
	 * A PAGER_ITEMS or PAGER_METADATA page as read, "items":[] in place
	 * of the items handed to hooks.item: borrowed for the call (a hook
	 * may take a reference); NULL for a Table.
	 */
	struct json_object *head;
};

/*
 * The caller's side, every member optional but the one of its enum
 * pager_as.  Called on the caller's thread, in this order per request:
 * request, then item, then page or retry or restart.  A hook returning -1
 * ends the list as PAGER_REFUSED.
 */
struct pager_hooks {
	void *ctx;
	/* PAGER_ITEMS, PAGER_METADATA: one element of "items", as its JSON text. */
	json_piece_fn *item;
	/* PAGER_TABLE: one page as parsed; the pager drops its reference after. */
	int (*table)(void *ctx, struct json_object *page);
	/* A request is about to be made. */
	void (*request)(void *ctx, unsigned page);
	/* A page was read in full. */
	void (*page)(void *ctx, const struct pager_page *p);
	/*
	 * An answer http_rest_retriable() calls retriable, or no answer at
	 * all (http_no_answer_retriable(): resp->no_answer), fewer than
	 * HTTP_MAX_RETRIES times for this page: 1 to ask for the page again
	 * (after waiting as the hook sees fit), 0 to end with PAGER_STATUS
	 * (PAGER_FAILED when no answer came), -1 to end with PAGER_STOPPED.
	 * NULL: the answer is PAGER_STATUS (stream.retries lets libcurl's
	 * side retry instead).
	 */
	int (*retry)(void *ctx, const struct http_response *resp);
	/*
	 * With full_list_fallback: a continue token expired and the items
	 * handed out so far are void; one full LIST follows.
	 */
	void (*restart)(void *ctx);
	/* Every warn_ms while the list is not done: client-go's slow-list trace. */
	void (*slow)(void *ctx, int64_t elapsed_ms, size_t items, unsigned page);
};

struct pager_opts {
	const char *path;		/* the collection: api_resource_path() */
	enum pager_as as;
	/*
	 * Page size; 0: no limit, one request.  A negative one is sent as it
	 * is (kubectl's --chunk-size=-1), which the apiserver takes as none.
	 */
	long limit;
	/* The first page's (not a continue page's); NULL or "": none. */
	const char *rv;
	/* Added when not NULL (even when empty), as each caller always did. */
	const char *label_selector, *field_selector;
	/*
	 * includeObject=Object (Tables).  Without it the server sends each
	 * row's object as all its metadata, managedFields too, and a row
	 * keeps only what a printed row reads of it: metadata.namespace and
	 * metadata.labels.
	 */
	bool include_object;
	/*
	 * client-go's pager: a 410 whose Status reason is Expired, on a
	 * continue page, becomes one LIST at opts.rv without a limit.  Else
	 * that 410 is PAGER_STATUS.
	 */
	bool full_list_fallback;
	/*
	 * A 2xx page must be a list, as kubectl's builder decodes one: one
	 * without "items" is PAGER_NOT_A_LIST, one whose items are neither an
	 * array nor null (none) PAGER_ITEMS_NOT_ARRAY, one without metadata
	 * PAGER_NO_METADATA (an informer needs its RV), after its items and
	 * the page hook have been given it, as kubectl takes it: the last
	 * page.  Else such a page is the last one too.
	 */
	bool strict;
	/*
	 * Read a page as client-go's dynamic client reads a LIST
	 * (dynamicResourceClient.List: Raw, UnstructuredJSONScheme's Decode
	 * and Unstructured.ToList up to 1.31; from 1.32 Into an
	 * UnstructuredList, decodeToList; the same outcomes, each checked
	 * against the real 1.28 and 1.32): its kind must be a string,
	 * not empty (else PAGER_NO_KIND), its "items" an array or null (else
	 * PAGER_ITEMS_NOT_ARRAY); a document without an items array, a Status
	 * included, is a page of no items (pager_page.no_items).  The
	 * informer's reflector reads its lists so.
	 */
	bool dynamic;
	int64_t warn_ms;		/* hooks.slow's period; 0: none */
	/* The request's options; the pager sets accept and the tick. */
	struct stream_opts stream;
};

/* How the list ended. */
enum pager_end {
	PAGER_OK,
	PAGER_STOPPED,		/* *stream.stop */
	PAGER_REFUSED,		/* a hook said -1 */
	PAGER_TOO_LARGE_PIECE,	/* an item over JSON_STREAM_MAX_PIECE */
	PAGER_NOT_JSON,		/* result.begins describes the body */
	PAGER_MALFORMED,
	PAGER_FAILED,		/* the transfer failed: err says why */
	PAGER_STATUS,		/* a non-2xx answer: result.resp; err says it */
	PAGER_ENDED_EARLY,	/* the body ended before the list did */
	PAGER_NOT_A_LIST,	/* strict: result.rest holds the document */
	PAGER_NO_METADATA,	/* strict */
	PAGER_NO_KIND,		/* dynamic */
	PAGER_ITEMS_NOT_ARRAY,	/* dynamic */
};

/*
 * Owns resp (the answer of the last request) and the strings; release
 * with pager_result_release().
 */
struct pager_result {
	enum pager_end end;
	struct http_response resp;
	char *rv;		/* the list's RV: its first page's, NULL if none said */
	char *rest;		/* PAGER_NOT_A_LIST: the body without items */
	char begins[160];	/* PAGER_NOT_JSON: "it begins '<html>...'" */
	size_t items;
	unsigned pages;
};

/*
 * Lists opts->path.  err: for PAGER_FAILED, the transfer's; for
 * PAGER_STATUS, the answer in one line ("list " what ": ..."); else as
 * the transfer left it.  Returns 0 when res->end is PAGER_OK, else -1.
 */
int pager_list(struct kclient *client, const struct pager_opts *opts, const char *what,
	       const struct pager_hooks *hooks, struct pager_result *res, struct errbuf *err);
void pager_result_release(struct pager_result *res);

/*
 * kubectl's wording for the ends a body can have, "the server's list of
 * NAME is not JSON: it begins ...": PAGER_TOO_LARGE_PIECE, PAGER_NOT_JSON,
 * PAGER_MALFORMED and PAGER_ENDED_EARLY.  err is left alone for others.
 */
void pager_explain(const struct pager_result *res, const char *name, struct errbuf *err);

/*
 * A Status where a page was expected (a 2xx answer of a broken proxy or
 * aggregated server: "etcd is down" with a 200), which client-go's REST
 * client makes the request's error.  When doc is one, sets err to
 * "WHAT: MESSAGE (CODE, a Status in a 200 answer)" and returns true.
 */
bool pager_status_error(struct json_object *doc, const char *what, struct errbuf *err);

/*
 * Whether a 2xx page with no "items" is one object, as kubectl's builder
 * decodes it (UnstructuredJSONScheme): true when doc says its kind.
 * Else sets err to kubectl's "WHAT: Object 'Kind' is missing in '...'"
 * (the document's start).  A Status is pager_status_error()'s first.
 */
bool pager_lone_object(struct json_object *doc, const char *what, struct errbuf *err);

/*
 * The pages of a PAGER_TABLE list gathered (hooks.table =
 * pager_gather_table, hooks.ctx the struct): the first Table, each
 * later page's rows added to it; from a server without Tables, each
 * page's items, or the page itself when it is one object (see
 * pager_lone_object()).  A Status in a 2xx answer, or a page that is no
 * object, ends the list, said in status.
 * Zeroed, what set; pager_tables_release() puts what it holds.
 */
struct pager_tables {
	const char *what;		/* "list pods", for pager_status_error() */
	struct json_object *table;	/* the first Table, or NULL */
	struct json_object **objs;	/* a server without Tables: its items */
	size_t nr, alloc;
	struct errbuf status;		/* "" or the Status's words */
	bool not_found;			/* that Status is a NotFound (http_status_is()) */
};
int pager_gather_table(void *ctx, struct json_object *page);
void pager_tables_release(struct pager_tables *pt);

#endif
