/*
 * incluster.h — the configuration of a pod's service account, for a kinf
 * run inside the cluster (kubeconfig.c falls back to it, as client-go's
 * clientcmd does, when no kubeconfig file exists).
 */
#ifndef KINF_INCLUSTER_H
#define KINF_INCLUSTER_H

#include <stdbool.h>

#include "cluster/rest_config.h"

/*
 * In-cluster configuration, from the environment and the service account
 * directory.  -1 and err when KUBERNETES_SERVICE_HOST/_PORT are unset or
 * the token is unreadable. 
 */
bool incluster_possible(void);
int incluster_rest_config(const struct kubeconfig_opts *opts,
			  struct rest_config **out, struct errbuf *err);

#endif
