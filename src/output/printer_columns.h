/*
 * printer_columns.h — the columns of custom resources, read from their
 * CustomResourceDefinitions, so that get, watch and the TUI show what
 * `kubectl get` shows for them (see struct crd_columns in crd_columns.h).
 */
#ifndef KINF_PRINTER_COLUMNS_H
#define KINF_PRINTER_COLUMNS_H

#include <stddef.h>

struct cluster;
struct api_resource;
struct crd_columns;

/*
 * For each resource that may be a custom one (its API group has a dot
 * and is not one of Kubernetes' own *.k8s.io) and whose group and kind
 * crds does not know yet, GETs apiextensions.k8s.io/v1
 * customresourcedefinitions/PLURAL.GROUP and teaches crds its printer
 * columns.  Quiet: a resource that is no CRD, or a user who may not read
 * CRDs, keeps NAME and AGE.  Blocks for one request a resource; may run
 * while other threads print with crds.
 */
void printer_columns_load(struct crd_columns *crds, struct cluster *c,
			  const struct api_resource *const *res, size_t nr);

#endif
