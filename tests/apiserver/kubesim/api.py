"""The kube-apiserver HTTP(S) front: discovery, list, watch, get and a few
mutations, with authentication, authorisation and injected faults.

DESIGN: one thread per connection (ThreadingHTTPServer).  A watch occupies
its connection's thread for its lifetime: it waits on the store's condition
for new events, a due bookmark, its deadline or a drop request (set by the
control interface, which may also shut the socket down under it for an
abrupt drop).  Responses are written with sendall on the raw (or TLS) socket;
the store lock is never held while writing.
"""

import base64
import email.utils
import gzip
import json
import random
import select
import socket
import ssl
import sys
import traceback
import time
import uuid
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit, parse_qsl, unquote

from . import rtypes, scenario, tables
from .selectors import SelectorError, parse_labels, parse_fields, match_labels, match_fields
from .sim import Fault, NotFound, Conflict

PHRASES = {200: "OK", 201: "Created", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
           404: "Not Found", 405: "Method Not Allowed", 406: "Not Acceptable", 409: "Conflict",
           410: "Gone", 415: "Unsupported Media Type", 422: "Unprocessable Entity",
           429: "Too Many Requests", 500: "Internal Server Error", 503: "Service Unavailable",
           504: "Gateway Timeout"}
REASONS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
           405: "MethodNotAllowed", 406: "NotAcceptable", 409: "AlreadyExists", 410: "Expired",
           415: "UnsupportedMediaType", 422: "Invalid", 429: "TooManyRequests",
           500: "InternalError", 503: "ServiceUnavailable", 504: "Timeout"}
CONTINUE_EXPIRED = (
    "The provided continue parameter is too old to display a consistent list result. You can "
    "start a new list without the continue parameter, or use the continue token in this response "
    "to retrieve the remainder of the results. Continuing with the provided token results in an "
    "inconsistent list - objects that were created, modified, or deleted between the time the "
    "first chunk was returned and now may show up in the list.")
GZIP_THRESHOLD = 128 * 1024
BATCH = 1 << 20
FLOWSCHEMA_UID = str(uuid.uuid4())
PRIORITY_UID = str(uuid.uuid4())
TYPE_PFX = {t: ('{"type":"%s","object":' % t).encode() for t in ("ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR")}


class HTTPError(Exception):
    def __init__(self, code, message, reason=None, details=None, headers=(), metadata=None):
        super().__init__(message)
        self.code, self.message = code, message
        # reason "": none at all (an error the apiserver did not convert)
        self.reason = REASONS.get(code, "Unknown") if reason is None else reason
        self.details, self.headers, self.metadata = details, list(headers), metadata


def not_a_verb_error(rt, verb):
    """What the apiserver answers a verb the type does not serve (--verbs)."""
    if verb == "watch":
        return HTTPError(405, 'watch is not supported on resources of kind "%s"' % rt.name,
                         reason="MethodNotAllowed", details={"kind": rt.name})
    if verb == "list":
        return HTTPError(405, "the server does not allow this method on the requested resource",
                         reason="MethodNotAllowed", details={})
    return HTTPError(404, "the server could not find the requested resource", details={})


class ClientGone(Exception):
    pass


def status_json(code, message, reason=None, details=None, metadata=None):
    d = {"kind": "Status", "apiVersion": "v1", "metadata": metadata or {}, "status": "Failure",
         "message": message}
    reason = REASONS.get(code, "Unknown") if reason is None else reason
    if reason:
        d["reason"] = reason
    if details is not None:
        d["details"] = details
    d["code"] = code
    return json.dumps(d, separators=(",", ":")).encode() + b"\n"


