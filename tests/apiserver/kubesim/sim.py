"""The simulator's state shared by the API server and the control interface:
the store, start-up population, mutations, churns, faults, the request log
and counters.

DESIGN: the store has its own lock (see store.py).  `self.lock` guards the
fault list, the request log, the counters and the churn list; it is never
held while taking the store lock or doing I/O.  Churns run on their own
threads and mutate through the store.
"""

import base64
import collections
import json
import random
import threading
import time

from . import objects as O
from . import rtypes
from .store import Store, NotFound, Conflict  # noqa: F401

PROTECTED_NS = {"default", "kube-system", "kube-public", "kube-node-lease"}


def merge_patch(target, patch):
    """RFC 7386 JSON merge patch, applied in place when target is a dict."""
    if not isinstance(patch, dict):
        return patch
    if not isinstance(target, dict):
        target = {}
    for k, v in patch.items():
        if v is None:
            target.pop(k, None)
        else:
            target[k] = merge_patch(target.get(k), v)
    return target


class Fault:
    # kinds that are a bad event in a watch stream (watches only)
    WATCH_EVENT_KINDS = ("badevent", "nometa", "unknowntype", "error429", "error500", "rvback")
    # kinds that cut a streaming list short (sendInitialEvents=true only)
    WATCHLIST_KINDS = ("cut-after-initial", "end-before-bookmark", "cut-before-bookmark")
    KINDS = ("429", "500", "503", "504", "401", "403", "404", "410",
             "hang", "truncate", "garbage", "drip", "reset", "body", "lines") + WATCH_EVENT_KINDS + WATCHLIST_KINDS
    VERBS = ("list", "list-continue", "watch", "watchlist", "get", "discovery", "any",
             "create", "update", "patch", "delete")

    def __init__(self, spec):
        self.verb = spec.get("verb", "any")
        self.resource = spec.get("resource") or None
        self.count = int(spec.get("count", 1))
        self.kind = str(spec.get("kind", "500"))
        # 429 always says when to come back (default 1 s); the 5xx kinds and
        # error500 only when retryAfter is given
        self.retry_after_set = spec.get("retryAfter") is not None
        self.retry_after = int(spec.get("retryAfter", 1))
        s = spec.get("seconds")
        self.seconds = float(s) if s is not None else None
        if self.kind not in self.KINDS:
            raise ValueError("unknown fault kind %r (one of %s)" % (self.kind, ", ".join(self.KINDS)))
        # body: any answer (status, Content-Type, bytes); lines: watch lines.
        # Strings are sent as UTF-8, or decoded from base64 with "base64".
        self.spec = {k: spec[k] for k in ("status", "contentType", "body", "lines", "base64", "end",
                                          "location")
                     if k in spec}
        # body: a Location header too (a redirect)
        self.location = spec.get("location")
        self.status = int(spec.get("status", 200))
        self.content_type = str(spec.get("contentType", "application/json"))
        self.end = bool(spec.get("end", False))
        decode = base64.b64decode if spec.get("base64") else (lambda t: str(t).encode("utf-8"))
        self.body = decode(spec.get("body", ""))
        lines = spec.get("lines", [])
        if not isinstance(lines, list):
            raise ValueError("lines must be a list of strings")
        self.lines = [decode(t) for t in lines]
        if self.verb not in self.VERBS:
            raise ValueError("unknown verb %r" % self.verb)
        if self.kind in self.WATCH_EVENT_KINDS + self.WATCHLIST_KINDS and \
                self.verb not in ("watch", "watchlist", "any"):
            raise ValueError("fault kind %r is for watches (verb watch, watchlist or any)" % self.kind)

    def matches(self, verbs, resource):
        """verbs: what the request counts as, e.g. {"list", "list-continue"}
        for a list with a continue token, {"watch", "watchlist"} for a
        streaming list."""
        if self.count <= 0:
            return False
        if self.verb != "any" and self.verb not in verbs:
            return False
        if self.kind in self.WATCH_EVENT_KINDS and "watch" not in verbs:
            return False
        if self.kind in self.WATCHLIST_KINDS and "watchlist" not in verbs:
            return False
        if self.resource and self.resource != resource:
            return False
        return True

    def retry_details(self, details=None):
        """(details, headers) with retryAfterSeconds and Retry-After when the
        fault has a retryAfter."""
        if not self.retry_after_set:
            return details, []
        d = dict(details or {})
        d["retryAfterSeconds"] = self.retry_after
        return d, ["Retry-After: %d" % self.retry_after]

    def to_json(self):
        d = {"verb": self.verb, "count": self.count, "kind": self.kind}
        if self.retry_after_set or self.kind in ("429", "error429"):
            d["retryAfter"] = self.retry_after
        if self.resource:
            d["resource"] = self.resource
        if self.seconds is not None:
            d["seconds"] = self.seconds
        if self.kind in ("body", "lines"):
            d.update(self.spec)
        return d


