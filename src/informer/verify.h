/*
 * verify.h — is an informer's cache right?  The pure comparison behind
 * `kinf verify` and `kinf watch --verify-every`: the cache's keys and
 * resourceVersions against a LIST from the server, in, a report out.  No
 * I/O, no locks, no informer: the caller snapshots both sides.
 *
 * It follows client-go's data consistency detector
 * (k8s.io/client-go/util/consistencydetector, checkDataConsistency), which
 * compares what an informer was handed with a LIST from the server, both
 * sorted by key.  client-go can LIST at exactly the informer's RV
 * (resourceVersionMatch=Exact) because it checks once, right after the
 * sync; a live informer keeps moving, so kinf compares against a quorum
 * LIST at some RV L and excuses what the cache saw *after* L:
 *
 *   server has key at S, cache has it at C:
 *       C == S                       equal
 *       C > S (both numbers)         the cache is ahead: not stale
 *       otherwise                    stale (cache C -> server S)
 *   server has key at S, cache lacks it:
 *       the informer saw it deleted at D > S (numbers)   ahead
 *       otherwise                                        missing
 *   cache has key at C, the server's list lacks it:
 *       C > L (numbers)              created or changed after L: ahead
 *       otherwise                    extra
 *
 * resourceVersions are opaque to Kubernetes clients, but every apiserver
 * backed by etcd hands out decimal integers; when either RV is no number
 * nothing is excused, and only equality counts.
 *
 * Ownership: verify_compare() borrows its inputs; the report owns copies
 * of every string it holds, freed by verify_report_release().
 */
#ifndef KINF_VERIFY_H
#define KINF_VERIFY_H

#include <stdbool.h>
#include <stddef.h>

/* One key as one side knows it. */
struct verify_entry {
	const char *key;	/* "namespace/name", or "name" */
	const char *rv;
	/*
	 * Cache side only: the key is not cached because the informer saw it
	 * deleted, at rv (the DELETED event's resourceVersion).
	 */
	bool gone;
};

/* One divergent key. */
struct verify_diff {
	char *key;
	char *cache_rv;		/* NULL when missing */
	char *server_rv;	/* NULL when extra */
};

struct verify_report {
	size_t cache_count;	/* cached objects (gone entries not counted) */
	size_t server_count;
	char *list_rv;		/* L, the server list's resourceVersion */
	struct verify_diff *missing, *extra, *stale;	/* sorted by key */
	size_t nmissing, nextra, nstale;
	size_t ahead;		/* keys excused because the cache was newer */
	/* Filled by the caller: the informer's RV, and whether it reached L. */
	char *informer_rv;
	bool caught_up;
	/*
	 * Of the divergent keys, those lost, not lagging: missing or stale
	 * ones whose server resourceVersion the informer has passed (it
	 * will never bring them), and extra ones once it caught up to L.
	 */
	size_t nlost;
};

/*
 * Numeric order of two resourceVersions: -1, 0 or 1 in *cmp and returns
 * 0; returns -1 when either is not a decimal number (any length).
 */
int verify_rv_compare(const char *a, const char *b, int *cmp);

/* Sorts entries by key (strcmp), as verify_compare() wants them. */
void verify_sort(struct verify_entry *v, size_t nr);

/*
 * Compares cache[] with server[], both sorted by key with each key once,
 * per the rules above; list_rv is L.  Fills *out (which it zeroes first).
 */
void verify_compare(const struct verify_entry *cache, size_t ncache,
		    const struct verify_entry *server, size_t nserver,
		    const char *list_rv, struct verify_report *out);

static inline bool verify_equal(const struct verify_report *r)
{
	return !r->nmissing && !r->nextra && !r->nstale;
}

void verify_report_release(struct verify_report *r);

struct errbuf;

/*
 * The server's side of one key: an item of the list (its JSON text,
 * borrowed) as "key\0rv" in one allocation the caller frees, the rv after
 * the key's NUL.  Keyed as the informer keys its objects (informer/kobj.h,
 * KOBJ_ALLOW_UNNAMED): "namespace/name", "name", "namespace/" or "" with
 * no name; the rv is "" when metadata.resourceVersion is missing or no
 * string.  Strings read as the informer reads them: escapes decoded,
 * bytes that are not UTF-8 as U+FFFD.
 *
 * One pass of lib/json_scan over the text that validates all of it as
 * kobj_from_list_item() does (the same errors, at byte offsets of the
 * text as sent, before any U+FFFD) but keeps nothing but those three
 * strings: a quorum LIST of 100,000 pods costs a scan, not 100,000
 * objects.  NULL with err when the text is not one JSON object, or a
 * name or namespace holds a NUL.  Thread-safe.
 */
char *verify_item_key_rv(const char *text, size_t len, struct errbuf *err);

#endif
