/*
 * pod_scan.h — a pod's table cells (READY, STATUS, RESTARTS, AGE, IP,
 * NODE, NOMINATED NODE, READINESS GATES) read in one pass of json_scan
 * over its compact JSON text: no json-c tree, no allocation.
 *
 * The rules are columns.c's (kubectl's printPod), which stays the
 * reference: pod_scan gives the same cells as columns_cells() on the
 * tree of the same text, and says so by failing on what it does not
 * follow, so that its caller falls back to the tree.  What it does not
 * follow, all rare in what servers send: a string it reads that holds
 * escapes or is longer than its buffer, a number it reads that is not a
 * plain integer of at most eight digits, more than POD_SCAN_MAX elements
 * in an array it reads.
 *
 * Duplicate members read as json-c reads them: the last one wins, a
 * member an object repeats replacing all the first one held.  Elements
 * found by a member's value (a condition by its type, an init container
 * by its name) are the first that match, as columns.c's.
 *
 * No state: any thread.
 */
#ifndef KINF_POD_SCAN_H
#define KINF_POD_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct crd_columns;
struct strbuf;

/* The elements of one array pod_scan reads, at most. */
#define POD_SCAN_MAX 16

/*
 * A pod's summary: what its cells are made of, but the time they are
 * shown at (AGE and the restart's age move on).  Strings are copied
 * into it (bounded), so it holds nothing of the text.
 */
struct pod_summary_rec {
	int32_t ready, total, restarts;
	int32_t gates, gates_ok;	/* spec.readinessGates; those True */
	bool created_ok;
	int64_t created_ms;		/* metadata.creationTimestamp */
	int64_t last_restart_ms;	/* 0: unknown */
	char status[136];
	char ip[64];
	char node[256];
	char nominated[256];
};

/*
 * Reads the pod of text[0..len) into rec.  The text must be valid JSON,
 * as a kobj's is: the members no cell reads are skipped, not validated.  0, or -1 when the text holds what this scanner leaves to the
 * tree (see above): rec is then undefined.
 */
int pod_scan(const char *text, size_t len, struct pod_summary_rec *rec);

/*
 * As columns_cells(), from an object's compact JSON text (a kobj's,
 * text[0..len)) without a json-c tree, for the kinds whose cells one
 * scan gives: the core group's pods, with columns.c's columns.  Returns
 * 0, or -1 (out untouched) for any other kind (a custom resource of kind
 * Pod too) or a pod pod_scan() leaves to the tree: the caller then calls
 * columns_cells() with the tree.
 */
int pod_scan_live_cells(const struct crd_columns *crds, const char *group, const char *kind,
			const char *const *headers, const char *text, size_t len,
			int64_t now_ms, struct strbuf *out);

#endif
