"""The control interface: plain HTTP on 127.0.0.1, JSON in and out.  See
README.md for the routes."""

import json
import sys
import time
import traceback
from http.server import BaseHTTPRequestHandler
from urllib.parse import urlsplit, parse_qsl

from . import rtypes
from .api import raw_shutdown, ReusableServer
from .sim import Fault, NotFound, Conflict


class Bad(Exception):
    def __init__(self, code, msg):
        super().__init__(msg)
        self.code = code


class ControlServer(ReusableServer):

    def __init__(self, addr, sim):
        self.sim = sim
        super().__init__(addr, ControlHandler)

    def handle_error(self, request, client_address):
        pass


def _rt(d):
    name = d.get("resource") or "pods"
    rt = rtypes.BY_NAME.get(name)
    if rt is None:
        for t in rtypes.TYPES:
            if name in t.short or name in (t.singular, t.kind.lower(), t.gr):
                return t
        raise Bad(400, "unknown resource %r" % name)
    return rt


class ControlHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def do_DELETE(self):
        self.dispatch("DELETE")

    def reply(self, code, obj):
        body = obj if isinstance(obj, bytes) else (json.dumps(obj) + "\n").encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json" if not isinstance(obj, bytes) else "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def dispatch(self, method):
        u = urlsplit(self.path)
        q = dict(parse_qsl(u.query, keep_blank_values=True))
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            body = json.loads(raw) if raw.strip() else {}
            if not isinstance(body, dict):
                raise ValueError("body must be a JSON object")
        except ValueError as e:
            return self.reply(400, {"error": "bad JSON body: %s" % e})
        route = (method, u.path.rstrip("/") or "/")
        fn = ROUTES.get(route)
        if fn is None:
            if any(p == route[1] for (_, p) in ROUTES):
                return self.reply(405, {"error": "method not allowed"})
            return self.reply(404, {"error": "no such control route: %s %s" % route})
        try:
            code, out = fn(self.server.sim, q, body)
        except Bad as e:
            return self.reply(e.code, {"error": str(e)})
        except NotFound as e:
            return self.reply(404, {"error": "not found: %s" % e})
        except Conflict as e:
            return self.reply(409, {"error": "already exists: %s" % e})
        except (ValueError, KeyError, TypeError) as e:
            return self.reply(400, {"error": "%s: %s" % (type(e).__name__, e)})
        except Exception as e:  # noqa: BLE001 - a bug: say so
            traceback.print_exc(file=sys.stderr)
            sys.stderr.flush()
            return self.reply(500, {"error": "kube-sim bug: %s: %s" % (type(e).__name__, e)})
        self.reply(code, out)


def obj_json(rt, obj):
    return json.loads(rt.full(obj.data))


def c_health(sim, q, b):
    return 200, b"ok"


def c_oracle(sim, q, b):
    rt = _rt(q)
    rv, items = sim.store.oracle(rt, q.get("namespace") or None)
    return 200, {"resource": rt.key, "resourceVersion": rv, "items": items}


def _key(sim, rt, b):
    if not b.get("name"):
        raise Bad(400, "name is required")
    ns = b.get("namespace") or ("default" if rt.namespaced else "")
    return sim.store.key_of(rt, ns, b["name"])


def c_object(sim, q, b):
    rt = _rt(q)
    obj = sim.store.get(rt, _key(sim, rt, q))
    if obj is None:
        raise NotFound(q.get("name"))
    return 200, obj_json(rt, obj)


def c_create(sim, q, b):
    rt = _rt(b)
    o = b.get("object")
    if not isinstance(o, dict):
        raise Bad(400, "object is required")
    return 200, obj_json(rt, sim.create(rt, o, created=b.get("creationTimestamp")))


def c_update(sim, q, b):
    rt = _rt(b)
    patch = b.get("patch")
    if not isinstance(patch, dict):
        raise Bad(400, "patch (a JSON merge patch object) is required")
    return 200, obj_json(rt, sim.update(rt, _key(sim, rt, b), patch))


def c_delete(sim, q, b):
    rt = _rt(b)
    return 200, obj_json(rt, sim.delete(rt, _key(sim, rt, b), bool(b.get("graceful"))))


def c_silent(sim, q, b):
    """A change no watch is told of (a lost event): the stored truth, lists
    and the oracle show it, it takes the next resourceVersion, but it is
    never sent, live or replayed."""
    rt = _rt(b)
    op = b.get("op")
    if op == "create":
        o = b.get("object")
        if not isinstance(o, dict):
            raise Bad(400, "object is required")
        return 200, obj_json(rt, sim.create(rt, o, silent=True))
    if op == "update":
        patch = b.get("patch")
        if not isinstance(patch, dict):
            raise Bad(400, "patch (a JSON merge patch object) is required")
        return 200, obj_json(rt, sim.update(rt, _key(sim, rt, b), patch, silent=True))
    if op == "delete":
        key = _key(sim, rt, b) if b.get("name") else _first_key(sim, rt, b)
        return 200, obj_json(rt, sim.delete(rt, key, silent=True))
    raise Bad(400, "op is create, update or delete")


def _first_key(sim, rt, b):
    """Without a name: the first object of the namespace (of all, when the
    type is cluster-scoped), so that a recipe needs no name that churn may
    have taken away."""
    ns = b.get("namespace") or ("default" if rt.namespaced else "")
    with sim.store.cond:
        rs = sim.store.res[rt.key]
        lo, hi = rs.ns_range(ns if rt.namespaced else "")
        if lo >= hi:
            raise Bad(404, "no %s in %s" % (rt.name, ns or "the cluster"))
        return rs.keys[lo]


def _mix(b):
    mix = b.get("mix") or {"add": 1, "update": 3, "delete": 1}
    out = {}
    for k, v in mix.items():
        if k not in ("add", "update", "delete"):
            raise Bad(400, "mix keys are add, update, delete")
        out[k] = float(v)
    if sum(out.values()) <= 0:
        raise Bad(400, "mix must have a positive weight")
    return out


def c_churn(sim, q, b):
    import random
    rt = _rt(b)
    mix = _mix(b)
    graceful = b.get("graceful", True)
    if b.get("count") is not None:
        n = int(b["count"])
        rng = random.Random(b.get("seed", time.time_ns()))
        counts = {"add": 0, "update": 0, "delete": 0}
        t0 = time.monotonic()
        for _ in range(n):
            sim.churn_step(rt, rng, mix, counts, graceful)
        el = time.monotonic() - t0
        return 200, {"resource": rt.key, "done": sum(counts.values()), "counts": counts,
                     "seconds": round(el, 3), "resourceVersion": str(sim.store.rv)}
    rate = float(b.get("rate", 10))
    if rate <= 0:
        raise Bad(400, "rate must be > 0")
    c = sim.start_churn(rt, rate, float(b.get("duration", 0) or 0), b.get("seed", time.time_ns()), mix, graceful)
    return 200, dict(c.to_json(), started=True)


def c_churn_stop(sim, q, b):
    cs = sim.stop_churns()
    return 200, {"stopped": len([c for c in cs]), "churns": [c.to_json() for c in cs]}


def c_churn_get(sim, q, b):
    with sim.lock:
        cs = list(sim.churns)
        done = sim.churn_done
    return 200, {"running": any(c.is_alive() for c in cs), "done": done,
                 "churns": [c.to_json() for c in cs]}


def c_compact(sim, q, b):
    sim.store.compact_all()
    return 200, {"compacted": True, "resourceVersion": str(sim.store.rv)}


def _drop(sim, mode, resource=None):
    st = sim.store
    with st.cond:
        ws = [w for w in st.watches if resource is None or w.resource == resource]
        for w in ws:
            w.drop = mode
        st.cond.notify_all()
    if mode == "abrupt":
        for w in ws:
            raw_shutdown(w.sock)
    return len(ws)


def c_restart(sim, q, b):
    sim.store.compact_all()
    n = _drop(sim, "clean", b.get("resource"))
    return 200, {"dropped": n, "compacted": True, "resourceVersion": str(sim.store.rv)}


