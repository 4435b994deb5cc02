/*
 * predicate.h — controller-runtime's event filters, for the simulated
 * controller: which Update events reach the handler.
 *
 * Four predicates, each with its own rule for an Update (Create, Delete
 * and Generic always pass: predicate.Funcs answers true when a function
 * is not set):
 *   generation        GenerationChangedPredicate: metadata.generation
 *                     differs.  An object without one reads 0, so on a
 *                     kind that never sets it (a ConfigMap, a CR without
 *                     the status subresource's bump) every update is
 *                     dropped.
 *   resource-version  ResourceVersionChangedPredicate: the RVs differ
 *                     (drops a resync's, and a relist's unchanged, update)
 *   labels            LabelChangedPredicate: the label maps differ
 *   annotations       AnnotationChangedPredicate: the annotation maps
 *                     differ
 * Maps compare as Go's maps.Equal does (v0.18 and later): the order of
 * keys does not matter, and an absent map equals an empty one ({}); with
 * pred_meta.deep_equal as reflect.DeepEqual does (v0.15 to v0.17), where
 * they differ.  Each drops an
 * Update that lacks its old or its new object (never the case in kinf:
 * the informer always hands both).
 *
 * A spec is a comma list of terms, each term one predicate or several
 * joined by '|': "generation,labels|annotations" keeps an update only if
 * the generation changed AND (the labels OR the annotations did): the
 * terms are ANDed as the builder's WithPredicates ANDs them, '|' is
 * predicate.Or.
 *
 * Follows controller-runtime v0.24 (and v0.17) pkg/predicate/predicate.go:
 * ResourceVersionChangedPredicate.Update, GenerationChangedPredicate.Update,
 * AnnotationChangedPredicate.Update, LabelChangedPredicate.Update, And, Or.
 *
 * Single-threaded: no state beyond what the caller holds.
 */
#ifndef KINF_PREDICATE_H
#define KINF_PREDICATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

struct kobj;
struct strbuf;

enum predicate_kind {
	PRED_GENERATION,
	PRED_RESOURCE_VERSION,
	PRED_LABELS,
	PRED_ANNOTATIONS,
	PRED__COUNT
};
const char *predicate_name(enum predicate_kind kind);

#define PREDICATE_TERMS_MAX 8
/* terms[i]: a mask of 1 << predicate_kind, ORed; the terms ANDed. */
struct predicates {
	unsigned terms[PREDICATE_TERMS_MAX];
	size_t nr;
};

/* Adds the spec's terms to p (which may hold some); -1 and err if bad. */
int predicates_parse(struct predicates *p, const char *spec, struct errbuf *err);
/* "generation", "labels|annotations": the term as it was written. */
void predicates_term_name(const struct predicates *p, size_t term, struct strbuf *sb);
/* Which predicates any term names: those whose fields need reading. */
unsigned predicates_mask(const struct predicates *p);

/*
 * What the predicates read of an object, extracted once.  labels and
 * annotations: "key\0value\0" pairs sorted by key, then a '\0'; NULL
 * when the object has no such map.
 */
struct pred_meta {
	int64_t generation;
	const char *rv;		/* borrowed from the kobj */
	char *labels;
	char *annotations;
	size_t labels_len, annotations_len;
	bool deep_equal;	/* set by the caller: absent and {} differ */
};
/* Reads only what mask (predicates_mask) needs; NULL obj: none of it. */
void pred_meta_init(struct pred_meta *m, const struct kobj *obj, unsigned mask);
void pred_meta_release(struct pred_meta *m);

/*
 * The first term that drops the update, or -1 when it passes them all;
 * old or new_ NULL: the object is missing.
 */
int predicates_update(const struct predicates *p, const struct pred_meta *old,
		      const struct pred_meta *new_);

#endif
