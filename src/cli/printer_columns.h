/*
 * printer_columns.h — the columns of custom resources, read from their
 * CustomResourceDefinitions, so that get --from-cache, watch and the TUI
 * show what `kubectl get` shows for them (see columns_add_crd()).
 */
#ifndef KINF_PRINTER_COLUMNS_H
#define KINF_PRINTER_COLUMNS_H

#include <stddef.h>

struct cluster;
struct api_resource;

/*
 * For each resource that may be a custom one (its API group has a dot
 * and is not one of Kubernetes' own *.k8s.io), GETs
 * apiextensions.k8s.io/v1 customresourcedefinitions/PLURAL.GROUP and
 * registers its printer columns.  Quiet: a resource that is no CRD, or a
 * user who may not read CRDs, keeps NAME and AGE.  Call before starting
 * informers (columns_add_crd is not thread-safe).
 */
void printer_columns_load(struct cluster *c, const struct api_resource *const *res, size_t nr);

#endif
