"""Scripted mode (--scenario FILE): the lists and watches of one resource are
answered from a script, in the order they arrive, and every one of them is
logged.  This is what makes kube-sim a fixed stimulus for comparing kinf with
the real client-go (tests/client-go/): the same script, the same answers,
whatever the client's timing.

The script (JSON; the format is documented in tests/client-go/README.md):

    {"resource": "pods", "namespace": "default",
     "list":      [ANSWER, ...],   plain LISTs (no watch), in order
     "watch":     [ANSWER, ...],   watches without sendInitialEvents
     "watchlist": [ANSWER, ...],   watches with sendInitialEvents=true
     "final":     {"rv": "20", "items": [OBJ, ...]}}

A request takes the next answer of its own queue, so one script serves the
clients that list and the ones that stream their list.  Once a queue is
empty, its requests are answered from "final": a list of the final items, a
watch held open in silence, a streaming list of the final items and its end
bookmark, then silence.  Silence is where every script ends: a client that
waits on a silent watch with nothing more to do is idle, and the log says so
(the "held" record), which the runner uses to stop it.  A held watch the
client leaves is logged again ({"gone": N}, N the request's "n"): it was
not where the client came to rest, and the runner waits on.

DESIGN: each request is served on its own thread (ThreadingHTTPServer); the
queues and the log are shared, under one lock.  Requests of one informer
come one at a time, so the lock only orders a request's pop and its log
line.
"""

import fcntl
import json
import socket
import struct
import threading
import time

OBJ_KEYS = ("name", "rv", "labels", "namespace", "generation", "pad")


class ScenarioError(Exception):
    pass


def parse_obj(spec, default_ns):
    """"name@rv" or {"name", "rv", "labels", "namespace"} -> (meta fields)."""
    if isinstance(spec, str):
        name, _, rv = spec.partition("@")
        return {"name": name, "rv": rv, "namespace": default_ns}
    o = dict(spec)
    for k in o:
        if k not in OBJ_KEYS:
            raise ScenarioError("unknown object member %r" % k)
    o.setdefault("namespace", default_ns)
    o["rv"] = str(o.get("rv", ""))
    return o


