/*
 * store_mem.c — what the informer's cache costs per object: makes N
 * realistic pods (~3.5 KB of compact JSON each once managedFields is
 * dropped), feeds them through a DeltaFIFO into the Indexer as an informer
 * would (Replace, then Pop into the store), and prints the process's RSS
 * against the JSON bytes held.  The aim: total RSS ≤ 1.5 × those bytes.
 *
 *   make && cc -O2 -D_GNU_SOURCE -Isrc $(pkg-config --cflags json-c) \
 *      -pthread -o build/store_mem tests/bench/store_mem.c build/default/libkinf.a \
 *      $(pkg-config --libs json-c libzstd) && build/store_mem [N] [--direct]
 *
 * --direct skips the fifo and adds straight to the store.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "informer/fifo.h"
#include "informer/store.h"
#include "lib/strbuf.h"

/* A Deployment's pod as a 1.30 apiserver returns it, managedFields and all. */
static void make_pod(struct strbuf *sb, int i)
{
	int rs = i / 10, node = i % 500;

	strbuf_reset(sb);
	strbuf_addf(sb,
"{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"web-%d-7d9c5b8f4-x%05d\","
"\"generateName\":\"web-%d-7d9c5b8f4-\",\"namespace\":\"team-%d\","
"\"uid\":\"6f1c%04x-%04x-4c2e-9b1a-%012d\",\"resourceVersion\":\"%d\","
"\"creationTimestamp\":\"2024-05-01T10:00:00Z\","
"\"labels\":{\"app\":\"web-%d\",\"pod-template-hash\":\"7d9c5b8f4\",\"tier\":\"frontend\",\"version\":\"v%d\"},"
"\"annotations\":{\"kubectl.kubernetes.io/restartedAt\":\"2024-05-01T09:59:00Z\","
"\"prometheus.io/scrape\":\"true\",\"prometheus.io/port\":\"9090\"},"
"\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"web-%d-7d9c5b8f4\","
"\"uid\":\"a1b2%04x-0000-4000-8000-%012d\",\"controller\":true,\"blockOwnerDeletion\":true}],"
"\"managedFields\":[{\"manager\":\"kube-controller-manager\",\"operation\":\"Update\",\"apiVersion\":\"v1\","
"\"time\":\"2024-05-01T10:00:00Z\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":{\"f:generateName\":{},"
"\"f:labels\":{\".\":{},\"f:app\":{},\"f:pod-template-hash\":{},\"f:tier\":{}},\"f:ownerReferences\":{\".\":{},"
"\"k:{\\\"uid\\\":\\\"a1b2\\\"}\":{}}},\"f:spec\":{\"f:containers\":{\"k:{\\\"name\\\":\\\"web\\\"}\":{\".\":{},"
"\"f:image\":{},\"f:imagePullPolicy\":{},\"f:name\":{},\"f:ports\":{},\"f:resources\":{}}}}}},"
"{\"manager\":\"kubelet\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"time\":\"2024-05-01T10:00:05Z\","
"\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:status\":{\"f:conditions\":{},\"f:containerStatuses\":{},"
"\"f:hostIP\":{},\"f:phase\":{},\"f:podIP\":{},\"f:podIPs\":{},\"f:startTime\":{}}},\"subresource\":\"status\"}]},"
"\"spec\":{\"volumes\":[{\"name\":\"config\",\"configMap\":{\"name\":\"web-%d-config\",\"defaultMode\":420}},"
"{\"name\":\"kube-api-access-%05d\",\"projected\":{\"sources\":[{\"serviceAccountToken\":{\"expirationSeconds\":3607,"
"\"path\":\"token\"}},{\"configMap\":{\"name\":\"kube-root-ca.crt\",\"items\":[{\"key\":\"ca.crt\",\"path\":\"ca.crt\"}]}},"
"{\"downwardAPI\":{\"items\":[{\"path\":\"namespace\",\"fieldRef\":{\"apiVersion\":\"v1\",\"fieldPath\":\"metadata.namespace\"}}]}}],"
"\"defaultMode\":420}}],"
"\"containers\":[{\"name\":\"web\",\"image\":\"registry.example.com/team/web:1.%d.3\",\"ports\":[{\"name\":\"http\","
"\"containerPort\":8080,\"protocol\":\"TCP\"},{\"name\":\"metrics\",\"containerPort\":9090,\"protocol\":\"TCP\"}],"
"\"env\":[{\"name\":\"LOG_LEVEL\",\"value\":\"info\"},{\"name\":\"POD_NAME\",\"valueFrom\":{\"fieldRef\":"
"{\"apiVersion\":\"v1\",\"fieldPath\":\"metadata.name\"}}},{\"name\":\"POD_IP\",\"valueFrom\":{\"fieldRef\":"
"{\"apiVersion\":\"v1\",\"fieldPath\":\"status.podIP\"}}},{\"name\":\"DB_HOST\",\"value\":\"db.team-%d.svc.cluster.local\"}],"
"\"resources\":{\"limits\":{\"cpu\":\"500m\",\"memory\":\"512Mi\"},\"requests\":{\"cpu\":\"100m\",\"memory\":\"128Mi\"}},"
"\"volumeMounts\":[{\"name\":\"config\",\"readOnly\":true,\"mountPath\":\"/etc/web\"},{\"name\":\"kube-api-access-%05d\","
"\"readOnly\":true,\"mountPath\":\"/var/run/secrets/kubernetes.io/serviceaccount\"}],"
"\"livenessProbe\":{\"httpGet\":{\"path\":\"/healthz\",\"port\":8080,\"scheme\":\"HTTP\"},\"timeoutSeconds\":1,"
"\"periodSeconds\":10,\"successThreshold\":1,\"failureThreshold\":3},"
"\"readinessProbe\":{\"httpGet\":{\"path\":\"/ready\",\"port\":8080,\"scheme\":\"HTTP\"},\"timeoutSeconds\":1,"
"\"periodSeconds\":5,\"successThreshold\":1,\"failureThreshold\":3},"
"\"terminationMessagePath\":\"/dev/termination-log\",\"terminationMessagePolicy\":\"File\","
"\"imagePullPolicy\":\"IfNotPresent\",\"securityContext\":{\"runAsNonRoot\":true,\"allowPrivilegeEscalation\":false}}],"
"\"restartPolicy\":\"Always\",\"terminationGracePeriodSeconds\":30,\"dnsPolicy\":\"ClusterFirst\","
"\"serviceAccountName\":\"default\",\"serviceAccount\":\"default\",\"nodeName\":\"worker-%03d\","
"\"securityContext\":{\"fsGroup\":2000},\"schedulerName\":\"default-scheduler\","
"\"tolerations\":[{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\",\"effect\":\"NoExecute\","
"\"tolerationSeconds\":300},{\"key\":\"node.kubernetes.io/unreachable\",\"operator\":\"Exists\","
"\"effect\":\"NoExecute\",\"tolerationSeconds\":300}],\"priority\":0,\"enableServiceLinks\":true,"
"\"preemptionPolicy\":\"PreemptLowerPriority\"},"
"\"status\":{\"phase\":\"Running\",\"conditions\":["
"{\"type\":\"PodReadyToStartContainers\",\"status\":\"True\",\"lastProbeTime\":null,\"lastTransitionTime\":\"2024-05-01T10:00:03Z\"},"
"{\"type\":\"Initialized\",\"status\":\"True\",\"lastProbeTime\":null,\"lastTransitionTime\":\"2024-05-01T10:00:00Z\"},"
"{\"type\":\"Ready\",\"status\":\"True\",\"lastProbeTime\":null,\"lastTransitionTime\":\"2024-05-01T10:00:05Z\"},"
"{\"type\":\"ContainersReady\",\"status\":\"True\",\"lastProbeTime\":null,\"lastTransitionTime\":\"2024-05-01T10:00:05Z\"},"
"{\"type\":\"PodScheduled\",\"status\":\"True\",\"lastProbeTime\":null,\"lastTransitionTime\":\"2024-05-01T10:00:00Z\"}],"
"\"hostIP\":\"10.0.%d.%d\",\"hostIPs\":[{\"ip\":\"10.0.%d.%d\"}],\"podIP\":\"10.244.%d.%d\",\"podIPs\":[{\"ip\":\"10.244.%d.%d\"}],"
"\"startTime\":\"2024-05-01T10:00:00Z\",\"containerStatuses\":[{\"name\":\"web\",\"state\":{\"running\":"
"{\"startedAt\":\"2024-05-01T10:00:04Z\"}},\"lastState\":{},\"ready\":true,\"restartCount\":0,"
"\"image\":\"registry.example.com/team/web:1.%d.3\",\"imageID\":\"registry.example.com/team/web@sha256:"
"4b1f3e0c9d8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a%04x\",\"containerID\":\"containerd://"
"9f8e7d6c5b4a39281706f5e4d3c2b1a0%032d\",\"started\":true}],\"qosClass\":\"Burstable\"}}",
		rs, i, rs, rs % 50, i & 0xffff, (i >> 16) & 0xffff, i, 1000000 + i,
		rs, rs % 3, rs, rs & 0xffff, rs, rs, i, rs % 10, rs % 50, i,
		node, node / 250, node % 250, node / 250, node % 250,
		(i / 250) % 256, i % 250, (i / 250) % 256, i % 250,
		rs % 10, i & 0xffff, i);
}

static long rss_kb(const char *field)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, strlen(field)))
			kb = atol(line + strlen(field) + 1);
	if (f)
		fclose(f);
	return kb;
}

