"""The resource kinds the simulator serves, with what discovery says about them.

An RType knows how a stored object is framed on the wire: stored bytes of a
typed object carry no kind/apiVersion (list items don't), the full form used in
watch events and GETs prepends them.  Custom resources are unstructured on a
real server: their keys are sorted and list items keep apiVersion/kind.
"""

import json

ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch",
             "update", "watch"]
CLUSTER_VERBS = ["create", "delete", "get", "list", "patch", "update", "watch"]


class RType:
    def __init__(self, name, singular, kind, group, version, namespaced,
                 short=(), categories=(), fields=(), zero=b"",
                 unstructured=False, verbs=ALL_VERBS, hash_="", key=None):
        self.name = name
        # what the store, the control interface and the logs know it by: the
        # plural, unless another group has a resource of the same plural
        self.key = key or name
        self.singular = singular
        self.kind = kind
        self.group = group
        self.version = version
        self.namespaced = namespaced
        self.short = list(short)
        self.categories = list(categories)
        # field selector labels this kind supports besides metadata.name/namespace
        self.fields = ["metadata.name"] + (["metadata.namespace"] if namespaced else []) + list(fields)
        self.unstructured = unstructured
        self.verbs = list(verbs)
        self.hash = hash_
        self.api_version = (group + "/" + version) if group else version
        self.list_kind = kind + "List"
        self.prefix = ('{"kind":"%s","apiVersion":"%s",' % (kind, self.api_version)).encode()
        self.zero = zero  # bookmark body after metadata, e.g. b',"spec":{},"status":{}'
        self.gr = name + ("." + group if group else "")   # "deployments.apps"

    # ---- encoding -------------------------------------------------------
    def encode(self, d):
        """Stored bytes for object dict d (d must not carry kind/apiVersion
        unless unstructured)."""
        if self.unstructured:
            d["apiVersion"] = self.api_version
            d["kind"] = self.kind
            return json.dumps(d, separators=(",", ":"), sort_keys=True).encode()
        d.pop("kind", None)
        d.pop("apiVersion", None)
        return json.dumps(d, separators=(",", ":")).encode()

    def full_parts(self, data):
        """Wire parts of the object with kind/apiVersion (for watch and GET)."""
        if self.unstructured:
            return (data,)
        return (self.prefix, memoryview(data)[1:])

    def full(self, data):
        return b"".join(self.full_parts(data))

    def bookmark(self, rv, initial_end=False):
        ann = b',"annotations":{"k8s.io/initial-events-end":"true"}' if initial_end else b""
        if self.unstructured:
            return (b'{"apiVersion":"%s","kind":"%s","metadata":{%s"resourceVersion":"%d"}}'
                    % (self.api_version.encode(), self.kind.encode(),
                       ann[1:] + b"," if ann else b"", rv))
        return (self.prefix + b'"metadata":{"resourceVersion":"%d","creationTimestamp":null%s}%s}'
                % (rv, ann, self.zero))

    def labels_of(self, d):
        return (d.get("metadata") or {}).get("labels") or {}

    def fields_of(self, d):
        out = {}
        for f in self.fields:
            v = d
            for part in f.split("."):
                v = v.get(part) if isinstance(v, dict) else None
                if v is None:
                    break
            if v is None:
                v = "false" if f in ("spec.unschedulable", "spec.hostNetwork") else ""
            elif v is True:
                v = "true"
            elif v is False:
                v = "false"
            elif not isinstance(v, str):
                v = str(v)
            out[f] = v
        return out

    def discovery(self):
        r = {"name": self.name, "singularName": self.singular,
             "namespaced": self.namespaced, "kind": self.kind,
             "verbs": self.verbs}
        if self.short:
            r["shortNames"] = self.short
        if self.categories:
            r["categories"] = self.categories
        if self.hash:
            r["storageVersionHash"] = self.hash
        return r


