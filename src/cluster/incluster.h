/*
 * incluster.h — the configuration of a pod's service account, for a kinf
 * run inside the cluster (kubeconfig.c falls back to it, as client-go's
 * clientcmd does, when no kubeconfig file exists).
 */
#ifndef KINF_INCLUSTER_H
#define KINF_INCLUSTER_H

#include <stdbool.h>

#include "cluster/rest_config.h"

/* Whether KUBERNETES_SERVICE_HOST and _PORT are set, and the token is there. */
bool incluster_possible(void);
/*
 * In-cluster configuration, from the environment and the service account
 * directory, with opts' token, certificate authority and namespace over
 * it.  -1 and err when KUBERNETES_SERVICE_HOST/_PORT are unset or the
 * token is unreadable.
 */
int incluster_rest_config(const struct kubeconfig_opts *opts,
			  struct rest_config **out, struct errbuf *err);

#endif