def c_drop(sim, q, b):
    mode = b.get("mode", "clean")
    if mode not in ("abrupt", "clean"):
        raise Bad(400, "mode is abrupt or clean")
    return 200, {"dropped": _drop(sim, mode, b.get("resource")), "mode": mode}


def c_faults_add(sim, q, b):
    specs = b.get("faults") if isinstance(b.get("faults"), list) else [b]
    fs = [Fault(s) for s in specs]
    for f in fs:
        if f.resource and f.resource not in rtypes.BY_NAME:
            raise Bad(400, "unknown resource %r" % f.resource)
    with sim.lock:
        sim.faults.extend(fs)
        return 200, {"faults": [f.to_json() for f in sim.faults]}


def c_faults_get(sim, q, b):
    with sim.lock:
        return 200, {"faults": [f.to_json() for f in sim.faults]}


def c_faults_clear(sim, q, b):
    with sim.lock:
        n = len(sim.faults)
        sim.faults.clear()
    return 200, {"cleared": n}


def c_warnings(sim, q, b):
    """Every answer about a resource (b["resource"], or any) carries these
    Warning header values as written (b["values"]; [] stops them)."""
    vals = b.get("values")
    if not isinstance(vals, list) or not all(isinstance(v, str) for v in vals):
        return 400, {"error": "values must be a list of strings"}
    with sim.lock:
        sim.warnings = {"resource": b.get("resource") or None, "values": vals}
    return 200, sim.warnings


def c_requests(sim, q, b):
    with sim.lock:
        out = [dict(e) for e in sim.reqlog]
    for k in ("verb", "resource", "method", "user"):
        if q.get(k):
            out = [e for e in out if str(e.get(k)) == q[k]]
    return 200, out


def c_requests_clear(sim, q, b):
    with sim.lock:
        n = len(sim.reqlog)
        sim.reqlog.clear()
    return 200, {"cleared": n}


def c_stats(sim, q, b):
    st = sim.store
    with st.cond:
        nw = len(st.watches)
        per = {}
        for w in st.watches:
            per[w.resource] = per.get(w.resource, 0) + 1
        rv = st.rv
        objs = {name: len(rs.objs) for name, rs in st.res.items()}
        mutations = st.mutations
    with sim.lock:
        reqs = dict(sim.verb_counts)
        sent = sim.events_sent
    return 200, {"openWatches": nw, "watchesByResource": per, "requests": reqs,
                 "resourceVersion": str(rv), "eventsSent": sent, "objects": objs,
                 "mutations": mutations}


def c_watches(sim, q, b):
    st = sim.store
    with st.cond:
        return 200, [{"id": w.id, "resource": w.resource, "user": w.user, "started": w.started,
                      "allowWatchBookmarks": w.allow_bm, "eventsSent": w.sent} for w in st.watches]


def c_bookmark(sim, q, b):
    st = sim.store
    with st.cond:
        n = 0
        for w in st.watches:
            if w.allow_bm and (not b.get("resource") or w.resource == b["resource"]):
                w.bm_now = True
                n += 1
        st.cond.notify_all()
    return 200, {"watches": n}


ROUTES = {
    ("GET", "/healthz"): c_health,
    ("GET", "/oracle"): c_oracle,
    ("GET", "/object"): c_object,
    ("POST", "/create"): c_create,
    ("POST", "/update"): c_update,
    ("POST", "/delete"): c_delete,
    ("POST", "/silent"): c_silent,
    ("POST", "/churn"): c_churn,
    ("POST", "/churn/stop"): c_churn_stop,
    ("GET", "/churn"): c_churn_get,
    ("POST", "/compact"): c_compact,
    ("POST", "/restart-watch-cache"): c_restart,
    ("POST", "/drop-watches"): c_drop,
    ("POST", "/faults"): c_faults_add,
    ("GET", "/faults"): c_faults_get,
    ("DELETE", "/faults"): c_faults_clear,
    ("POST", "/warnings"): c_warnings,
    ("GET", "/requests"): c_requests,
    ("DELETE", "/requests"): c_requests_clear,
    ("GET", "/stats"): c_stats,
    ("GET", "/watches"): c_watches,
    ("POST", "/bookmark"): c_bookmark,
}