def too_large(rv, cur, retry):
    """What the apiserver answers for a resourceVersion above its current one
    (k8s.io/apiserver storage.NewTooLargeResourceVersionError): 504 Timeout
    with the ResourceVersionTooLarge cause; retry 1 from the watch cache, 0
    (no retryAfterSeconds, no Retry-After) from etcd."""
    det = {"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}]}
    headers = []
    if retry:
        det["retryAfterSeconds"] = retry
        headers.append("Retry-After: %d" % retry)
    return HTTPError(504, "Timeout: Too large resource version: %d, current: %d" % (rv, cur),
                     reason="Timeout", details=det, headers=headers)


def future_rev(rv, cur, as_too_large):
    """A read from etcd at a revision it doesn't have yet (a limited list with
    resourceVersionMatch unset or Exact, an Exact list, a continue token):
    1.28 passes etcd's error on unconverted, a 500 without a reason; 1.34+
    makes it a TooLarge error without retry."""
    if as_too_large:
        return too_large(rv, cur, 0)
    return HTTPError(500, "etcdserver: mvcc: required revision is a future revision", reason="")


def encode_continue(rv, start):
    tok = json.dumps({"v": "meta.k8s.io/v1", "rv": rv, "start": start + "\x00"}, separators=(",", ":"))
    return base64.urlsafe_b64encode(tok.encode()).rstrip(b"=").decode()


def decode_continue(tok):
    try:
        raw = base64.urlsafe_b64decode(tok + "=" * (-len(tok) % 4))
        d = json.loads(raw)
        if d.get("v") != "meta.k8s.io/v1":
            raise ValueError("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
        rv = int(d["rv"])
        start = d["start"]
        if rv == 0 or not isinstance(start, str) or ".." in start or start.startswith("/"):
            raise ValueError("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
        return rv, start.rstrip("\x00")
    except ValueError as e:
        if str(e).startswith("continue key"):
            raise
        raise ValueError("continue key is not valid: %s" % e)
    except Exception as e:  # noqa: BLE001
        raise ValueError("continue key is not valid: %s" % e)


def raw_shutdown(sock):
    """Tear the TCP connection down under any thread using it (no TLS alert)."""
    try:
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:
        pass


def client_gone(sock):
    try:
        r, _, _ = select.select([sock], [], [], 0)
    except (ValueError, OSError):
        return True
    if not r:
        return False
    try:
        data = socket.socket.recv(sock, 1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except (BlockingIOError, InterruptedError):
        return False
    except OSError:
        return True
    if not data:
        return True
    if isinstance(sock, ssl.SSLSocket):
        # A TLS record from a client in the middle of a streamed response is
        # its close_notify, unless it is a key update or such.
        try:
            sock.settimeout(0.05)
            x = sock.recv(1)
            return x == b""
        except (ssl.SSLWantReadError, socket.timeout):
            return False
        except OSError:
            return True
        finally:
            try:
                sock.settimeout(None)
            except OSError:
                pass
    return False


class Watch:
    __slots__ = ("id", "rs", "pos", "allow_bm", "drop", "bm_now", "sock", "user", "started", "resource", "sent",
                 "min_rv")

    def __init__(self, rs, allow_bm, sock, user):
        self.id = uuid.uuid4().hex[:8]
        self.rs = rs
        self.pos = 0
        self.allow_bm = allow_bm
        self.drop = None
        self.bm_now = False
        self.sock = sock
        self.user = user
        self.started = time.time()
        self.resource = rs.rt.key
        self.sent = 0
        self.min_rv = 0     # from a resourceVersion above the current one: send nothing up to it


# ------------------------------------------------------------------ discovery
def discovery_docs():
    docs = {}
    groups = rtypes.groups()
    docs["/api"] = {"kind": "APIVersions", "versions": ["v1"],
                    "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:6443"}]}
    glist = []
    for g, v, types in groups:
        res = []
        for t in types:
            res.append(t.discovery())
            if t.name in ("pods", "deployments", "namespaces", "nodes"):
                res.append({"name": t.name + "/status", "singularName": "", "namespaced": t.namespaced,
                            "kind": t.kind, "verbs": ["get", "patch", "update"]})
            if t.name == "pods":
                res.append({"name": "pods/log", "singularName": "", "namespaced": True, "kind": "Pod", "verbs": ["get"]})
            if t.name == "deployments":
                res.append({"name": "deployments/scale", "singularName": "", "namespaced": True,
                            "group": "autoscaling", "version": "v1", "kind": "Scale", "verbs": ["get", "patch", "update"]})
        gv = (g + "/" + v) if g else v
        docs[("/apis/" + gv) if g else "/api/v1"] = {"kind": "APIResourceList", "apiVersion": "v1",
                                                      "groupVersion": gv, "resources": res}
        if g:
            gd = {"name": g, "versions": [{"groupVersion": gv, "version": v}],
                  "preferredVersion": {"groupVersion": gv, "version": v}}
            glist.append(gd)
            docs["/apis/" + g] = dict({"kind": "APIGroup", "apiVersion": "v1"}, **gd)
    docs["/apis"] = {"kind": "APIGroupList", "apiVersion": "v1", "groups": glist}
    docs["/version"] = {"major": "1", "minor": "28", "gitVersion": "v1.28.15",
                        "gitCommit": "841856557ef0f6a399096c42635d114d6f2cf7f4", "gitTreeState": "clean",
                        "buildDate": "2024-10-22T20:28:14Z", "goVersion": "go1.22.8", "compiler": "gc",
                        "platform": "linux/amd64"}
    out = {}
    for k, v in docs.items():
        if k == "/api/v1" and "apiVersion" in v:
            v = {"kind": v["kind"], "groupVersion": v["groupVersion"], "resources": v["resources"]}
        out[k] = json.dumps(v, separators=(",", ":")).encode() + b"\n"
    return out


def aggregated_subresources(t):
    """The subresources the legacy documents list for t, in the aggregated form."""
    subs = []
    if t.name in ("pods", "deployments", "namespaces", "nodes"):
        subs.append({"subresource": "status", "verbs": ["get", "patch", "update"],
                     "responseKind": {"group": t.group, "version": t.version, "kind": t.kind}})
    if t.name == "pods":
        subs.append({"subresource": "log", "verbs": ["get"],
                     "responseKind": {"group": "", "version": "v1", "kind": "Pod"}})
    if t.name == "deployments":
        subs.append({"subresource": "scale", "verbs": ["get", "patch", "update"],
                     "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"}})
    return subs


def aggregated_accept(accept, served):
    """The aggregated discovery version to answer with for an Accept header:
    the first media type of the client's that is an APIGroupDiscoveryList
    of a version in `served`, unless plain JSON comes first; else None."""
    for media in accept.split(","):
        parts = [p.strip() for p in media.split(";")]
        params = dict(p.split("=", 1) for p in parts[1:] if "=" in p)
        if parts[0] not in ("application/json", "*/*", "application/*"):
            continue
        if params.get("as") != "APIGroupDiscoveryList":
            return None
        if params.get("g") == "apidiscovery.k8s.io" and params.get("v") in served:
            return params["v"]
    return None


PARTIAL_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"


def partial_accept(accept):
    """Whether an Accept header asks for a LIST as a PartialObjectMetadataList
    (meta.k8s.io v1, as controller-runtime's metadata informers ask) before
    plain JSON, as the apiserver's negotiation reads it."""
    for media in (accept or "").split(","):
        parts = [p.strip() for p in media.split(";")]
        params = dict(p.split("=", 1) for p in parts[1:] if "=" in p)
        if parts[0] not in ("application/json", "*/*", "application/*"):
            continue
        if "as" not in params:
            return False
        if (params["as"] == "PartialObjectMetadataList" and params.get("g") == "meta.k8s.io"
                and params.get("v") == "v1"):
            return True
    return False


def partial_item(data):
    """A stored list item as the apiserver's PartialObjectMetadata: its
    metadata only (managedFields included), under meta.k8s.io's kind."""
    meta = json.loads(data).get("metadata") or {}
    return (b'{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":'
            + json.dumps(meta, separators=(",", ":")).encode() + b"}")


def aggregated_discovery(legacy):
    """An APIGroupDiscoveryList's items (v2 and v2beta1 alike) for /api or /apis."""
    items = []
    for g, v, types in rtypes.groups():
        if (g == "") != legacy:
            continue
        res = []
        for t in types:
            r = {"resource": t.name, "responseKind": {"group": t.group, "version": t.version, "kind": t.kind},
                 "scope": "Namespaced" if t.namespaced else "Cluster", "singularResource": t.singular,
                 "verbs": t.verbs}
            if t.short:
                r["shortNames"] = t.short
            if t.categories:
                r["categories"] = t.categories
            subs = aggregated_subresources(t)
            if subs:
                r["subresources"] = subs
            res.append(r)
        items.append({"metadata": {"name": g, "creationTimestamp": None},
                      "versions": [{"version": v, "resources": res, "freshness": "Current"}]})
    return items


# ------------------------------------------------------------------ the server
class ReusableServer(ThreadingHTTPServer):
    """A server whose port a restart can take again.

    Linux lets a new socket bind a port held by old connections (in
    TIME_WAIT, or closing) only if both the new socket and the old ones
    carry SO_REUSEADDR; accepted connections inherit it from the listener.
    So the listener sets it always, but for port 0 only after bind: with
    it set first, Linux may pick a port a client's connection in TIME_WAIT
    holds, and listen() then fails with EADDRINUSE (seen under a loaded
    suite).  Bound first, the port chosen is free of every socket."""
    daemon_threads = True
    allow_reuse_address = False

    def server_bind(self):
        if self.server_address[1] != 0:
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        super().server_bind()
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)


def lingering_close(sock):
    """Closes a connection whose handshake failed once the client has read
    the alert and closed its side (a second at most).  A TLS 1.3 client
    that sent a certificate the server refuses takes its handshake as done
    and sends its request: closed at once, the socket would answer that
    request with a reset, which on loopback can come before the client
    reads the alert, and its error would be the reset's, not the alert's.
    Across a network the alert is on its way first."""
    try:
        sock.shutdown(socket.SHUT_WR)
        sock.settimeout(1)
        while sock.recv(4096):
            pass
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass


class APIServer(ReusableServer):
    request_queue_size = 256

    def __init__(self, addr, sim, ssl_ctx=None):
        self.sim = sim
        self.ssl_ctx = ssl_ctx
        self.discovery = discovery_docs()
        super().__init__(addr, APIHandler)

    def finish_request(self, request, client_address):
        sock = request
        # Go's net/http (so the apiserver) sets TCP_NODELAY on every
        # connection; socketserver does not.  Without it a response's
        # head waits for the client's delayed ACK of the TLS session
        # tickets: 40 ms on every request, which is not the cluster's.
        try:
            request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass
        if self.ssl_ctx is not None:
            try:
                request.settimeout(15)
                sock = self.ssl_ctx.wrap_socket(request, server_side=True,
                                                do_handshake_on_connect=False)
                sock.do_handshake()
                sock.settimeout(None)
            except (OSError, ssl.SSLError):
                lingering_close(sock)
                return
        try:
            APIHandler(sock, client_address, self)
        finally:
            if sock is not request:
                try:
                    sock.close()
                except OSError:
                    pass

    def handle_error(self, request, client_address):
        pass


class APIHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "kube-sim"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.handle_api("GET")

    def do_POST(self):
        self.handle_api("POST")

    def do_PUT(self):
        self.handle_api("PUT")

    def do_PATCH(self):
        self.handle_api("PATCH")

    def do_DELETE(self):
        self.handle_api("DELETE")

    # -------------------------------------------------------------- plumbing
    def head(self, code, headers=(), ctype="application/json"):
        lines = ["HTTP/1.1 %d %s" % (code, PHRASES.get(code, "Unknown")),
                 "Audit-Id: " + self.audit_id,
                 "Cache-Control: no-cache, private"]
        if ctype:
            lines.append("Content-Type: " + ctype)
        lines.append("Date: " + email.utils.formatdate(usegmt=True))
        if code != 401:
            lines += ["X-Kubernetes-Pf-Flowschema-Uid: " + FLOWSCHEMA_UID,
                      "X-Kubernetes-Pf-Prioritylevel-Uid: " + PRIORITY_UID]
        lines += list(headers)
        w = self.server.sim.warnings
        if w["values"] and self.entry is not None and w["resource"] in (None, self.entry["resource"]):
            lines += ["Warning: " + v for v in w["values"]]
        self.connection.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        if self.entry is not None:
            self.entry["status"] = code

    def send(self, code, body, headers=(), ctype="application/json"):
        headers = list(headers)
        if (len(body) >= GZIP_THRESHOLD and "gzip" in self.headers.get("Accept-Encoding", "")):
            body = gzip.compress(body, 1)
            headers.append("Content-Encoding: gzip")
        headers.append("Content-Length: %d" % len(body))
        if self.fault and self.fault.kind == "drip":
            self.head(code, headers, ctype)
            self.drip(body, self.fault.seconds or 5.0)
            return
        self.head(code, headers, ctype)
        self.connection.sendall(body)

    def drip(self, body, seconds):
        steps = max(1, int(seconds / 0.05))
        size = max(4, -(-len(body) // steps))
        for i in range(0, len(body), size):
            self.connection.sendall(body[i:i + size])
            if i + size < len(body):
                time.sleep(seconds / steps)

    def send_error_status(self, e):
        self.send(e.code, status_json(e.code, e.message, e.reason, e.details, e.metadata), e.headers)

    def send_stream(self, parts, ctype="application/json"):
        """Large body from an iterable of byte strings: chunked, gzip if asked."""
        gz = "gzip" in self.headers.get("Accept-Encoding", "")
        headers = ["Transfer-Encoding: chunked"]
        if gz:
            headers.append("Content-Encoding: gzip")
        self.head(200, headers, ctype)
        comp = zlib.compressobj(1, zlib.DEFLATED, 31) if gz else None
        sock = self.connection
        buf, n = [], 0
        for p in parts:
            buf.append(p)
            n += len(p)
            if n >= BATCH:
                self.write_chunk(b"".join(buf), comp)
                buf, n = [], 0
        if buf:
            self.write_chunk(b"".join(buf), comp)
        if comp is not None:
            tail = comp.flush()
            if tail:
                sock.sendall(b"%x\r\n%s\r\n" % (len(tail), tail))
        sock.sendall(b"0\r\n\r\n")

    def write_chunk(self, data, comp=None):
        if comp is not None:
            data = comp.compress(data)
            if not data:
                return
        self.connection.sendall(b"".join((b"%x\r\n" % len(data), data, b"\r\n")))

    def wait_gone(self, seconds):
        """Send nothing for `seconds` or until the client goes away."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if client_gone(self.connection):
                return
            time.sleep(min(0.05, max(0.0, end - time.monotonic())))

    # -------------------------------------------------------------- dispatch
    def handle_api(self, method):
        sim = self.server.sim
        self.audit_id = str(uuid.uuid4())
        self.entry = None
        self.fault = None
        u = urlsplit(self.path)
        path = u.path.rstrip("/") or "/"
        q = {}
        for k, v in parse_qsl(u.query, keep_blank_values=True):
            q.setdefault(k, v)
        body = b""
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            body = self.rfile.read(n)
        self.query = q
        try:
            route = self.route(method, path, q)
        except HTTPError as e:
            route = {"verb": "unknown", "error": e}
        user = self.authenticate()
        if user is None and sim.script is not None:
            user = "admin"  # scripted runs test the informer, not authentication
        hdrs = {}
        for h in ("Accept", "Accept-Encoding", "Content-Type", "User-Agent", "Referer"):
            if self.headers.get(h) is not None:
                hdrs[h] = self.headers.get(h)
        auth = self.headers.get("Authorization")
        if auth:
            hdrs["Authorization"] = auth.split(" ", 1)[0] + " <redacted>"
            basic_user = self.basic_user(auth)
            if basic_user is not None:  # the user, never the password
                hdrs["Authorization"] = "Basic %s:<redacted>" % basic_user
        imp = [[k, v] for k, v in self.headers.items() if k.lower().startswith("impersonate-")]
        if imp:
            hdrs["Impersonate"] = imp   # each line as sent, in order
        rt = route.get("rt")
        self.entry = {"time": time.time(), "method": method, "path": u.path, "query": q,
                      "verb": route["verb"], "resource": rt.key if rt else None,
                      "namespace": route.get("ns") or None, "name": route.get("name"),
                      "status": 0, "user": user, "userAgent": self.headers.get("User-Agent", ""),
                      "headers": hdrs}
        with sim.lock:
            sim.reqlog.append(self.entry)
            sim.verb_counts[route["verb"]] += 1
        if sim.script is not None and sim.script.handles(route):
            self.serve_scripted(route, q, u)
            return
        try:
            if user is None:
                raise HTTPError(401, "Unauthorized")
            user, groups = self.impersonate(user)
            if "error" in route:
                raise route["error"]
            verbs = {route["verb"]}
            if route["verb"] == "list" and q.get("continue"):
                verbs.add("list-continue")
            if route["verb"] == "watch" and q.get("sendInitialEvents") in ("true", "1", "True"):
                verbs.add("watchlist")
            f = sim.take_fault(verbs, rt.key if rt else None)
            if f is not None:
                self.fault = f
                if self.apply_fault(f, route):
                    return
            if route["verb"] != "discovery" and user not in sim.admins and "system:masters" not in groups:
                raise self.forbidden(user, route)
            if rt is not None and route["verb"] in ("get", "list", "watch") and route["verb"] not in rt.verbs:
                raise not_a_verb_error(rt, route["verb"])
            getattr(self, "serve_" + route["verb"])(route, q, body)
        except HTTPError as e:
            try:
                self.send_error_status(e)
            except OSError:
                self.close_connection = True
        except (OSError, ClientGone):
            self.close_connection = True
        except Exception:  # noqa: BLE001 - a bug: say so, answer 500
            traceback.print_exc(file=sys.stderr)
            sys.stderr.flush()
            self.close_connection = True
            try:
                self.send_error_status(HTTPError(500, "Internal error occurred: kube-sim bug, see its log"))
            except Exception:  # noqa: BLE001
                pass

    # -------------------------------------------------------------- --scenario
    def serve_scripted(self, route, q, u):
        """A list or watch of the scripted resource: the script's next answer
        for its kind (see scenario.py); nothing else of kube-sim applies."""
        sc = self.server.sim.script
        kind = route["verb"]
        if kind == "watch" and q.get("sendInitialEvents") in ("true", "1", "True"):
            kind = "watchlist"
        with sc.lock:
            a, label = sc.take(kind)
        if a is None:
            a = sc.final_answer(kind)
        then = a.get("then", "close")
        # Held: where a client may come to rest.  Not a watch that told of
        # an ERROR: every client ends it (client-go's watch handler returns
        # the error), though over HTTP/2 it may say so only later.
        # Nor one with a line written raw (a RAW event): a client that
        # cannot decode it ends the watch, as it would on an ERROR.
        ended = any(e.get("type") in ("ERROR", "RAW") for e in a.get("events", ()))
        n = sc.record({"method": self.command, "path": u.path, "query": u.query, "kind": kind,
                       "answer": label, "accept": self.headers.get("Accept", ""),
                       "held": "status" not in a and not a.get("reset") and kind != "list"
                       and then == "hang" and not ended})
        try:
            if a.get("reset"):
                self.close_connection = True
                scenario.reset(self.connection)
            elif "status" in a:
                self.scripted_status(a)
            elif kind == "list" and (a.get("freeze") or a.get("goaway")):
                # no answer; the runner freezes the client's connection,
                # or has the front end send GOAWAY and close it
                sc.record({"freeze" if a.get("freeze") else "goaway": True})
                self.wait_gone(1e9)
                self.close_connection = True
            elif kind == "list" and "body" in a:
                # as written, what no apiserver sends: no JSON, no list...
                self.send(200, a["body"].encode())
            elif kind == "list" and a.get("cut"):
                self.scripted_cut_list(*self.scripted_packing(sc.list_body(a), a), a["cut"])
            elif kind == "list" and a.get("gzip"):
                body, headers = self.scripted_packing(sc.list_body(a), a)
                self.head(200, headers + ["Content-Length: %d" % len(body)])
                self.connection.sendall(body)
            elif kind == "list":
                self.send(200, sc.list_body(a))
            else:
                self.scripted_watch(sc, a, then, n)
        except OSError:
            self.close_connection = True

    def scripted_status(self, a):
        code = a["status"]
        headers = []
        details = a.get("details")
        if a.get("tooLarge"):
            details = {"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}]}
        ra = a.get("retryAfter")
        if isinstance(ra, str):
            # written as given: an HTTP date, which client-go does not take
            headers.append("Retry-After: %s" % ra)
        elif ra is not None:
            headers.append("Retry-After: %d" % ra)
            details = dict(details or {}, retryAfterSeconds=ra)
        if a.get("location"):
            # "same": the request's own path and query, asked again
            headers.append("Location: %s" % (self.path if a["location"] == "same" else a["location"]))
        msg = a.get("message") or {401: "Unauthorized", 404: "the server could not find the requested resource",
                                   410: "too old resource version", 429: "Too many requests, please try again later.",
                                   504: "Timeout: Too large resource version"}.get(code, "scripted failure")
        self.send(code, status_json(code, msg, a.get("reason"), details), headers)

    def scripted_packing(self, body, a):
        """A LIST page's body as the answer packs it, and its headers:
        "gzip": true, gzip as the apiserver packs a large one (if the client
        asked for it); "bad", said to be gzip and not."""
        how = a.get("gzip")
        if not how or "gzip" not in self.headers.get("Accept-Encoding", ""):
            return body, []
        if how == "bad":
            return body, ["Content-Encoding: gzip"]
        if how is not True:
            raise scenario.ScenarioError("unknown \"gzip\": %r" % how)
        return gzip.compress(body, 1), ["Content-Encoding: gzip"]

    def scripted_cut_list(self, body, headers, how):
        """A LIST page's head and the first half of its body, then the
        connection closed ("close": an EOF before its Content-Length) or
        reset ("reset")."""
        self.head(200, headers + ["Content-Length: %d" % len(body)])
        self.connection.sendall(body[:len(body) // 2])
        self.close_connection = True
        if how == "reset":
            scenario.reset(self.connection)
        elif how != "close":
            raise scenario.ScenarioError("unknown \"cut\": %r" % how)

    def scripted_watch(self, sc, a, then, n):
        self.head(200, ["Transfer-Encoding: chunked"])
        for e in sc.events(a):
            if e["type"] == "RAW":
                # as written, what no apiserver sends: not JSON, an unknown type...
                line = e["line"].encode() + b"\n"
            else:
                line = json.dumps(sc.event(e), separators=(",", ":")).encode() + b"\n"
            self.write_chunk(line)
        if then == "close":
            self.connection.sendall(b"0\r\n\r\n")
        elif then == "reset":
            self.close_connection = True
            scenario.reset(self.connection)
        elif then in ("freeze", "goaway"):
            # Silence, and a record of it: the runner then freezes the
            # client's connection in its freeze-proxy (PINGs go unanswered),
            # or has the front end send GOAWAY and close it.
            sc.record({then: True})
            self.wait_gone(1e9)
            self.close_connection = True
        elif then.startswith("hang"):
            # "hang": until the client goes away; "hang:S": S seconds, then the end
            secs = float(then[5:]) if then.startswith("hang:") else 1e9
            self.wait_gone(secs)
            if secs < 1e9:
                self.connection.sendall(b"0\r\n\r\n")
            else:
                sc.record({"gone": n})
                self.close_connection = True
        else:
            raise scenario.ScenarioError("unknown \"then\": %r" % then)

    def route(self, method, path, q):
        if path in ("/healthz", "/livez", "/readyz", "/version", "/api", "/apis") or path.startswith("/openapi"):
            return {"verb": "discovery", "path": path}
        # each segment %-decoded, as the apiserver reads a name ("a%20b")
        parts = [unquote(p) for p in path.strip("/").split("/")]
        if parts[0] == "api" and len(parts) >= 2:
            group, version, rest = "", parts[1], parts[2:]
        elif parts[0] == "apis" and len(parts) >= 3:
            group, version, rest = parts[1], parts[2], parts[3:]
        elif parts[0] == "apis" and len(parts) == 2:
            return {"verb": "discovery", "path": path}
        else:
            raise HTTPError(404, "the server could not find the requested resource", details={})
        if not rest:
            return {"verb": "discovery", "path": path}
        if (group, version, rest[0]) == ("apiextensions.k8s.io", "v1", "customresourcedefinitions") \
                and method == "GET" and len(rest) <= 2:
            # read-only CRDs of the custom resources, for their printer columns
            return {"rt": tables.CRD_RT, "ns": "", "name": rest[1] if len(rest) == 2 else None,
                    "verb": "get" if len(rest) == 2 else "list", "crd": True}
        watch = q.get("watch") in ("1", "true", "True")
        if rest[0] == "watch":
            watch = True
            rest = rest[1:]
        ns = ""
        if len(rest) >= 3 and rest[0] == "namespaces" and rtypes.lookup(group, version, rest[2]):
            ns = rest[1]
            rest = rest[2:]
        if not rest:
            raise HTTPError(404, "the server could not find the requested resource", details={})
        rt = rtypes.lookup(group, version, rest[0])
        if rt is None:
            raise HTTPError(404, "the server could not find the requested resource", details={})
        name = rest[1] if len(rest) >= 2 else None
        sub = rest[2] if len(rest) >= 3 else None
        if ns and not rt.namespaced:
            raise HTTPError(404, "the server could not find the requested resource", details={})
        r = {"rt": rt, "ns": ns, "name": name, "sub": sub}
        if method == "GET":
            r["verb"] = "watch" if watch else ("get" if name else "list")
        elif method == "POST" and not name:
            r["verb"] = "create"
        elif method == "PUT" and name:
            r["verb"] = "update"
        elif method == "PATCH" and name:
            r["verb"] = "patch"
        elif method == "DELETE" and name:
            r["verb"] = "delete"
        else:
            raise HTTPError(405, "the server does not allow this method on the requested resource",
                            reason="MethodNotAllowed", details={})
        return r

    @staticmethod
    def basic_pair(auth):
        """The user name and password of a Basic Authorization header, or None."""
        if not auth.startswith("Basic "):
            return None
        try:
            plain = base64.b64decode(auth[6:].strip(), validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return None
        user, _, password = plain.partition(":")
        return user, password

    @classmethod
    def basic_user(cls, auth):
        pair = cls.basic_pair(auth)
        return pair[0] if pair else None

    def authenticate(self):
        sim = self.server.sim
        h = self.headers.get("Authorization")
        if h:
            if h.startswith("Bearer "):
                return sim.tokens.get(h[7:].strip())
            # Basic with a token for its password, as an authenticating
            # proxy in front of an apiserver may take it (the apiserver
            # itself has taken no Basic auth since 1.19).
            pair = self.basic_pair(h)
            return sim.tokens.get(pair[1]) if pair else None
        if isinstance(self.connection, ssl.SSLSocket):
            try:
                cert = self.connection.getpeercert()
            except (ValueError, OSError):
                cert = None
            if cert:
                for rdn in cert.get("subject", ()):
                    for k, v in rdn:
                        if k == "commonName":
                            return v
        return sim.anonymous

    def impersonate(self, user):
        """The user and groups the request acts as: its own, or those of the
        Impersonate-User and Impersonate-Group headers when an admin sends
        them (the apiserver's impersonation filter; anyone else is refused,
        in its words, as it refuses one who may not impersonate)."""
        as_user = self.headers.get("Impersonate-User")
        if as_user is None:
            return user, []
        if user not in self.server.sim.admins:
            raise HTTPError(403, 'users "%s" is forbidden: User "%s" cannot impersonate resource '
                            '"users" in API group "" at the cluster scope' % (as_user, user),
                            details={"name": as_user, "kind": "users"})
        return as_user, self.headers.get_all("Impersonate-Group") or []

    def forbidden(self, user, route):
        rt = route["rt"]
        verb = route["verb"]
        what = rt.name
        if route.get("name"):
            what = '%s "%s"' % (rt.gr, route["name"])
        elif rt.group:
            what = rt.gr
        scope = ('in the namespace "%s"' % route["ns"]) if route.get("ns") else "at the cluster scope"
        msg = '%s is forbidden: User "%s" cannot %s resource "%s" in API group "%s" %s' % (
            what, user, verb, rt.name, rt.group, scope)
        det = {"kind": rt.name}
        if route.get("name"):
            det = {"name": route["name"], "kind": rt.name}
        if rt.group:
            det["group"] = rt.group
        return HTTPError(403, msg, details=det)

    def not_found(self, rt, name):
        det = {"name": name, "kind": rt.name}
        if rt.group:
            det["group"] = rt.group
        return HTTPError(404, '%s "%s" not found' % (rt.gr, name), details=det)

    # -------------------------------------------------------------- faults
    def apply_fault(self, f, route):
        """Returns True when the fault replaced the response entirely."""
        k = f.kind
        verb = route["verb"]
        if k == "429":
            raise HTTPError(429, "Too many requests, please try again later.",
                            details={"retryAfterSeconds": f.retry_after},
                            headers=["Retry-After: %d" % f.retry_after])
        if k in ("500", "503", "504", "401", "403", "404"):
            code = int(k)
            msg = {500: "Internal error occurred: injected fault",
                   503: "the server is currently unable to handle the request",
                   504: "Timeout: request did not complete within the allotted timeout",
                   401: "Unauthorized", 403: "forbidden: injected fault",
                   404: "the server could not find the requested resource"}[code]
            det = {"causes": [{"message": "injected fault"}]} if code == 500 else None
            headers = []
            if code in (500, 503, 504):
                det, headers = f.retry_details(det)
            if code == 401:
                self.entry["user"] = None
            raise HTTPError(code, msg, details=det, headers=headers)
        if k == "body":
            self.send(f.status, f.body, ["Location: %s" % f.location] if f.location else [],
                      ctype=f.content_type)
            return True
        if k == "reset":
            self.close_connection = True
            raw_shutdown(self.connection)
            return True
        if k == "410" and verb != "watch":
            rv = self.server.sim.store.rv
            raise HTTPError(410, "too old resource version: %s (%d)" % (self.query.get("resourceVersion") or "1", rv))
        if k == "hang" and verb != "watch":
            self.close_connection = True
            self.wait_gone(f.seconds if f.seconds is not None else 3600)
            raw_shutdown(self.connection)
            return True
        return False   # truncate, garbage, drip, watch 410/hang and the watch-only kinds: in the serve_ functions

    # -------------------------------------------------------------- discovery
    def serve_discovery(self, route, q, body):
        path = route["path"]
        srv = self.server
        if path in ("/healthz", "/livez", "/readyz"):
            return self.send(200, b"ok", ctype="text/plain; charset=utf-8")
        if path.startswith("/openapi"):
            raise HTTPError(404, "the server could not find the requested resource", details={})
        accept = self.headers.get("Accept", "")
        served = (self.server.sim.opts.aggregated_discovery or "").split(",")
        version = aggregated_accept(accept, served) if path in ("/api", "/apis") else None
        if version:
            doc = {"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/" + version,
                   "metadata": {}, "items": aggregated_discovery(path == "/api")}
            return self.send(200, json.dumps(doc, separators=(",", ":")).encode() + b"\n",
                             ctype="application/json;g=apidiscovery.k8s.io;v=%s;as=APIGroupDiscoveryList"
                             % version)
        doc = srv.discovery.get(path)
        if doc is None:
            raise HTTPError(404, "the server could not find the requested resource", details={})
        return self.send(200, doc)

    # -------------------------------------------------------------- get
    def serve_crd(self, route):
        crds = [tables.crd_for(t) for t in rtypes.TYPES if t.unstructured]
        if route["name"] is None:
            doc = {"kind": "CustomResourceDefinitionList", "apiVersion": "apiextensions.k8s.io/v1",
                   "metadata": {"resourceVersion": str(self.server.sim.store.rv)}, "items": crds}
        else:
            doc = next((c for c in crds if c["metadata"]["name"] == route["name"]), None)
            if doc is None:
                raise self.not_found(tables.CRD_RT, route["name"])
        self.send(200, json.dumps(doc, separators=(",", ":")).encode() + b"\n")

    def serve_get(self, route, q, body):
        if route.get("crd"):
            return self.serve_crd(route)
        rt = route["rt"]
        st = self.server.sim.store
        ns = route["ns"]
        if rt.namespaced and not ns:
            raise HTTPError(404, "the server could not find the requested resource", details={})
        obj = st.get(rt, st.key_of(rt, ns, route["name"]))
        if obj is None:
            raise self.not_found(rt, route["name"])
        data = rt.full(obj.data) + b"\n"
        tv = tables.wants_table(self.headers.get("Accept"))
        if tv and not self.fault:
            doc = tables.to_table(rt, [json.loads(data)], {"resourceVersion": str(obj.rv)},
                                  q.get("includeObject", "Metadata"), tv)
            data = json.dumps(doc, separators=(",", ":")).encode() + b"\n"
        if self.body_fault(data):
            return
        self.send(200, data)

    def body_fault(self, data):
        f = self.fault
        if f is None:
            return False
        if f.kind == "truncate":
            cut = data[:max(1, len(data) // 2)]
            self.close_connection = True
            self.head(200, ["Content-Length: %d" % len(cut), "Connection: close"])
            self.connection.sendall(cut)
            return True
        if f.kind == "garbage":
            junk = b"<html><body>502 Bad Gateway: this is not JSON</body></html>\n"
            self.head(200, ["Content-Length: %d" % len(junk)])
            self.connection.sendall(junk)
            return True
        return False

    # -------------------------------------------------------------- list
    def selectors(self, rt, q):
        try:
            lsel = parse_labels(q.get("labelSelector"))
            fsel = parse_fields(q.get("fieldSelector"), rt.fields)
        except SelectorError as e:
            raise HTTPError(400, str(e))
        return lsel, fsel

    def serve_list(self, route, q, body):
        if route.get("crd"):
            return self.serve_crd(route)
        sim = self.server.sim
        st = sim.store
        rt, ns = route["rt"], route["ns"]
        lsel, fsel = self.selectors(rt, q)
        try:
            limit = int(q.get("limit") or 0)
        except ValueError:
            raise HTTPError(400, 'limit: Invalid value: "%s": must be an integer' % q.get("limit"))
        limit = max(0, limit)
        cont = q.get("continue") or ""
        rv = q.get("resourceVersion", "")
        rvm = q.get("resourceVersionMatch", "")
        if rvm and rvm not in ("NotOlderThan", "Exact"):
            raise HTTPError(422, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "%s": '
                            'supported values: "Exact", "NotOlderThan", ""' % rvm)
        if rvm and not rv:
            raise HTTPError(422, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: '
                            'resourceVersionMatch is forbidden unless resourceVersion is provided')
        if rvm == "Exact" and rv == "0":
            raise HTTPError(422, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: '
                            'resourceVersionMatch "exact" is forbidden for resourceVersion "0"')
        if cont and rv and rv != "0":
            raise HTTPError(400, "specifying resource version is not allowed when using continue")
        if rv not in ("", "0"):
            try:
                R = int(rv)
                if R <= 0:
                    raise ValueError
            except ValueError:
                raise HTTPError(400, 'resourceVersion: Invalid value: "%s": must be a valid resource version' % rv)
        prefix = (ns + "/") if (ns and rt.namespaced) else ""

        def match(o):
            return match_labels(lsel, o.labels) and match_fields(fsel, o.fields)

        after = None
        if cont:
            try:
                crv, start = decode_continue(cont)
            except ValueError as e:
                raise HTTPError(400, str(e))
            after = prefix + start
        deadline = time.monotonic() + sim.opts.fresh_wait
        while True:
            with st.cond:
                rs = st.res[rt.key]
                cur = st.rv
                if cont:
                    if crv == -1:
                        snap = cur
                    elif crv > cur:
                        # a token from before the resourceVersion went back
                        raise future_rev(crv, cur, sim.opts.future_rev_504)
                    elif crv < rs.floor:
                        start_rel = after[len(prefix):]
                        raise HTTPError(410, CONTINUE_EXPIRED,
                                        metadata={"continue": encode_continue(-1, start_rel)})
                    else:
                        snap = crv
                elif rv == "":
                    snap = cur
                elif rv == "0":
                    snap, limit = cur, 0
                    if sim.opts.watch_cache_rv:     # the type's own, not the store's
                        snap = rs.hist[-1].rv if rs.hist else min(rs.floor, cur)
                else:
                    R = int(rv)
                    exact = rvm == "Exact" or (rvm == "" and limit > 0)
                    if R > cur:
                        if exact:
                            # etcd, asked for that revision
                            raise future_rev(R, cur, sim.opts.future_rev_504)
                        if limit > 0:
                            # NotOlderThan with a limit: etcd at its latest revision, then checked
                            raise too_large(R, cur, 0)
                        # the watch cache waits for it (3 s, --fresh-wait)
                        if time.monotonic() < deadline:
                            st.cond.wait(0.1)
                            continue
                        raise too_large(R, cur, 1)
                    if exact:
                        if R < rs.floor:
                            raise HTTPError(410, "too old resource version: %d (%d)" % (R, rs.floor))
                        snap = R
                    else:
                        snap = cur
                items, last, remaining = st.collect(rs, ns, lsel, fsel, snap, after, limit, match)
            break
        meta = '"resourceVersion":"%d"' % snap
        if last is not None:
            meta += ',"continue":"%s"' % encode_continue(crv if (cont and crv == -1) else snap, last[len(prefix):])
            if not lsel and not fsel:
                meta += ',"remainingItemCount":%d' % remaining
        tv = tables.wants_table(self.headers.get("Accept"))
        if tv and not self.fault:
            objs = [json.loads(rt.full(o.data)) for o in items]
            doc = tables.to_table(rt, objs, json.loads("{" + meta + "}"), q.get("includeObject", "Metadata"), tv)
            return self.send(200, json.dumps(doc, separators=(",", ":")).encode() + b"\n")
        kind, api, ctype = rt.list_kind, rt.api_version, "application/json"
        datas = [o.data for o in items]
        if partial_accept(self.headers.get("Accept")):
            kind, api, ctype = "PartialObjectMetadataList", "meta.k8s.io/v1", PARTIAL_LIST
            datas = [partial_item(d) for d in datas]
        head = ('{"kind":"%s","apiVersion":"%s","metadata":{%s},"items":['
                % (kind, api, meta)).encode()
        f = self.fault
        total = sum(len(d) for d in datas) + len(datas) + len(head) + 3
        if f is not None and f.kind in ("truncate", "garbage", "drip") or total < 4 * BATCH:
            data = b"".join((head, b",".join(datas), b"]}\n"))
            if self.body_fault(data):
                return
            self.send(200, data, ctype=ctype)
            return

        def parts():
            yield head
            first = True
            for d in datas:
                if first:
                    first = False
                else:
                    yield b","
                yield d
            yield b"]}\n"
        self.send_stream(parts(), ctype)

    # -------------------------------------------------------------- watch
    def serve_watch(self, route, q, body):
        sim = self.server.sim
        st = sim.store
        rt, ns = route["rt"], route["ns"]
        lsel, fsel = self.selectors(rt, q)
        if route.get("name"):
            fsel = fsel + [("metadata.name", "=", route["name"])]
        try:
            timeout = int(q["timeoutSeconds"]) if q.get("timeoutSeconds") else random.randint(1800, 3600)
        except ValueError:
            raise HTTPError(400, "invalid timeoutSeconds")
        allow_bm = q.get("allowWatchBookmarks") in ("true", "1", "True")
        sie = q.get("sendInitialEvents")
        sie = None if sie in (None, "") else sie in ("true", "1", "True")
        rvm = q.get("resourceVersionMatch", "")
        rv = q.get("resourceVersion", "")
        errs = []
        if sie is not None:
            if not sim.watch_list:
                errs.append("sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled")
            else:
                if rvm != "NotOlderThan":
                    errs.append("resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
                if sie and not allow_bm:
                    errs.append("allowWatchBookmarks: Forbidden: sendInitialEvents requires allowWatchBookmarks=true")
        elif rvm:
            errs.append("resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")
        if errs:
            raise HTTPError(422, 'ListOptions.meta.k8s.io "" is invalid: ' +
                            ("[%s]" % ", ".join(errs) if len(errs) > 1 else errs[0]))
        R = 0
        if rv not in ("", "0"):
            try:
                R = int(rv)
                if R < 0:
                    raise ValueError
            except ValueError:
                raise HTTPError(400, 'resourceVersion: Invalid value: "%s": must be a valid resource version' % rv)
        initial = sie if sie is not None else rv in ("", "0")
        filtered = bool(lsel or fsel)
        f = self.fault
        w = Watch(st.res[rt.key], allow_bm, self.connection, self.entry.get("user"))
        error = None        # the Status of a lone ERROR event
        snapshot = []
        if sie and R and not (f is not None and f.kind == "410"):
            # A streaming list waits up to 3 s (--fresh-wait) for the watch cache to reach
            # its resourceVersion, then fails with an ERROR event (cacher's
            # waitUntilWatchCacheFreshAndForceAllEvents); headers only after.
            end = time.monotonic() + sim.opts.fresh_wait
            with st.cond:
                while st.rv < R and time.monotonic() < end:
                    st.cond.wait(max(0.0, min(0.5, end - time.monotonic())))
                cur = st.rv
            if cur < R:
                e = too_large(R, cur, 1)
                error = status_json(e.code, e.message, e.reason, e.details)
        with st.cond:
            rs = st.res[rt.key]
            snap_rv = st.rv
            if error is not None:
                pass
            elif f is not None and f.kind == "410":
                error = status_json(410, "too old resource version: %d (%d)" % (R, st.rv), "Expired")
            elif initial:
                lo, hi = rs.ns_range(ns)
                objs = rs.objs
                snapshot = [objs[k] for k in rs.keys[lo:hi]]
                w.pos = rs.end()
            elif R == 0:
                w.pos = rs.end()
            elif R < rs.floor:
                error = status_json(410, "too old resource version: %d (%d)" % (R, rs.floor), "Expired")
            else:
                w.pos = rs.seq_after(R)
                if R > st.rv:
                    # above the current resourceVersion (it went back): the
                    # watch cache accepts it and sends nothing up to it
                    w.min_rv = R
            if error is None:
                st.watches.add(w)
        try:
            self.stream_watch(w, rt, ns, lsel, fsel, filtered, timeout, snapshot, snap_rv, sie, error)
        finally:
            with st.cond:
                st.watches.discard(w)

    def stream_watch(self, w, rt, ns, lsel, fsel, filtered, timeout, snapshot, snap_rv, sie, error):
        sim = self.server.sim
        st = sim.store
        sock = self.connection
        f = self.fault
        t0 = time.monotonic()
        deadline = t0 + timeout
        drip_until = t0 + (f.seconds if f.seconds is not None else 5.0) if (f and f.kind == "drip") else 0
        self.head(200, ["Transfer-Encoding: chunked"])
        as_table = self.table_events(rt)

        def out(payload, nev):
            if as_table is not None:
                payload = as_table(payload)
            if not payload:
                return
            if drip_until and time.monotonic() < drip_until:
                for i in range(0, len(payload), 16):
                    piece = payload[i:i + 16]
                    sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
                    time.sleep(0.05)
                    if time.monotonic() >= drip_until:
                        rest = payload[i + 16:]
                        if rest:
                            sock.sendall(b"%x\r\n%s\r\n" % (len(rest), rest))
                        break
            else:
                sock.sendall(b"".join((b"%x\r\n" % len(payload), payload, b"\r\n")))
            w.sent += nev
            with sim.lock:
                sim.events_sent += nev

        if f is not None and f.kind == "lines":
            for line in f.lines:
                out(line + b"\n", 1)
            if f.end:
                sock.sendall(b"0\r\n\r\n")
                return
        if error is not None:
            out(TYPE_PFX["ERROR"] + error[:-1] + b"}\n", 1)
            sock.sendall(b"0\r\n\r\n")
            return
        if f is not None and f.kind == "hang":
            # silent: no events, no bookmarks; it holds no history back
            with st.cond:
                w.pos = -1
            self.close_connection = True
            end = time.monotonic() + (f.seconds if f.seconds is not None else 3600)
            while time.monotonic() < end and not w.drop and not client_gone(sock):
                time.sleep(0.2)
            if w.drop == "clean":
                sock.sendall(b"0\r\n\r\n")
                self.close_connection = False
                return
            raw_shutdown(sock)
            return
        if f is not None and f.kind == "garbage":
            out(b"this is not JSON {{{ garbage from kube-sim\n", 0)
        # a bad event to send once something was sent (see inject_event)
        inject = f.kind if (f is not None and f.kind in Fault.WATCH_EVENT_KINDS) else None
        tail = [None, 0]    # the last object sent (stored bytes) and the last event's resourceVersion
        prefix = (ns + "/") if (ns and rt.namespaced) else ""

        def passes(o):
            return match_labels(lsel, o.labels) and match_fields(fsel, o.fields)

        # initial events
        buf, n, nev = [], 0, 0
        pfx = TYPE_PFX["ADDED"]
        last = None
        for o in snapshot:
            if filtered and not passes(o):
                continue
            buf.append(pfx)
            buf.extend(rt.full_parts(o.data))
            buf.append(b"}\n")
            n += len(o.data) + 40
            nev += 1
            last = o
            if n >= BATCH:
                out(b"".join(buf), nev)
                buf, n, nev = [], 0, 0
        if last is not None:
            tail[:] = [last.data, last.rv]
        if f is not None and f.kind == "truncate":
            line = b"".join(buf) or (TYPE_PFX["BOOKMARK"] + rt.bookmark(snap_rv) + b"}\n")
            cut = line[:max(1, len(line) // 2 if len(line) < 200 else len(line) - 100)]
            sock.sendall(b"%x\r\n%s\r\n0\r\n\r\n" % (len(cut), cut))
            self.close_connection = True
            return
        if buf:
            out(b"".join(buf), nev)
        if f is not None and f.kind == "end-before-bookmark":
            sock.sendall(b"0\r\n\r\n")
            return
        if f is not None and f.kind == "cut-before-bookmark":
            self.close_connection = True
            raw_shutdown(sock)
            return
        if sie:
            out(TYPE_PFX["BOOKMARK"] + rt.bookmark(snap_rv, True) + b"}\n", 1)
            tail[1] = snap_rv
        if f is not None and f.kind == "cut-after-initial":
            self.close_connection = True
            raw_shutdown(sock)
            return
        if inject and tail[1]:
            if self.inject_event(inject, rt, ns, tail, out):
                return
            inject = None
        bm_every = sim.bookmark_interval
        next_bm = t0 + bm_every
        pre_deadline = deadline - 2 if timeout > 2 else None
        last_check = time.monotonic()
        rs = w.rs
        min_rv = w.min_rv
        while True:
            with st.cond:
                while True:
                    now = time.monotonic()
                    if w.drop or rs.end() > w.pos or w.bm_now or now >= deadline:
                        break
                    if w.allow_bm and (now >= next_bm or (pre_deadline and now >= pre_deadline)):
                        break
                    if now - last_check >= 1.0:
                        break
                    wake = min(deadline, last_check + 1.0)
                    if w.allow_bm:
                        wake = min(wake, next_bm)
                        if pre_deadline:
                            wake = min(wake, pre_deadline)
                    st.cond.wait(max(0.0, wake - now))
                drop = w.drop
                lagged = w.pos < rs.seq0
                evs = rs.hist[w.pos - rs.seq0:] if not lagged else []
                w.pos = rs.end()
                cur_rv = st.rv
                bm_now = w.bm_now
                w.bm_now = False
            if drop == "abrupt":
                self.close_connection = True
                raw_shutdown(sock)
                return
            if drop == "clean" or lagged:
                sock.sendall(b"0\r\n\r\n")
                return
            if min_rv:
                evs = [ev for ev in evs if ev.rv > min_rv]
            if evs:
                sent = self.send_events(evs, rt, prefix, filtered, passes, out)
                if sent is not None:
                    tail[:] = sent
            now = time.monotonic()
            if now >= deadline:
                sock.sendall(b"0\r\n\r\n")
                return
            if w.allow_bm and (bm_now or now >= next_bm or (pre_deadline and now >= pre_deadline)):
                if cur_rv >= min_rv:
                    out(TYPE_PFX["BOOKMARK"] + rt.bookmark(cur_rv) + b"}\n", 1)
                    tail[1] = cur_rv
                if now >= next_bm:
                    next_bm = now + bm_every
                if pre_deadline and now >= pre_deadline:
                    pre_deadline = None
            if min_rv and cur_rv >= min_rv:
                min_rv = 0
            if inject and tail[1]:
                if self.inject_event(inject, rt, ns, tail, out):
                    return
                inject = None
            if now - last_check >= 1.0:
                last_check = now
                if client_gone(sock):
                    self.close_connection = True
                    return

    def table_events(self, rt):
        """For a watch asked as a Table (kubectl get -w): a function that
        turns a batch of event lines into the same events, each object a
        Table of one row; the column definitions only in the first event
        (handlers/watch.go sets the table options' NoHeaders after it).
        A Status (ERROR) goes as it is, and lines that are not JSON (the
        faults') too.  None when the watch wants objects."""
        tv = tables.wants_table(self.headers.get("Accept"))
        if not tv or (self.fault is not None and self.fault.kind == "lines"):
            return None
        include = self.query.get("includeObject", "Metadata")
        sim = self.server.sim
        first = [True]

        def table_of(line):
            # Converted once per event and shared by every watch that asks
            # alike, as the apiserver caches an event's encodings: two
            # clients watching see the same cells (an Age in seconds too).
            key = (line, tv, include)
            with sim.lock:
                ev = sim.table_events.get(key)
            if ev is None:
                ev = json.loads(line)
                obj = ev["object"]
                if ev["type"] == "ERROR" or obj.get("kind") == "Status":
                    raise ValueError
                obj.setdefault("kind", rt.kind)
                obj.setdefault("apiVersion", rt.api_version)
                meta = {"resourceVersion": (obj.get("metadata") or {}).get("resourceVersion", "")}
                ev["object"] = tables.to_table(rt, [obj], meta, include, tv)
                with sim.lock:
                    if len(sim.table_events) >= 10000:
                        sim.table_events.clear()
                    sim.table_events[key] = ev
            return ev

        def convert(payload):
            lines = []
            for line in bytes(payload).split(b"\n"):
                try:
                    ev = table_of(line)
                except (ValueError, KeyError, TypeError, AttributeError):
                    lines.append(line)
                    continue
                if not first[0]:
                    ev = dict(ev, object=dict(ev["object"], columnDefinitions=None))
                first[0] = False
                lines.append(json.dumps(ev, separators=(",", ":")).encode())
            return b"\n".join(lines)
        return convert

    def inject_event(self, kind, rt, ns, tail, out):
        """One bad event (a watch-event fault), right after the initial
        events or, for a watch that had none, after the first events sent.
        Returns True when it ended the stream."""
        sock = self.connection
        f = self.fault
        if kind in ("error429", "error500"):
            if kind == "error429":
                st = status_json(429, "Too many requests, please try again later.", "TooManyRequests",
                                 {"retryAfterSeconds": f.retry_after})
            else:
                det, _ = f.retry_details({"causes": [{"message": "injected fault"}]})
                st = status_json(500, "Internal error occurred: injected fault", "InternalError", det)
            out(TYPE_PFX["ERROR"] + st[:-1] + b"}\n", 1)
            sock.sendall(b"0\r\n\r\n")
            return True
        if kind == "badevent":
            out(b'{"type":"MODIFIED","object":{"kind":"%s",}}\n' % rt.kind.encode(), 0)
            return False
        data = tail[0]
        if data is None:
            # nothing but bookmarks sent yet: any object of the watched range
            st = self.server.sim.store
            with st.cond:
                rs = st.res[rt.key]
                lo, hi = rs.ns_range(ns if rt.namespaced else "")
                data = rs.objs[rs.keys[lo]].data if lo < hi else None
        if kind == "unknowntype":
            obj = rt.full(data) if data is not None else rt.bookmark(tail[1])
            out(b'{"type":"FROB","object":' + obj + b"}\n", 1)
        elif kind == "nometa":
            d = json.loads(rt.full(data) if data is not None else rt.bookmark(tail[1]))
            d.pop("metadata", None)
            out(TYPE_PFX["MODIFIED"] + json.dumps(d, separators=(",", ":")).encode() + b"}\n", 1)
        elif kind == "rvback":
            if data is None:
                return False
            d = json.loads(rt.full(data))
            d.setdefault("metadata", {})["resourceVersion"] = str(max(1, tail[1] - 1))
            out(TYPE_PFX["MODIFIED"] + json.dumps(d, separators=(",", ":")).encode() + b"}\n", 1)
        return False

    def send_events(self, evs, rt, prefix, filtered, passes, out):
        """Returns (stored bytes of the last object sent, its event's
        resourceVersion), or None when nothing was sent."""
        buf, n, nev = [], 0, 0
        last = None
        for ev in evs:
            if ev.silent:
                continue
            o = ev.obj
            if prefix and not o.key.startswith(prefix):
                continue
            typ = ev.type
            if filtered:
                cur_ok = passes(o)
                if typ == "MODIFIED":
                    old_ok = passes(ev.prev)
                    if cur_ok and not old_ok:
                        typ = "ADDED"
                    elif old_ok and not cur_ok:
                        # the previous content, with the event's resourceVersion
                        d = json.loads(ev.prev.data)
                        d.setdefault("metadata", {})["resourceVersion"] = str(ev.rv)
                        data = rt.encode(d)
                        buf.append(TYPE_PFX["DELETED"])
                        buf.extend(rt.full_parts(data))
                        buf.append(b"}\n")
                        n += len(data)
                        nev += 1
                        last = (data, ev.rv)
                        continue
                    elif not cur_ok:
                        continue
                elif not cur_ok:
                    continue
            buf.append(TYPE_PFX[typ])
            buf.extend(rt.full_parts(o.data))
            buf.append(b"}\n")
            n += len(o.data) + 40
            nev += 1
            last = (o.data, ev.rv)
            if n >= BATCH:
                out(b"".join(buf), nev)
                buf, n, nev = [], 0, 0
        if buf:
            out(b"".join(buf), nev)
        return last

    # -------------------------------------------------------------- mutations
    def read_json(self, body):
        try:
            d = json.loads(body or b"{}")
            if not isinstance(d, dict):
                raise ValueError("not an object")
            return d
        except ValueError as e:
            raise HTTPError(400, "couldn't get version/kind; json parse error: %s" % e)

    def serve_create(self, route, q, body):
        sim = self.server.sim
        rt, ns = route["rt"], route["ns"]
        d = self.read_json(body)
        md = d.setdefault("metadata", {})
        if rt.namespaced:
            if md.get("namespace") and ns and md["namespace"] != ns:
                raise HTTPError(400, "the namespace of the provided object does not match the namespace sent on the request")
            md["namespace"] = ns or md.get("namespace") or "default"
        if q.get("dryRun"):
            return self.send(201, json.dumps(d).encode())
        try:
            obj = sim.create(rt, d)
        except Conflict:
            raise HTTPError(409, '%s "%s" already exists' % (rt.gr, md.get("name")),
                            details={"name": md.get("name"), "kind": rt.name})
        except ValueError as e:
            raise HTTPError(422, str(e))
        self.send(201, rt.full(obj.data) + b"\n")

    def serve_update(self, route, q, body):
        sim = self.server.sim
        rt = route["rt"]
        d = self.read_json(body)
        key = sim.store.key_of(rt, route["ns"], route["name"])
        cur = sim.store.get(rt, key)
        if cur is None:
            raise self.not_found(rt, route["name"])
        want = (d.get("metadata") or {}).get("resourceVersion")
        if want and want != str(cur.rv):
            raise HTTPError(409, 'Operation cannot be fulfilled on %s "%s": the object has been modified; '
                            'please apply your changes to the latest version and try again' % (rt.gr, route["name"]),
                            reason="Conflict", details={"name": route["name"], "kind": rt.name})
        try:
            obj = sim.replace(rt, key, d)
        except NotFound:
            raise self.not_found(rt, route["name"])
        self.send(200, rt.full(obj.data) + b"\n")

    def serve_patch(self, route, q, body):
        sim = self.server.sim
        rt = route["rt"]
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        if ctype not in ("application/merge-patch+json", "application/strategic-merge-patch+json"):
            raise HTTPError(415, 'the body of the request was in an unknown format - accepted media types include: '
                            'application/merge-patch+json, application/strategic-merge-patch+json')
        patch = self.read_json(body)
        key = sim.store.key_of(rt, route["ns"], route["name"])
        try:
            obj = sim.update(rt, key, patch)
        except NotFound:
            raise self.not_found(rt, route["name"])
        self.send(200, rt.full(obj.data) + b"\n")

    def serve_delete(self, route, q, body):
        sim = self.server.sim
        rt = route["rt"]
        key = sim.store.key_of(rt, route["ns"], route["name"])
        try:
            obj = sim.delete(rt, key, graceful=(rt.name == "pods" and q.get("gracePeriodSeconds") != "0"))
        except NotFound:
            raise self.not_found(rt, route["name"])
        self.send(200, rt.full(obj.data) + b"\n")