class Churn(threading.Thread):
    def __init__(self, sim, rt, rate, duration, seed, mix, graceful):
        super().__init__(daemon=True, name="churn-" + rt.name)
        self.sim, self.rt, self.rate, self.duration = sim, rt, float(rate), float(duration or 0)
        self.rng = random.Random(seed)
        self.mix = mix
        self.graceful = graceful
        self.stop = threading.Event()
        self.done = 0
        self.counts = {"add": 0, "update": 0, "delete": 0}
        self.errors = 0

    def run(self):
        t0 = time.monotonic()
        while not self.stop.is_set():
            el = time.monotonic() - t0
            if self.duration and el >= self.duration:
                target = int(self.rate * self.duration)
            else:
                target = int(self.rate * el)
            n = 0
            while self.done < target and n < 2000 and not self.stop.is_set():
                self.sim.churn_step(self.rt, self.rng, self.mix, self.counts, self.graceful)
                self.done += 1
                n += 1
                with self.sim.lock:
                    self.sim.churn_done += 1
            if self.duration and el >= self.duration and self.done >= target:
                break
            if n < 2000:
                self.stop.wait(0.005)

    def to_json(self):
        return {"resource": self.rt.name, "rate": self.rate, "duration": self.duration,
                "done": self.done, "running": self.is_alive(), "counts": dict(self.counts)}