NODE_ZERO = (b',"spec":{},"status":{"daemonEndpoints":{"kubeletEndpoint":{"Port":0}},'
             b'"nodeInfo":{"machineID":"","systemUUID":"","bootID":"","kernelVersion":"",'
             b'"osImage":"","containerRuntimeVersion":"","kubeletVersion":"",'
             b'"kubeProxyVersion":"","operatingSystem":"","architecture":""}}')
EVENT_ZERO = (b',"involvedObject":{},"reason":"","message":"","source":{},'
              b'"firstTimestamp":null,"lastTimestamp":null,"eventTime":null,'
              b'"reportingComponent":"","reportingInstance":""')
DEPLOY_ZERO = (b',"spec":{"selector":null,"template":{"metadata":{"creationTimestamp":null},'
               b'"spec":{"containers":null}},"strategy":{}},"status":{}')

TYPES = [
    RType("pods", "pod", "Pod", "", "v1", True, short=["po"], categories=["all"],
          fields=["spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
                  "spec.serviceAccountName", "spec.hostNetwork", "status.phase",
                  "status.podIP", "status.nominatedNodeName"],
          zero=b',"spec":{"containers":null},"status":{}', hash_="xPOwRZ+Yhw8="),
    RType("configmaps", "configmap", "ConfigMap", "", "v1", True, short=["cm"],
          hash_="qFsyl6wFWjQ="),
    RType("secrets", "secret", "Secret", "", "v1", True, fields=["type"],
          hash_="S6u1pOWzb84="),
    RType("namespaces", "namespace", "Namespace", "", "v1", False, short=["ns"],
          fields=["status.phase"], zero=b',"spec":{},"status":{}',
          verbs=CLUSTER_VERBS, hash_="Q3oi5N2YM8M="),
    RType("nodes", "node", "Node", "", "v1", False, short=["no"],
          fields=["spec.unschedulable"], zero=NODE_ZERO, verbs=ALL_VERBS,
          hash_="XwShjMxG9Fs="),
    RType("events", "event", "Event", "", "v1", True, short=["ev"],
          fields=["involvedObject.kind", "involvedObject.namespace",
                  "involvedObject.name", "involvedObject.uid",
                  "involvedObject.apiVersion", "involvedObject.resourceVersion",
                  "involvedObject.fieldPath", "reason", "reportingComponent",
                  "source", "type"],
          zero=EVENT_ZERO, hash_="r2yiGXH7wu8="),
    RType("deployments", "deployment", "Deployment", "apps", "v1", True,
          short=["deploy"], categories=["all"], zero=DEPLOY_ZERO,
          hash_="8aSe+NMegvE="),
    RType("crontabs", "crontab", "CronTab", "stable.example.com", "v1", True,
          short=["ct"], categories=["all"], unstructured=True,
          hash_="n2Bc3Xq0TgU="),
]

# --knative: Knative Serving's Service beside the core group's, two kinds
# of one name (and plural) in two groups
KNATIVE_TYPES = [
    RType("services", "service", "Service", "", "v1", True, short=["svc"],
          categories=["all"], hash_="0/CO1lhkEBI="),
    RType("services", "service", "Service", "serving.knative.dev", "v1", True,
          short=["kservice", "ksvc"], categories=["all", "knative", "serving"],
          unstructured=True, key="services.serving.knative.dev"),
]

BY_NAME = {t.key: t for t in TYPES}


def enable_knative():
    """Serve KNATIVE_TYPES too; before the store and the servers are made."""
    for t in KNATIVE_TYPES:
        TYPES.append(t)
        BY_NAME[t.key] = t


def groups():
    """[(group, version, [RType...])] in discovery order."""
    out = []
    for t in TYPES:
        for g in out:
            if g[0] == t.group and g[1] == t.version:
                g[2].append(t)
                break
        else:
            out.append((t.group, t.version, [t]))
    return out


def lookup(group, version, plural):
    for t in TYPES:
        if t.group == group and t.version == version and t.name == plural:
            return t
    return None