static void add_to_store(void *ctx, struct deltas *d)
{
	for (size_t i = 0; i < d->nr; i++)
		store_add(ctx, d->v[i].obj);
}

int main(int argc, char **argv)
{
	int n = argc > 1 && argv[1][0] != '-' ? atoi(argv[1]) : 100000;
	bool direct = argc > 1 && !strcmp(argv[argc - 1], "--direct");
	struct strbuf sb = STRBUF_INIT;
	struct store *store = store_new();
	struct fifo *fifo = fifo_new(FIFO_DELTA, store);
	struct kobj **items = xmalloc(n * sizeof(*items));
	size_t wire = 0, held;
	long before = rss_kb("VmRSS:"), after;

	for (int i = 0; i < n; i++) {
		struct errbuf err;

		make_pod(&sb, i);
		wire += sb.len;
		items[i] = kobj_from_json(sb.buf, sb.len, 0, &err);
		if (!items[i])
			die("pod %d: %s", i, err.msg);
	}
	strbuf_release(&sb);
	if (direct) {
		for (int i = 0; i < n; i++)
			store_add(store, items[i]);
	} else {
		fifo_replace(fifo, items, n, "", 0, NULL);
	}
	for (int i = 0; i < n; i++)
		kobj_unref(items[i]);
	free(items);
	while (!direct && fifo_len(fifo))
		fifo_pop(fifo, add_to_store, store);

	after = rss_kb("VmRSS:");
	held = store_json_bytes(store);
	printf("objects            %zu\n", store_len(store));
	printf("json on the wire   %.1f MB (%.0f B/object, with managedFields)\n",
	       wire / 1e6, (double)wire / n);
	printf("json held          %.1f MB (%.0f B/object)\n", held / 1e6,
	       (double)held / n);
	printf("rss before / after %.1f / %.1f MB (peak %.1f MB)\n",
	       before / 1024.0, after / 1024.0, rss_kb("VmHWM:") / 1024.0);
	printf("heap in use        %.1f MB (%.0f B/object beyond the json)\n",
	       mallinfo2().uordblks / 1e6,
	       ((double)mallinfo2().uordblks - held) / n);
	printf("overhead           %.0f B/object beyond the json held\n",
	       ((after - before) * 1024.0 - held) / n);
	printf("rss / json held    %.2f (total), %.2f (growth)\n",
	       after * 1024.0 / held, (after - before) * 1024.0 / held);
	fifo_free(fifo);
	store_free(store);
	return after * 1024.0 <= 1.5 * held ? 0 : 1;
}