class Script:
    def __init__(self, path, rt_lookup, log_path):
        with open(path) as f:
            self.doc = json.load(f)
        d = self.doc
        self.rt = rt_lookup(d.get("resource", "pods"))
        if self.rt is None:
            raise ScenarioError("unknown resource %r" % d.get("resource"))
        self.ns = d.get("namespace", "default") if self.rt.namespaced else ""
        self.queues = {k: list(d.get(k, [])) for k in ("list", "watch", "watchlist")}
        self.taken = {k: 0 for k in self.queues}
        fin = d.get("final")
        if fin is None:
            raise ScenarioError("the script has no \"final\" state")
        self.final_rv = str(fin["rv"])
        self.final_items = fin.get("items", [])
        self.lock = threading.Lock()
        self.seq = 0
        self.log = open(log_path, "a", buffering=1)

    def handles(self, route):
        return route.get("rt") is self.rt and route.get("name") is None \
            and route["verb"] in ("list", "watch")

    def take(self, kind):
        """The next answer for a request of this kind, and its label."""
        q = self.queues[kind]
        if q:
            self.taken[kind] += 1
            return q.pop(0), "%s#%d" % (kind, self.taken[kind])
        return None, "final"

    def record(self, rec):
        with self.lock:
            self.seq += 1
            rec = dict(rec, n=self.seq, t=round(time.time(), 3))
            self.log.write(json.dumps(rec, separators=(",", ":"), sort_keys=True) + "\n")
            return self.seq

    # ------------------------------------------------------------ rendering
    def obj(self, spec, wire):
        o = parse_obj(spec, self.ns)
        meta = {}
        if o.get("name"):
            meta["name"] = o["name"]
        if self.rt.namespaced and o.get("namespace"):
            meta["namespace"] = o["namespace"]
        meta["uid"] = "uid-%s-%s" % (o.get("namespace") or "", o.get("name") or "")
        meta["resourceVersion"] = o["rv"]
        meta["creationTimestamp"] = "2026-01-01T00:00:00Z"
        if o.get("labels"):
            meta["labels"] = o["labels"]
        if o.get("generation"):
            meta["generation"] = o["generation"]
        if o.get("pad"):
            # an annotation of that many bytes: an object as large as wanted
            meta["annotations"] = {"pad": "x" * int(o["pad"])}
        d = {}
        if wire:
            d = {"apiVersion": self.rt.api_version, "kind": self.rt.kind}
        d["metadata"] = meta
        if self.rt.kind == "Pod":
            d["spec"] = {"containers": [{"name": "c", "image": "busybox"}]}
            d["status"] = {"phase": "Running"}
        elif self.rt.kind == "ConfigMap":
            d["data"] = {"k": o["rv"]}
        return d

    def list_body(self, a):
        meta = {"resourceVersion": str(a["rv"])}
        if a.get("continue"):
            meta["continue"] = a["continue"]
        if "remainingItemCount" in a:
            meta["remainingItemCount"] = a["remainingItemCount"]
        body = {"kind": self.rt.list_kind, "apiVersion": self.rt.api_version, "metadata": meta,
                "items": [self.obj(i, False) for i in a.get("items", [])]}
        return json.dumps(body, separators=(",", ":")).encode() + b"\n"

    def bookmark(self, rv, end):
        meta = {"resourceVersion": str(rv)}
        if end:
            meta["annotations"] = {"k8s.io/initial-events-end": "true"}
        return {"type": "BOOKMARK", "object": {"kind": self.rt.kind, "apiVersion": self.rt.api_version,
                                               "metadata": meta}}

    def event(self, e):
        t = e["type"]
        if t == "BOOKMARK":
            return self.bookmark(e["rv"], e.get("initialEventsEnd", False))
        if t == "ERROR":
            st = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                  "message": e.get("message", "too old resource version"),
                  "reason": e.get("reason", "Expired"), "code": e.get("status", 410)}
            return {"type": "ERROR", "object": st}
        return {"type": t, "object": self.obj(e["object"], True)}

    def events(self, a):
        """The events of a watch answer; "initial" + "rv" is shorthand for a
        streaming list's ADDED events and its end bookmark."""
        out = [{"type": "ADDED", "object": i} for i in a.get("initial", [])]
        if "initial" in a:
            out.append({"type": "BOOKMARK", "rv": a["rv"], "initialEventsEnd": True})
        return out + list(a.get("events", []))

    def final_answer(self, kind):
        if kind == "list":
            return {"items": self.final_items, "rv": self.final_rv}
        if kind == "watchlist":
            return {"initial": self.final_items, "rv": self.final_rv, "then": "hang"}
        return {"events": [], "then": "hang"}


SIOCOUTQ = 0x5411  # Linux: bytes in the send queue not yet acknowledged


def drained(sock, limit=2.0):
    """Wait (up to `limit` s) until the peer has acknowledged every byte
    sent.  An RST throws away what is still in the send queue (and Nagle
    holds a small segment back while one is unacknowledged): without the
    wait, whether the client sees the events sent before a reset would be
    a race, decided by its delayed ACK."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            left = struct.unpack("i", fcntl.ioctl(sock.fileno(), SIOCOUTQ, b"\0\0\0\0"))[0]
        except OSError:
            return
        if left == 0:
            return
        time.sleep(0.002)


def _proc_addr(addr):
    """An IPv4 (host, port) as /proc/net/tcp writes it: 0100007F:1F90."""
    a, b, c, d = (int(x) for x in addr[0].split("."))
    return "%02X%02X%02X%02X:%04X" % (d, c, b, a, addr[1])


def read_by_peer(sock, limit=5.0):
    """Wait (up to `limit` s) until a peer on this machine has read every
    byte it received: its socket's rx_queue in /proc/net/tcp is 0.  A peer
    that meets data and the RST in one wake-up may drop the data (nghttpx,
    the HTTP/2 front end, does under load): whether it forwarded the events
    sent before a reset was a race, decided by when it was scheduled."""
    try:
        mine, peer = sock.getsockname(), sock.getpeername()
        if not peer[0].startswith("127."):
            return
        want = (_proc_addr(peer), _proc_addr(mine))
    except (OSError, ValueError):
        return
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            with open("/proc/net/tcp") as f:
                rows = [line.split() for line in f]
        except OSError:
            return
        row = next((r for r in rows if len(r) > 4 and (r[1], r[2]) == want), None)
        if row is None or int(row[4].split(":")[1], 16) == 0:
            return
        time.sleep(0.002)


def reset(sock):
    """Close with a TCP RST: what a client sees as 'connection reset by peer',
    after every byte already sent has reached the client and, on this
    machine, been read by it."""
    drained(sock)
    read_by_peer(sock)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass
