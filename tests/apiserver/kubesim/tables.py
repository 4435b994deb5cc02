"""meta.k8s.io/v1 Tables, as the apiserver answers `Accept: application/json;as=Table;...`
(what kubectl asks for), and the CustomResourceDefinitions of the custom resources.

The columns and cells follow the apiserver's printers (pkg/printers/internalversion/
printers.go: printPod, printDeployment, printNode, printNamespace, printConfigMap,
printSecret, printEvent) and, for the custom resource, its CRD's
additionalPrinterColumns through the apiextensions tableconvertor (a Name column,
then each JSONPath, cells typed; no columns means one, Age).
"""

import calendar
import json
import re
import time
from decimal import Decimal

from . import rtypes

CRD_RT = rtypes.RType("customresourcedefinitions", "customresourcedefinition", "CustomResourceDefinition",
                      "apiextensions.k8s.io", "v1", False, short=["crd", "crds"])

NAME_DESC = "Name must be unique within a namespace."
AGE_DESC = ("CreationTimestamp is a timestamp representing the server time when this object "
            "was created.")


def col(name, typ="string", priority=0, fmt="", desc=""):
    return {"name": name, "type": typ, "format": fmt, "description": desc or name, "priority": priority}


# ---------------------------------------------------------------- helpers
def parse_time(s):
    """RFC 3339 (as Kubernetes writes it) to epoch seconds, or None."""
    if not isinstance(s, str) or len(s) < 20:
        return None
    try:
        base = time.strptime(s[:19], "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return None
    rest = s[19:]
    frac = 0.0
    if rest.startswith("."):
        i = 1
        while i < len(rest) and rest[i].isdigit():
            i += 1
        frac = float("0" + rest[:i]) if i > 1 else 0.0
        rest = rest[i:]
    off = 0
    if rest in ("Z", "z"):
        off = 0
    elif len(rest) == 6 and rest[0] in "+-" and rest[3] == ":":
        off = (int(rest[1:3]) * 60 + int(rest[4:6])) * 60 * (1 if rest[0] == "+" else -1)
    else:
        return None
    return calendar.timegm(base) - off + frac


def human_duration(secs):
    """k8s.io/apimachinery/pkg/util/duration.HumanDuration."""
    s = int(max(0, secs))
    m, h = s // 60, s // 3600
    d, y = h // 24, h // 24 // 365
    if s < 120:
        return "%ds" % s
    if m < 10 and s % 60:
        return "%dm%ds" % (m, s % 60)
    if m < 3 * 60:
        return "%dm" % m
    if h < 8 and m % 60:
        return "%dh%dm" % (h, m % 60)
    if h < 48:
        return "%dh" % h
    if h < 8 * 24 and h % 24:
        return "%dd%dh" % (d, h % 24)
    if h < 2 * 365 * 24:
        return "%dd" % d
    if h < 8 * 365 * 24 and d % 365:
        return "%dy%dd" % (y, d % 365)
    return "%dy" % y


def since(ts, now):
    t = parse_time(ts)
    return "<unknown>" if t is None else human_duration(now - t)


def get(d, *path):
    for p in path:
        if not isinstance(d, dict):
            return None
        d = d.get(p)
    return d


def s(v):
    return v if isinstance(v, str) else ""


def n(v):
    return v if isinstance(v, int) and not isinstance(v, bool) else (int(v) if isinstance(v, float) else 0)


def find_by(arr, key, value):
    for e in arr or []:
        if isinstance(e, dict) and s(e.get(key)) == value:
            return e
    return None


# ---------------------------------------------------------------- pods
def pod_row(pod, now):
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    spec_init = spec.get("initContainers") or []
    restarts, ready = 0, 0
    total = len(spec.get("containers") or [])
    last_restart = 0.0
    reason = s(status.get("reason")) or s(status.get("phase"))
    sched = find_by(status.get("conditions"), "type", "PodScheduled")
    if sched and s(sched.get("reason")) == "SchedulingGated":
        reason = "SchedulingGated"

    def restartable(name):
        c = find_by(spec_init, "name", name)
        return c is not None and s(c.get("restartPolicy")) == "Always"

    def note(cs, last):
        t = parse_time(get(cs, "lastState", "terminated", "finishedAt"))
        return t if t is not None and t > last else last

    def has_cond(typ):
        c = find_by(status.get("conditions"), "type", typ)
        return c is not None and s(c.get("status")) == "True"

    sidecar_restarts, sidecar_last = 0, 0.0
    for c in spec_init:
        if s(c.get("restartPolicy")) == "Always":
            total += 1
    for cs in status.get("initContainerStatuses") or []:
        if restartable(s(cs.get("name"))):
            sidecar_restarts += n(cs.get("restartCount"))
            sidecar_last = note(cs, sidecar_last)
    initializing = False
    init_statuses = status.get("initContainerStatuses") or []
    for i, cs in enumerate(init_statuses):
        term = get(cs, "state", "terminated")
        wait_reason = s(get(cs, "state", "waiting", "reason"))
        restarts += n(cs.get("restartCount"))
        last_restart = note(cs, last_restart)
        if term is not None and n(term.get("exitCode")) == 0:
            continue
        if restartable(s(cs.get("name"))) and cs.get("started") is True:
            if cs.get("ready") is True:
                ready += 1
            continue
        if term is not None:
            r = s(term.get("reason"))
            if r:
                reason = "Init:" + r
            elif n(term.get("signal")):
                reason = "Init:Signal:%d" % n(term.get("signal"))
            else:
                reason = "Init:ExitCode:%d" % n(term.get("exitCode"))
        elif wait_reason and wait_reason != "PodInitializing":
            reason = "Init:" + wait_reason
        else:
            reason = "Init:%d/%d" % (i, len(spec_init))
        initializing = True
        break
    if not initializing or has_cond("Initialized"):
        restarts, last_restart = sidecar_restarts, sidecar_last
        has_running = False
        for cs in reversed(status.get("containerStatuses") or []):
            term = get(cs, "state", "terminated")
            wait_reason = s(get(cs, "state", "waiting", "reason"))
            restarts += n(cs.get("restartCount"))
            last_restart = note(cs, last_restart)
            if wait_reason:
                reason = wait_reason
            elif term is not None and s(term.get("reason")):
                reason = s(term.get("reason"))
            elif term is not None:
                if n(term.get("signal")):
                    reason = "Signal:%d" % n(term.get("signal"))
                else:
                    reason = "ExitCode:%d" % n(term.get("exitCode"))
            elif cs.get("ready") is True and get(cs, "state", "running") is not None:
                has_running = True
                ready += 1
        if reason == "Completed" and has_running:
            reason = "Running" if has_cond("Ready") else "NotReady"
    if get(pod, "metadata", "deletionTimestamp") is not None:
        if s(status.get("reason")) == "NodeLost":
            reason = "Unknown"
        elif s(status.get("phase")) not in ("Succeeded", "Failed"):
            reason = "Terminating"
    restarts_str = str(restarts)
    if restarts and last_restart:
        restarts_str = "%d (%s ago)" % (restarts, human_duration(now - last_restart))
    ips = status.get("podIPs") or []
    ip = s(ips[0].get("ip")) if ips and isinstance(ips[0], dict) else ""
    ip = ip or s(status.get("podIP"))
    gates = spec.get("readinessGates") or []
    if gates:
        ok = 0
        for g in gates:
            c = find_by(status.get("conditions"), "type", s(g.get("conditionType")))
            if c and s(c.get("status")) == "True":
                ok += 1
        gates_str = "%d/%d" % (ok, len(gates))
    else:
        gates_str = "<none>"
    return [get(pod, "metadata", "name"), "%d/%d" % (ready, total), reason, restarts_str,
            since(get(pod, "metadata", "creationTimestamp"), now),
            ip or "<none>", s(spec.get("nodeName")) or "<none>",
            s(status.get("nominatedNodeName")) or "<none>", gates_str]


POD_COLS = [col("Name", fmt="name", desc=NAME_DESC), col("Ready"), col("Status"), col("Restarts"),
            col("Age", desc=AGE_DESC), col("IP", priority=1), col("Node", priority=1),
            col("Nominated Node", priority=1), col("Readiness Gates", priority=1)]


# ---------------------------------------------------------------- deployments
def selector_string(sel):
    if sel is None:
        return "<none>"
    reqs = []
    for k, v in (sel.get("matchLabels") or {}).items():
        reqs.append((k, "%s=%s" % (k, v)))
    for e in sel.get("matchExpressions") or []:
        k, op, vals = s(e.get("key")), s(e.get("operator")), sorted(e.get("values") or [])
        if op == "In":
            reqs.append((k, "%s in (%s)" % (k, ",".join(vals))))
        elif op == "NotIn":
            reqs.append((k, "%s notin (%s)" % (k, ",".join(vals))))
        elif op == "Exists":
            reqs.append((k, k))
        elif op == "DoesNotExist":
            reqs.append((k, "!" + k))
    if not reqs:
        return "<none>"
    reqs.sort(key=lambda r: r[0])
    return ",".join(r[1] for r in reqs)


def deployment_row(d, now):
    spec, status = d.get("spec") or {}, d.get("status") or {}
    desired = n(spec.get("replicas")) if "replicas" in spec else 1
    cs = get(d, "spec", "template", "spec", "containers") or []
    return [get(d, "metadata", "name"), "%d/%d" % (n(status.get("readyReplicas")), desired),
            n(status.get("updatedReplicas")), n(status.get("availableReplicas")),
            since(get(d, "metadata", "creationTimestamp"), now),
            ",".join(s(c.get("name")) for c in cs), ",".join(s(c.get("image")) for c in cs),
            selector_string(spec.get("selector"))]


DEPLOY_COLS = [col("Name", fmt="name", desc=NAME_DESC), col("Ready"), col("Up-to-date", "integer"),
               col("Available", "integer"), col("Age", desc=AGE_DESC), col("Containers", priority=1),
               col("Images", priority=1), col("Selector", priority=1)]


# ---------------------------------------------------------------- nodes, namespaces, configmaps, secrets
def node_row(node, now):
    conds = get(node, "status", "conditions") or []
    ready = find_by(conds, "type", "Ready")
    st = "Unknown" if ready is None else ("Ready" if s(ready.get("status")) == "True" else "NotReady")
    if get(node, "spec", "unschedulable") is True:
        st += ",SchedulingDisabled"
    roles = set()
    for k, v in (get(node, "metadata", "labels") or {}).items():
        if k.startswith("node-role.kubernetes.io/") and len(k) > len("node-role.kubernetes.io/"):
            roles.add(k[len("node-role.kubernetes.io/"):])
        elif k == "kubernetes.io/role" and s(v):
            roles.add(v)
    info = get(node, "status", "nodeInfo") or {}

    def addr(typ):
        a = find_by(get(node, "status", "addresses"), "type", typ)
        return s(a.get("address")) if a else ""
    return [get(node, "metadata", "name"), st, ",".join(sorted(roles)) or "<none>",
            since(get(node, "metadata", "creationTimestamp"), now), s(info.get("kubeletVersion")),
            addr("InternalIP") or "<none>", addr("ExternalIP") or "<none>",
            s(info.get("osImage")) or "<unknown>", s(info.get("kernelVersion")) or "<unknown>",
            s(info.get("containerRuntimeVersion")) or "<unknown>"]


NODE_COLS = [col("Name", fmt="name", desc=NAME_DESC), col("Status"), col("Roles"), col("Age", desc=AGE_DESC),
             col("Version"), col("Internal-IP", priority=1), col("External-IP", priority=1),
             col("OS-Image", priority=1), col("Kernel-Version", priority=1),
             col("Container-Runtime", priority=1)]


def namespace_row(o, now):
    return [get(o, "metadata", "name"), s(get(o, "status", "phase")),
            since(get(o, "metadata", "creationTimestamp"), now)]


def configmap_row(o, now):
    return [get(o, "metadata", "name"), len(o.get("data") or {}) + len(o.get("binaryData") or {}),
            since(get(o, "metadata", "creationTimestamp"), now)]


def secret_row(o, now):
    return [get(o, "metadata", "name"), s(o.get("type")), len(o.get("data") or {}),
            since(get(o, "metadata", "creationTimestamp"), now)]


# ---------------------------------------------------------------- events
def event_row(e, now):
    first = e.get("firstTimestamp")
    if parse_time(first) is None:
        first = e.get("eventTime")
    if e.get("series") is not None:
        last = since(get(e, "series", "lastObservedTime"), now)
    elif parse_time(e.get("lastTimestamp")) is not None:
        last = since(e.get("lastTimestamp"), now)
    else:
        last = since(first, now)
    kind = s(get(e, "involvedObject", "kind")).lower()
    name = s(get(e, "involvedObject", "name"))
    comp = s(get(e, "source", "component")) or s(e.get("reportingComponent"))
    host = s(get(e, "source", "host")) or s(e.get("reportingInstance"))
    series = e.get("series")
    count = n(get(e, "series", "count")) if series is not None else n(e.get("count"))
    if not count and series is None:
        count = 1
    return [last, s(e.get("type")), s(e.get("reason")), kind + ("/" + name if name else ""),
            s(get(e, "involvedObject", "fieldPath")), comp + (", " + host if host else ""),
            s(e.get("message")).strip(" \t\n\r"), since(first, now), count, get(e, "metadata", "name")]


EVENT_COLS = [col("Last Seen"), col("Type"), col("Reason"), col("Object"), col("Subobject", priority=1),
              col("Source", priority=1), col("Message"), col("First Seen", priority=1),
              col("Count", priority=1), col("Name", fmt="name", priority=1)]


# ---------------------------------------------------------------- custom resources
CRONTAB_COLUMNS = [
    {"name": "Spec", "type": "string", "description": "The cron spec defining the interval a CronJob is run",
     "jsonPath": ".spec.cronSpec"},
    {"name": "Replicas", "type": "integer", "description": "The number of jobs launched by the CronJob",
     "jsonPath": ".spec.replicas"},
    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
    {"name": "Image", "type": "string", "priority": 1, "jsonPath": ".spec.image"},
]

# Knative Serving's, as its CRD (config/core/300-resources/service.yaml) has them
KSVC_COLUMNS = [
    {"name": "URL", "type": "string", "jsonPath": ".status.url"},
    {"name": "LatestCreated", "type": "string", "jsonPath": ".status.latestCreatedRevisionName"},
    {"name": "LatestReady", "type": "string", "jsonPath": ".status.latestReadyRevisionName"},
    {"name": "Ready", "type": "string", "jsonPath": ".status.conditions[?(@.type=='Ready')].status"},
    {"name": "Reason", "type": "string", "jsonPath": ".status.conditions[?(@.type=='Ready')].reason"},
]

# the additionalPrinterColumns of each custom resource, by its RType's key
PRINTER_COLUMNS = {"crontabs": CRONTAB_COLUMNS, "services.serving.knative.dev": KSVC_COLUMNS}


def crd_for(rt):
    """The CustomResourceDefinition of an unstructured (custom) resource type."""
    return {
        "kind": "CustomResourceDefinition", "apiVersion": "apiextensions.k8s.io/v1",
        "metadata": {"name": "%s.%s" % (rt.name, rt.group), "uid": "6c3f3b1e-4d0b-4c1e-9a55-%012x" % (hash(rt.name) & 0xffffffffffff),
                     "resourceVersion": "1", "generation": 1, "creationTimestamp": "2024-01-01T00:00:00Z"},
        "spec": {
            "group": rt.group,
            "names": {"plural": rt.name, "singular": rt.singular, "kind": rt.kind, "listKind": rt.list_kind,
                      "shortNames": rt.short, "categories": rt.categories},
            "scope": "Namespaced" if rt.namespaced else "Cluster",
            "versions": [{"name": rt.version, "served": True, "storage": True,
                          "schema": {"openAPIV3Schema": {"type": "object",
                                                         "x-kubernetes-preserve-unknown-fields": True}},
                          "additionalPrinterColumns": PRINTER_COLUMNS[rt.key]}],
            "conversion": {"strategy": "None"},
        },
        "status": {"acceptedNames": {"plural": rt.name, "singular": rt.singular, "kind": rt.kind,
                                     "listKind": rt.list_kind, "shortNames": rt.short,
                                     "categories": rt.categories},
                   "storedVersions": [rt.version],
                   "conditions": [{"type": "Established", "status": "True", "reason": "InitialNamesAccepted",
                                   "message": "the initial names have been accepted",
                                   "lastTransitionTime": "2024-01-01T00:00:00Z"}]},
    }


def go_float(v):
    """Go's fmt %v of a float64: the shortest digits, %e from exponent 6 or below -4."""
    if v == 0:
        return "0"
    sign = "-" if v < 0 else ""
    t = Decimal(repr(abs(v))).normalize()
    _, digs, exp = t.as_tuple()
    ds = "".join(map(str, digs))
    dp = len(ds) + exp
    if dp - 1 < -4 or dp - 1 >= 6:
        e = dp - 1
        return "%s%s%se%s%02d" % (sign, ds[0], "." + ds[1:] if len(ds) > 1 else "", "-" if e < 0 else "+", abs(e))
    if dp <= 0:
        return sign + "0." + "0" * (-dp) + ds
    if dp >= len(ds):
        return sign + ds + "0" * (dp - len(ds))
    return sign + ds[:dp] + "." + ds[dp:]


def go_format(v):
    """Go's fmt %v of a scalar JSON value."""
    if v is None:
        return "<nil>"
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return go_float(v)
    return v


FILTER = re.compile(r"^(\w+)\[\?\(@\.(\w+)=='([^']*)'\)\]$")


def crd_cell(column, obj, now):
    """A cell of a column whose JSONPath is members, each maybe with one
    filter on an array of objects ("conditions[?(@.type=='Ready')]")."""
    v = obj
    for part in re.findall(r"\w+(?:\[\?\(@\.\w+=='[^']*'\)\])?", column["jsonPath"]):
        m = FILTER.match(part)
        name = m.group(1) if m else part
        if not isinstance(v, dict) or name not in v:
            return None
        v = v[name]
        if m:
            v = next((e for e in (v if isinstance(v, list) else [])
                      if isinstance(e, dict) and e.get(m.group(2)) == m.group(3)), None)
            if v is None:
                return None
    t = column["type"]
    if v is None:
        # a null: the apiserver prints it through text/template's printableValue
        return "<no value>" if t == "string" else None
    if t == "string":
        if isinstance(v, (dict, list)):
            return json.dumps(v, separators=(",", ":"), sort_keys=True)
        return go_format(v)
    if t == "integer" and isinstance(v, (int, float)) and not isinstance(v, bool):
        # the apiserver's int64(float64): beyond int64 (a literal too, decoded
        # as a float64) it is amd64's "integer indefinite", -2**63
        return int(v) if -2**63 <= v < 2**63 else -2**63
    if t == "number" and isinstance(v, (int, float)) and not isinstance(v, bool):
        # a float64, which Go's JSON writes without ".0" (kubectl then reads
        # an int64 back where it fits one)
        f = float(v)
        return int(f) if f.is_integer() and -2**63 <= f < 2**63 else f
    if t == "boolean" and isinstance(v, bool):
        return v
    if t == "date" and isinstance(v, str):
        return "<invalid>" if parse_time(v) is None else human_duration(now - parse_time(v))
    return None


def crd_columns(rt):
    cols = [col("Name", fmt="name", desc=NAME_DESC)]
    for c in PRINTER_COLUMNS[rt.key]:
        cols.append(col(c["name"], c["type"], c.get("priority", 0),
                        desc=c.get("description") or
                        "Custom resource definition column (in JSONPath format): " + c["jsonPath"]))
    return cols


def crd_row(rt, obj, now):
    return [get(obj, "metadata", "name")] + [crd_cell(c, obj, now) for c in PRINTER_COLUMNS[rt.key]]


ROWS = {
    "pods": (POD_COLS, pod_row),
    "deployments": (DEPLOY_COLS, deployment_row),
    "nodes": (NODE_COLS, node_row),
    "namespaces": ([col("Name", fmt="name", desc=NAME_DESC), col("Status"), col("Age", desc=AGE_DESC)],
                   namespace_row),
    "configmaps": ([col("Name", fmt="name", desc=NAME_DESC), col("Data", "integer"), col("Age", desc=AGE_DESC)],
                   configmap_row),
    "secrets": ([col("Name", fmt="name", desc=NAME_DESC), col("Type"), col("Data", "integer"),
                 col("Age", desc=AGE_DESC)], secret_row),
    "events": (EVENT_COLS, event_row),
}


def wants_table(accept):
    """Whether an Accept header asks for a meta.k8s.io Table first."""
    for part in (accept or "").split(","):
        params = [p.strip() for p in part.split(";")]
        if "as=Table" in params and "g=meta.k8s.io" in params and ("v=v1" in params or "v=v1beta1" in params):
            return "v1beta1" if "v=v1beta1" in params and "v=v1" not in params else "v1"
        if params and params[0] in ("application/json", "*/*") and not any(p.startswith("as=") for p in params):
            return None
    return None


def to_table(rt, objs, meta, include, version="v1"):
    """A Table of objs (dicts with kind/apiVersion) for rt; include: Object, None or Metadata."""
    now = time.time()
    if rt.unstructured:
        cols, row = crd_columns(rt), lambda o, t: crd_row(rt, o, t)
    else:
        cols, row = ROWS.get(rt.key, ([col("Name", fmt="name", desc=NAME_DESC), col("Age", desc=AGE_DESC)],
                                       lambda o, t: [get(o, "metadata", "name"),
                                                     since(get(o, "metadata", "creationTimestamp"), t)]))
    rows = []
    for o in objs:
        r = {"cells": row(o, now)}
        if include == "Object":
            r["object"] = o
        elif include != "None":
            r["object"] = {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/" + version,
                           "metadata": o.get("metadata") or {}}
        rows.append(r)
    return {"kind": "Table", "apiVersion": "meta.k8s.io/" + version, "metadata": meta,
            "columnDefinitions": cols, "rows": rows}
