"""Realistic objects: generation at start-up, completion of partial objects
given to /create, and the changes a churn makes.

Pods are the bulk (up to 100k at start-up), so they come from a pre-rendered
template (%-formatting of the JSON text of make_pod() with placeholder values)
instead of building and serialising a dict each.  Everything else goes through
dicts and json.
"""

import json
import re
import time
import uuid

NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789"
IMAGES = ["nginx:1.25.3", "redis:7.2.4", "registry.k8s.io/pause:3.9",
          "ghcr.io/example/api:v2.14.0", "busybox:1.36", "postgres:16.1"]
APPS = ["web", "api", "worker", "cache", "db", "frontend", "backend", "queue"]


def ts(t=None):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() if t is None else t))


def new_uid(rng):
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def suffix(rng, n=5):
    return "".join(rng.choice(NAME_CHARS) for _ in range(n))


def hex_id(rng, bits=256):
    return "%0*x" % (bits // 4, rng.getrandbits(bits))


# ---------------------------------------------------------------- pods
def make_pod(p, pending=False):
    """p: dict of strings name gen ns uid rv ts app hash rsuid node hostip podip
    image cid vol start tier."""
    vol = "kube-api-access-" + p["vol"]
    md = {
        "name": p["name"], "namespace": p["ns"],
        "uid": p["uid"], "resourceVersion": p["rv"], "creationTimestamp": p["ts"],
        "labels": {"app": p["app"], "pod-template-hash": p["hash"], "tier": p["tier"]},
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                             "name": p["app"] + "-" + p["hash"], "uid": p["rsuid"],
                             "controller": True, "blockOwnerDeletion": True}],
        "managedFields": [
            {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1",
             "time": p["ts"], "fieldsType": "FieldsV1", "fieldsV1": {
                 "f:metadata": {"f:labels": {".": {}, "f:app": {}, "f:pod-template-hash": {}, "f:tier": {}},
                                "f:ownerReferences": {".": {}, 'k:{"uid":"%s"}' % p["rsuid"]: {}}},
                 "f:spec": {"f:containers": {'k:{"name":"app"}': {
                     ".": {}, "f:env": {".": {}, 'k:{"name":"LOG_LEVEL"}': {".": {}, "f:name": {}, "f:value": {}},
                                        'k:{"name":"POD_NAME"}': {".": {}, "f:name": {}, "f:valueFrom": {".": {}, "f:fieldRef": {}}}},
                     "f:image": {}, "f:imagePullPolicy": {}, "f:name": {},
                     "f:ports": {".": {}, 'k:{"containerPort":8080,"protocol":"TCP"}': {".": {}, "f:containerPort": {}, "f:name": {}, "f:protocol": {}}},
                     "f:resources": {".": {}, "f:limits": {".": {}, "f:cpu": {}, "f:memory": {}}, "f:requests": {".": {}, "f:cpu": {}, "f:memory": {}}},
                     "f:terminationMessagePath": {}, "f:terminationMessagePolicy": {}}},
                     "f:dnsPolicy": {}, "f:enableServiceLinks": {}, "f:restartPolicy": {}, "f:schedulerName": {},
                     "f:securityContext": {}, "f:terminationGracePeriodSeconds": {}}}},
            {"manager": "kubelet", "operation": "Update", "apiVersion": "v1", "time": p["start"],
             "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {
                 "f:conditions": {'k:{"type":"ContainersReady"}': {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}},
                                  'k:{"type":"Initialized"}': {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}},
                                  'k:{"type":"Ready"}': {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}}},
                 "f:containerStatuses": {}, "f:hostIP": {}, "f:hostIPs": {}, "f:phase": {}, "f:podIP": {},
                 "f:podIPs": {".": {}, 'k:{"ip":"%s"}' % p["podip"]: {".": {}, "f:ip": {}}}, "f:startTime": {}}},
             "subresource": "status"},
        ],
    }
    spec = {
        "volumes": [{"name": vol, "projected": {"sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}],
            "defaultMode": 420}}],
        "containers": [{
            "name": "app", "image": p["image"],
            "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
            "env": [{"name": "LOG_LEVEL", "value": "info"},
                    {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}],
            "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}},
            "volumeMounts": [{"name": vol, "readOnly": True, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}],
            "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
            "imagePullPolicy": "IfNotPresent"}],
        "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
        "serviceAccountName": "default", "serviceAccount": "default", "nodeName": p["node"],
        "securityContext": {}, "schedulerName": "default-scheduler",
        "tolerations": [
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
        "priority": 0, "enableServiceLinks": True, "preemptionPolicy": "PreemptLowerPriority",
    }
    if pending:
        status = {"phase": "Pending", "conditions": [
            {"type": "Initialized", "status": "True", "lastProbeTime": None, "lastTransitionTime": p["start"]},
            {"type": "Ready", "status": "False", "lastProbeTime": None, "lastTransitionTime": p["start"],
             "reason": "ContainersNotReady", "message": "containers with unready status: [app]"},
            {"type": "ContainersReady", "status": "False", "lastProbeTime": None, "lastTransitionTime": p["start"],
             "reason": "ContainersNotReady", "message": "containers with unready status: [app]"},
            {"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": p["ts"]}],
            "hostIP": p["hostip"], "hostIPs": [{"ip": p["hostip"]}], "startTime": p["start"],
            "containerStatuses": [{"name": "app", "state": {"waiting": {"reason": "ContainerCreating"}},
                                   "lastState": {}, "ready": False, "restartCount": 0, "image": p["image"],
                                   "imageID": "", "started": False}],
            "qosClass": "Burstable"}
    else:
        status = {"phase": "Running", "conditions": [
            {"type": "Initialized", "status": "True", "lastProbeTime": None, "lastTransitionTime": p["start"]},
            {"type": "Ready", "status": "True", "lastProbeTime": None, "lastTransitionTime": p["start"]},
            {"type": "ContainersReady", "status": "True", "lastProbeTime": None, "lastTransitionTime": p["start"]},
            {"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": p["ts"]}],
            "hostIP": p["hostip"], "hostIPs": [{"ip": p["hostip"]}], "podIP": p["podip"],
            "podIPs": [{"ip": p["podip"]}], "startTime": p["start"],
            "containerStatuses": [{"name": "app", "state": {"running": {"startedAt": p["start"]}},
                                   "lastState": {}, "ready": True, "restartCount": 0,
                                   "image": "docker.io/library/" + p["image"],
                                   "imageID": "docker.io/library/" + p["image"].split(":")[0] + "@sha256:" + p["cid"],
                                   "containerID": "containerd://" + p["cid"], "started": True}],
            "qosClass": "Burstable"}
    return {"metadata": md, "spec": spec, "status": status}


POD_FIELDS = ["name", "gen", "ns", "uid", "rv", "ts", "app", "hash", "rsuid", "node",
              "hostip", "podip", "image", "cid", "vol", "start", "tier"]


def _template(pending):
    d = make_pod({f: "@@%s@@" % f for f in POD_FIELDS}, pending)
    text = json.dumps(d, separators=(",", ":")).replace("%", "%%")
    return re.sub(r"@@(\w+)@@", r"%(\1)s", text)


POD_TEMPLATES = {False: _template(False), True: _template(True)}


def render_pod(p, pending=False):
    return (POD_TEMPLATES[pending] % p).encode()


def pod_record(p, pending=False):
    """(bytes, labels, fields) of the pod rendered from params p."""
    data = render_pod(p, pending)
    labels = {"app": p["app"], "pod-template-hash": p["hash"], "tier": p["tier"]}
    fields = {"metadata.name": p["name"], "metadata.namespace": p["ns"],
              "spec.nodeName": p["node"], "spec.restartPolicy": "Always",
              "spec.schedulerName": "default-scheduler", "spec.serviceAccountName": "default",
              "spec.hostNetwork": "false", "status.phase": "Pending" if pending else "Running",
              "status.podIP": "" if pending else p["podip"], "status.nominatedNodeName": ""}
    return data, labels, fields


class Cluster:
    """What generators need to know about the cluster: namespaces for
    workloads, nodes, and deployments (whose ReplicaSets own pods)."""

    def __init__(self, rng):
        self.rng = rng
        self.workload_ns = ["default"]
        self.nodes = []          # (name, ip)
        self.deploys = {}        # ns -> [(app, hash, rsuid)]
        self.pod_names = set()
        self.seq = 0

    def owner(self, ns):
        lst = self.deploys.get(ns)
        if not lst:
            # a ReplicaSet of a Deployment the simulator doesn't serve
            app = "app-" + ns
            lst = self.deploys.setdefault(ns, [(app, "5d%08x" % (hash(ns) & 0xffffffff), new_uid(self.rng))])
        return self.rng.choice(lst)

    def pod_params(self, ns, name=None, rv="0", created=None):
        rng = self.rng
        owner = None
        if name is not None:
            for cand in self.deploys.get(ns, ()):
                if name.startswith("%s-%s-" % (cand[0], cand[1])):
                    owner = cand
                    break
        app, h, rsuid = owner or self.owner(ns)
        if name is None:
            while True:
                name = "%s-%s-%s" % (app, h, suffix(rng))
                if (ns, name) not in self.pod_names:
                    break
        self.pod_names.add((ns, name))
        node, hostip = rng.choice(self.nodes) if self.nodes else ("node-1", "10.0.0.11")
        self.seq += 1
        n = self.seq
        created = created if created is not None else time.time()
        return {"name": name, "gen": "%s-%s-" % (app, h), "ns": ns, "uid": new_uid(rng), "rv": rv,
                "ts": ts(created), "app": app, "hash": h, "rsuid": rsuid, "node": node,
                "hostip": hostip, "podip": "10.%d.%d.%d" % (244 + (n >> 16) % 10, (n >> 8) & 255, n & 255),
                "image": IMAGES[hash(app) % len(IMAGES)], "cid": hex_id(rng), "vol": suffix(rng),
                # started 2 s after its creation, but not yet for a pod made now
                "start": ts(min(created + 2, time.time())),
                "tier": "frontend" if n % 3 else "backend"}


# ---------------------------------------------------------------- others
def managed(manager, t, fields, op="Update", sub=None):
    m = {"manager": manager, "operation": op, "apiVersion": "v1", "time": t,
         "fieldsType": "FieldsV1", "fieldsV1": fields}
    if sub:
        m["subresource"] = sub
    return m


def make_namespace(rng, name, created=None):
    t = ts(created)
    return {"metadata": {"name": name, "uid": new_uid(rng), "resourceVersion": "0", "creationTimestamp": t,
                         "labels": {"kubernetes.io/metadata.name": name},
                         "managedFields": [managed("kubectl-create", t, {"f:metadata": {"f:labels": {".": {}, "f:kubernetes.io/metadata.name": {}}}})]},
            "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}


def make_node(rng, name, ip, created=None):
    t = ts(created)
    conds = []
    for typ, st, reason, msg in [
            ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
            ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
            ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
            ("Ready", "True", "KubeletReady", "kubelet is posting ready status")]:
        conds.append({"type": typ, "status": st, "lastHeartbeatTime": t, "lastTransitionTime": t,
                      "reason": reason, "message": msg})
    return {"metadata": {"name": name, "uid": new_uid(rng), "resourceVersion": "0", "creationTimestamp": t,
                         "labels": {"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
                                    "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name,
                                    "kubernetes.io/os": "linux",
                                    "topology.kubernetes.io/zone": "zone-" + "abc"[hash(name) % 3]},
                         "annotations": {"node.alpha.kubernetes.io/ttl": "0",
                                         "volumes.kubernetes.io/controller-managed-attach-detach": "true"},
                         "managedFields": [managed("kubelet", t, {"f:status": {"f:conditions": {}}}, sub="status")]},
            "spec": {"podCIDR": "10.244.%d.0/24" % (int(ip.split(".")[-1]) % 256),
                     "podCIDRs": ["10.244.%d.0/24" % (int(ip.split(".")[-1]) % 256)],
                     "providerID": "kind://docker/kube-sim/" + name},
            "status": {"capacity": {"cpu": "8", "ephemeral-storage": "102626232Ki", "memory": "32863356Ki", "pods": "110"},
                       "allocatable": {"cpu": "8", "ephemeral-storage": "102626232Ki", "memory": "32863356Ki", "pods": "110"},
                       "conditions": conds,
                       "addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}],
                       "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
                       "nodeInfo": {"machineID": hex_id(rng, 128), "systemUUID": new_uid(rng), "bootID": new_uid(rng),
                                    "kernelVersion": "6.1.0-18-amd64", "osImage": "Debian GNU/Linux 12 (bookworm)",
                                    "containerRuntimeVersion": "containerd://1.7.13", "kubeletVersion": "v1.28.15",
                                    "kubeProxyVersion": "v1.28.15", "operatingSystem": "linux", "architecture": "amd64"}}}


def make_deployment(rng, ns, app, h, replicas, created=None):
    t = ts(created)
    labels = {"app": app}
    return {"metadata": {"name": app, "namespace": ns, "uid": new_uid(rng), "resourceVersion": "0",
                         "generation": 1, "creationTimestamp": t, "labels": labels,
                         "annotations": {"deployment.kubernetes.io/revision": "1"},
                         "managedFields": [managed("kubectl-client-side-apply", t, {"f:spec": {"f:replicas": {}, "f:template": {}}}),
                                           managed("kube-controller-manager", t, {"f:status": {"f:replicas": {}}}, sub="status")]},
            "spec": {"replicas": replicas, "selector": {"matchLabels": dict(labels)},
                     "template": {"metadata": {"creationTimestamp": None, "labels": dict(labels)},
                                  "spec": {"containers": [{"name": "app", "image": IMAGES[hash(app) % len(IMAGES)],
                                                           "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
                                                           "resources": {"limits": {"cpu": "500m", "memory": "256Mi"},
                                                                         "requests": {"cpu": "100m", "memory": "128Mi"}},
                                                           "terminationMessagePath": "/dev/termination-log",
                                                           "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"}],
                                           "restartPolicy": "Always", "terminationGracePeriodSeconds": 30,
                                           "dnsPolicy": "ClusterFirst", "securityContext": {}, "schedulerName": "default-scheduler"}},
                     "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
                     "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600},
            "status": {"observedGeneration": 1, "replicas": replicas, "updatedReplicas": replicas,
                       "readyReplicas": replicas, "availableReplicas": replicas,
                       "conditions": [{"type": "Available", "status": "True", "lastUpdateTime": t, "lastTransitionTime": t,
                                       "reason": "MinimumReplicasAvailable", "message": "Deployment has minimum availability."},
                                      {"type": "Progressing", "status": "True", "lastUpdateTime": t, "lastTransitionTime": t,
                                       "reason": "NewReplicaSetAvailable",
                                       "message": 'ReplicaSet "%s-%s" has successfully progressed.' % (app, h)}]}}


def make_configmap(rng, ns, name, data=None, created=None):
    t = ts(created)
    if data is None:
        data = {"app.properties": "mode=production\nreplicas=3\n", "LOG_LEVEL": "info"}
    return {"metadata": {"name": name, "namespace": ns, "uid": new_uid(rng), "resourceVersion": "0",
                         "creationTimestamp": t,
                         "managedFields": [managed("kubectl-create", t, {"f:data": {".": {}}})]},
            "data": data}


CA_PEM = ("-----BEGIN CERTIFICATE-----\nMIIBdzCCAR2gAwIBAgIBADAKBggqhkjOPQQDAjAjMSEwHwYDVQQDDBhrM3Mtc2Vy\n"
          "dmVyLWNhQDE3MDAwMDAwMDAwHhcNMjQwMTAxMDAwMDAwWhcNMzQwMTAxMDAwMDAw\n-----END CERTIFICATE-----\n")


def make_secret(rng, ns, name, created=None):
    t = ts(created)
    return {"metadata": {"name": name, "namespace": ns, "uid": new_uid(rng), "resourceVersion": "0",
                         "creationTimestamp": t,
                         "managedFields": [managed("kubectl-create", t, {"f:data": {".": {}}, "f:type": {}})]},
            "data": {"password": "czNjcjN0", "username": "YWRtaW4="}, "type": "Opaque"}


def make_event(rng, ns, pod, reason, msg, created=None):
    t = ts(created)
    name = "%s.%016x" % (pod["name"], rng.getrandbits(64))
    return {"metadata": {"name": name, "namespace": ns, "uid": new_uid(rng), "resourceVersion": "0",
                         "creationTimestamp": t,
                         "managedFields": [managed("kubelet", t, {"f:count": {}, "f:message": {}, "f:reason": {}})]},
            "involvedObject": {"kind": "Pod", "namespace": ns, "name": pod["name"], "uid": pod["uid"],
                               "apiVersion": "v1", "resourceVersion": pod.get("rv", ""),
                               "fieldPath": "spec.containers{app}"},
            "reason": reason, "message": msg,
            "source": {"component": "kubelet", "host": pod.get("node", "node-1")},
            "firstTimestamp": t, "lastTimestamp": t, "count": 1, "type": "Normal",
            "eventTime": None, "reportingComponent": "kubelet", "reportingInstance": pod.get("node", "node-1")}


def make_crontab(rng, ns, name, created=None):
    t = ts(created)
    return {"metadata": {"name": name, "namespace": ns, "uid": new_uid(rng), "resourceVersion": "0",
                         "creationTimestamp": t, "generation": 1,
                         "managedFields": [{"manager": "kubectl-create", "operation": "Update",
                                            "apiVersion": "stable.example.com/v1", "time": t,
                                            "fieldsType": "FieldsV1",
                                            "fieldsV1": {"f:spec": {".": {}, "f:cronSpec": {}, "f:image": {}}}}]},
            "spec": {"cronSpec": "* * * * */5", "image": "my-awesome-cron-image", "replicas": 1}}


def make_service(rng, ns, name, cluster_ip, port, created=None):
    """A core v1 Service (ClusterIP)."""
    t = ts(created)
    return {"metadata": {"name": name, "namespace": ns, "uid": new_uid(rng), "resourceVersion": "0",
                         "creationTimestamp": t,
                         "managedFields": [managed("kubectl-expose", t, {"f:spec": {"f:ports": {}}})]},
            "spec": {"clusterIP": cluster_ip, "clusterIPs": [cluster_ip], "internalTrafficPolicy": "Cluster",
                     "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
                     "ports": [{"port": port, "protocol": "TCP", "targetPort": port}],
                     "sessionAffinity": "None", "type": "ClusterIP"},
            "status": {"loadBalancer": {}}}


def make_knative_service(rng, ns, name, created=None):
    """A Knative Serving Service (serving.knative.dev/v1), ready at its first revision."""
    t = ts(created)
    rev = name + "-00001"
    return {"metadata": {"name": name, "namespace": ns, "uid": new_uid(rng), "resourceVersion": "0",
                         "creationTimestamp": t, "generation": 1},
            "spec": {"template": {"spec": {"containers": [{"image": "ghcr.io/knative/helloworld-go:latest"}]}},
                     "traffic": [{"latestRevision": True, "percent": 100}]},
            "status": {"url": "http://%s.%s.example.com" % (name, ns), "observedGeneration": 1,
                       "latestCreatedRevisionName": rev, "latestReadyRevisionName": rev,
                       "conditions": [{"type": "ConfigurationsReady", "status": "True", "lastTransitionTime": t},
                                      {"type": "Ready", "status": "True", "lastTransitionTime": t},
                                      {"type": "RoutesReady", "status": "True", "lastTransitionTime": t}]}}


def default_object(rtname, cluster, ns, name):
    """A complete object of kind rtname (an RType's key) to complete a partial one with."""
    rng = cluster.rng
    if rtname == "pods":
        p = cluster.pod_params(ns, name)
        return json.loads(render_pod(p))
    if rtname == "namespaces":
        return make_namespace(rng, name)
    if rtname == "nodes":
        return make_node(rng, name, "10.0.%d.%d" % (rng.randrange(1, 255), rng.randrange(1, 255)))
    if rtname == "deployments":
        return make_deployment(rng, ns, name, "%010x" % rng.getrandbits(40), 1)
    if rtname == "configmaps":
        return make_configmap(rng, ns, name)
    if rtname == "secrets":
        return make_secret(rng, ns, name)
    if rtname == "events":
        d = make_event(rng, ns, {"name": "pod", "uid": new_uid(rng)}, "Created", "Created container app")
        d["metadata"]["name"] = name
        return d
    if rtname == "crontabs":
        return make_crontab(rng, ns, name)
    if rtname == "services":
        return make_service(rng, ns, name, "10.96.%d.%d" % (rng.randrange(1, 255), rng.randrange(1, 255)), 80)
    if rtname == "services.serving.knative.dev":
        return make_knative_service(rng, ns, name)
    raise KeyError(rtname)


def churn_new(rtname, cluster):
    """(namespace, name) for a new object a churn adds."""
    rng = cluster.rng
    ns = rng.choice(cluster.workload_ns)
    if rtname == "pods":
        app, h, _ = cluster.owner(ns)
        while True:
            name = "%s-%s-%s" % (app, h, suffix(rng))
            if (ns, name) not in cluster.pod_names:
                return ns, name
    if rtname == "namespaces":
        return None, "churn-" + suffix(rng, 8)
    if rtname == "nodes":
        return None, "node-churn-" + suffix(rng, 6)
    return ns, "%s-%s" % (rtname.rstrip("s"), suffix(rng, 8))


class Eager:
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v

    def get(self):
        return self.v


SENT_ANNOTATION = "kube-sim.example.com/sent"


def stamp_sent(md):
    """--stamp-churn: the wall clock when the change is made, under the
    store's lock, just before its event goes to the watches; what a
    benchmark subtracts from the moment a watcher printed it."""
    md.setdefault("annotations", {})[SENT_ANNOTATION] = str(time.time_ns())


def set_ready(st, ready, t):
    """The Ready and ContainersReady conditions of status st, as the kubelet
    sets them: a transition's time only when the status changes."""
    want = "True" if ready else "False"
    for c in st.get("conditions", []):
        if c.get("type") not in ("Ready", "ContainersReady") or c.get("status") == want:
            continue
        c["status"] = want
        c["lastTransitionTime"] = t
        if ready:
            c.pop("reason", None)
            c.pop("message", None)
        else:
            c["reason"] = "ContainersNotReady"
            c["message"] = "containers with unready status: [app]"


def churn_update_pod(md, status, rng, n, stamp=False):
    """A pod's change: metadata md (a dict) and status (status.get() decodes
    it; untouched when not asked for, which is cheaper)."""
    if stamp:
        stamp_sent(md)
    t = ts()
    r = rng.random()
    if r < 0.3:
        labels = md.setdefault("labels", {})
        labels["churn"] = "v%d" % rng.randrange(4)
        if rng.random() < 0.3:
            labels["tier"] = "frontend" if labels.get("tier") != "frontend" else "backend"
        return
    if r < 0.55:
        md.setdefault("annotations", {})["kinf.example.com/tick"] = str(n)
        return
    st = status.get()
    cs = (st.get("containerStatuses") or [{}])[0]
    phase = st.get("phase")
    if phase in ("Succeeded", "Failed"):
        # a pod that ended changes no more but in its metadata
        md.setdefault("annotations", {})["kinf.example.com/tick"] = str(n)
        return
    if phase == "Pending":
        st["phase"] = "Running"
        cs["state"] = {"running": {"startedAt": t}}
        cs["ready"] = True
        cs["started"] = True
        set_ready(st, True, t)
    elif r < 0.8:
        before = (cs.get("state") or {}).get("running", {}).get("startedAt", t)
        cs["restartCount"] = cs.get("restartCount", 0) + 1
        cs["lastState"] = {"terminated": {"exitCode": 137, "reason": "OOMKilled", "startedAt": before, "finishedAt": t,
                                          "containerID": cs.get("containerID", "")}}
        cs["state"] = {"running": {"startedAt": t}}
    elif r < 0.95:
        cs["ready"] = not cs.get("ready", True)
        set_ready(st, cs["ready"], t)
    else:
        # a phase never goes back to Pending: the pod ends
        st["phase"] = rng.choice(["Succeeded", "Failed"])
        cs["state"] = {"terminated": {"exitCode": 0 if st["phase"] == "Succeeded" else 1,
                                      "reason": "Completed" if st["phase"] == "Succeeded" else "Error",
                                      "startedAt": (cs.get("state") or {}).get("running", {}).get("startedAt", t),
                                      "finishedAt": t}}
        cs["ready"] = False
        set_ready(st, False, t)
    if cs:
        st["containerStatuses"] = [cs]


def churn_update(rtname, d, rng, n, stamp=False):
    """Changes d in place the way a live cluster would."""
    md = d.setdefault("metadata", {})
    if stamp and rtname != "pods":
        stamp_sent(md)
    t = ts()
    r = rng.random()
    if rtname == "pods":
        churn_update_pod(md, Eager(d.setdefault("status", {})), rng, n, stamp)
    elif rtname == "deployments":
        sp = d.setdefault("spec", {})
        if r < 0.5:
            sp["replicas"] = max(0, sp.get("replicas", 1) + rng.choice([-1, 1]))
            md["generation"] = md.get("generation", 1) + 1
        st = d.setdefault("status", {})
        st["observedGeneration"] = md.get("generation", 1)
        for k in ("replicas", "updatedReplicas", "readyReplicas", "availableReplicas"):
            st[k] = sp.get("replicas", 1)
    elif rtname == "configmaps":
        d.setdefault("data", {})["generation"] = str(n)
    elif rtname == "secrets":
        d.setdefault("data", {})["token"] = "dG9rZW4t" + "%08x" % rng.getrandbits(32)
    elif rtname == "nodes":
        for c in d.get("status", {}).get("conditions", []):
            c["lastHeartbeatTime"] = t
        if r < 0.2:
            md.setdefault("labels", {})["churn"] = "v%d" % rng.randrange(4)
    elif rtname == "events":
        d["count"] = d.get("count", 1) + 1
        d["lastTimestamp"] = t
    elif rtname == "crontabs":
        d.setdefault("spec", {})["replicas"] = rng.randrange(1, 5)
    else:
        md.setdefault("labels", {})["churn"] = "v%d" % rng.randrange(4)
    if rtname not in ("pods", "nodes", "events") and r >= 0.5:
        md.setdefault("annotations", {})["kinf.example.com/tick"] = str(n)