class Sim:
    def __init__(self, opts):
        self.opts = opts
        self.rng = random.Random(opts.seed)
        self.store = Store(rtypes.TYPES, opts.history, opts.start_rv)
        self.cluster = O.Cluster(self.rng)
        self.lock = threading.Lock()
        self.faults = []
        self.reqlog = collections.deque(maxlen=200000)
        self.verb_counts = collections.Counter()
        self.events_sent = 0
        self.table_events = {}    # (event line, Table version, includeObject) -> the event as a Table
        self.churns = []
        self.churn_done = 0
        self.static_ns = set(PROTECTED_NS)
        self.tokens = {}
        self.anonymous = None   # --anonymous: who a request with no credential is
        self.warnings = {"resource": None, "values": []}   # POST /warnings
        self.admins = {"admin", "kinf-admin"}
        self.bookmark_interval = opts.bookmark_interval
        self.watch_list = not opts.no_watch_list
        self.stamp = getattr(opts, "stamp_churn", False)
        self.script = None  # scenario.Script with --scenario

    # ------------------------------------------------------------ start-up
    def populate(self):
        o = self.opts
        st, rng, cl = self.store, self.rng, self.cluster
        now = time.time()

        def past():
            return now - rng.uniform(600, 86400 * 3)

        def put(rt, d):
            md = d["metadata"]
            rv = st.next_rv()
            md["resourceVersion"] = str(rv)
            key = st.key_of(rt, md.get("namespace", ""), md["name"])
            st.load(rt, key, rt.encode(d), rt.labels_of(d), rt.fields_of(d), rv)

        T = rtypes.BY_NAME
        nsnames = ["default", "kube-system", "kube-public", "kube-node-lease"]
        gen_ns = ["ns-%d" % (i + 1) for i in range(o.namespaces)]
        self.static_ns.update(gen_ns)
        cl.workload_ns = ["default"] + gen_ns
        for n in nsnames + gen_ns:
            put(T["namespaces"], O.make_namespace(rng, n, past()))
        for i in range(o.nodes):
            name, ip = "node-%d" % (i + 1), "10.0.0.%d" % (11 + i)
            cl.nodes.append((name, ip))
            put(T["nodes"], O.make_node(rng, name, ip, past()))
        deps = []
        for i in range(o.deployments):
            ns = cl.workload_ns[i % len(cl.workload_ns)]
            app = O.APPS[i % len(O.APPS)] + ("" if i < len(O.APPS) else "-%d" % (i // len(O.APPS)))
            h = O.suffix(rng, 10)
            cl.deploys.setdefault(ns, []).append((app, h, O.new_uid(rng)))
            deps.append((ns, app, h))
        replicas = collections.Counter()
        pods_rt = T["pods"]
        label_cache = {}
        first_pods = []
        for i in range(o.pods):
            ns = cl.workload_ns[i % len(cl.workload_ns)]
            lst = cl.deploys.get(ns)
            created = past()
            p = cl.pod_params(ns, "pod-%d" % i, "0", created)
            if lst:
                app, h, rsuid = lst[(i // len(cl.workload_ns)) % len(lst)]
                p["app"], p["hash"], p["rsuid"] = app, h, rsuid
            replicas[(ns, p["app"])] += 1
            rv = st.next_rv()
            p["rv"] = str(rv)
            pending = rng.random() < 0.05
            data, labels, fields = O.pod_record(p, pending)
            lk = (p["app"], p["hash"], p["tier"])
            labels = label_cache.setdefault(lk, labels)
            st.load(pods_rt, ns + "/" + p["name"], data, labels, fields, rv)
            if len(first_pods) < 10:
                first_pods.append(p)
        for ns, app, h in deps:
            put(T["deployments"], O.make_deployment(rng, ns, app, h, replicas[(ns, app)], past()))
        for n in nsnames + gen_ns:
            put(T["configmaps"], O.make_configmap(rng, n, "kube-root-ca.crt", {"ca.crt": O.CA_PEM}, past()))
        for n in cl.workload_ns:
            put(T["configmaps"], O.make_configmap(rng, n, "app-config", None, past()))
            put(T["secrets"], O.make_secret(rng, n, "app-secret", past()))
            put(T["crontabs"], O.make_crontab(rng, n, "my-new-cron-object" if n == "default" else "cron-" + n, past()))
        if "services" in T:     # --knative
            put(T["services"], O.make_service(rng, "default", "kubernetes", "10.96.0.1", 443, past()))
            for i, n in enumerate(cl.workload_ns):
                put(T["services"], O.make_service(rng, n, "web", "10.96.1.%d" % (10 + i), 80, past()))
                put(T["services.serving.knative.dev"], O.make_knative_service(rng, n, "hello", past()))
        for p in first_pods:
            for reason, msg in (("Scheduled", "Successfully assigned %s/%s to %s" % (p["ns"], p["name"], p["node"])),
                                ("Started", "Started container app")):
                put(T["events"], O.make_event(rng, p["ns"], p, reason, msg, past()))
        st.finish_load()

    # ------------------------------------------------------------ mutations
    def create(self, rt, partial, silent=False, created=None):
        """created: a creationTimestamp to keep (a control's backdated
        object); else the object is made now, as the apiserver makes it."""
        md = partial.get("metadata") or {}
        name = md.get("name")
        if not name and md.get("generateName"):
            name = md["generateName"] + O.suffix(self.rng)
        if not name:
            raise ValueError("metadata.name is required")
        ns = md.get("namespace") or ("default" if rt.namespaced else "")
        if not rt.namespaced:
            ns = ""
        if rt.name == "pods" and set(partial) <= {"metadata", "kind", "apiVersion"} \
                and set(md) <= {"name", "namespace", "generateName"}:
            # the common case (churn adds): straight from the template
            p = self.cluster.pod_params(ns, name, "@RV@")
            data, labels, fields = O.pod_record(p, pending=True)
            return self.store.create_raw(rt, ns + "/" + name, data, labels, fields, silent)
        d = O.default_object(rt.key, self.cluster, ns, name)
        partial = json.loads(json.dumps(partial))
        partial.pop("kind", None)
        partial.pop("apiVersion", None)
        pmd = partial.get("metadata") or {}
        for k in ("resourceVersion", "uid", "creationTimestamp"):
            pmd.pop(k, None)
        merge_patch(d, partial)
        md = d["metadata"]
        md["name"] = name
        if rt.namespaced:
            md["namespace"] = ns
        else:
            md.pop("namespace", None)
        if created:
            md["creationTimestamp"] = created
        if rt.name == "pods":
            self.cluster.pod_names.add((ns, name))
        return self.store.create(rt, d, silent)

    def update(self, rt, key, patch, silent=False):
        def fn(d):
            md = d.get("metadata", {})
            keep = {k: md.get(k) for k in ("name", "namespace", "uid", "creationTimestamp")}
            spec_before = json.dumps(d.get("spec"), sort_keys=True)
            merge_patch(d, patch)
            md = d.setdefault("metadata", {})
            for k, v in keep.items():
                if v is not None:
                    md[k] = v
            if "generation" in md and json.dumps(d.get("spec"), sort_keys=True) != spec_before:
                md["generation"] = md["generation"] + 1
        return self.store.update(rt, key, fn, silent=silent)

    def replace(self, rt, key, new):
        """PUT: replace the object (keeping identity fields)."""
        def fn(d):
            md = d.get("metadata", {})
            keep = {k: md.get(k) for k in ("name", "namespace", "uid", "creationTimestamp", "generation")}
            d.clear()
            d.update(new)
            d.pop("kind", None)
            d.pop("apiVersion", None)
            nmd = d.setdefault("metadata", {})
            for k, v in keep.items():
                if v is not None and k != "generation":
                    nmd[k] = v
            if keep.get("generation") is not None:
                nmd["generation"] = keep["generation"] + 1
        return self.store.update(rt, key, fn)

    def delete(self, rt, key, graceful=False, silent=False):
        if graceful and rt.name == "pods" and not silent:
            t = O.ts()

            def mark(md, st):
                md["deletionTimestamp"] = t
                md["deletionGracePeriodSeconds"] = 30

            def markd(d):
                mark(d.setdefault("metadata", {}), None)
            self.store.update(rt, key, markd, fast=mark)
        obj = self.store.delete(rt, key, silent=silent)
        if rt.name == "pods" and "/" in key:
            self.cluster.pod_names.discard(tuple(key.split("/", 1)))
        return obj

    def churn_step(self, rt, rng, mix, counts, graceful=True):
        rs = self.store.res[rt.key]
        total = sum(mix.values()) or 1
        r = rng.random() * total
        op = "add"
        acc = 0
        for k in ("add", "update", "delete"):
            acc += mix.get(k, 0)
            if r < acc:
                op = k
                break
        for _ in range(5):
            keys = rs.keys
            if op != "add" and not keys:
                op = "add"
            try:
                if op == "add":
                    ns, name = O.churn_new(rt.name, self.cluster)
                    md = {"name": name}
                    if ns:
                        md["namespace"] = ns
                    self.create(rt, {"metadata": md})
                else:
                    key = rng.choice(keys)
                    if op == "delete" and rt.name == "namespaces" and key in self.static_ns:
                        op = "update"
                    if op == "delete":
                        self.delete(rt, key, graceful)
                    else:
                        n = self.store.mutations
                        stamp = self.stamp
                        self.store.update(
                            rt, key, lambda d: O.churn_update(rt.name, d, rng, n, stamp),
                            fast=lambda md, st: O.churn_update_pod(md, st, rng, n, stamp))
                counts[op] = counts.get(op, 0) + 1
                return op
            except (NotFound, Conflict, IndexError):
                continue
        return None

    def start_churn(self, rt, rate, duration, seed, mix, graceful=True):
        c = Churn(self, rt, rate, duration, seed, mix, graceful)
        with self.lock:
            self.churns = [x for x in self.churns if x.is_alive()] + [c]
        c.start()
        return c

    def stop_churns(self):
        with self.lock:
            cs = list(self.churns)
        for c in cs:
            c.stop.set()
        for c in cs:
            c.join(5)
        return cs

    # ------------------------------------------------------------ faults
    def take_fault(self, verbs, resource):
        with self.lock:
            for f in self.faults:
                if f.matches(verbs, resource):
                    f.count -= 1
                    if f.count <= 0:
                        self.faults.remove(f)
                    return f
        return None
