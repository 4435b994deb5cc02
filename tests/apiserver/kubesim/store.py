"""The simulated etcd + watch cache.

DESIGN: one Store, one lock (self.cond, a Condition).  Everything in it --
objects, sorted keys, event history, the revision counter, the set of open
watches -- is read and written only with the lock held.  Objects are immutable
Obj records holding their serialised JSON bytes, so a reader may take
references under the lock and write them to a socket after releasing it.
Mutators notify the condition; watch threads wait on it.  Nothing blocks on
I/O while holding the lock.

History: each resource keeps a list of events (Ev).  `lstart` is the first
event still *available* (older ones are compacted: a watch or a paged list
from an RV below `floor` gets "too old").  The list itself is trimmed later
than lstart while an open watch still has events to read, up to a hard cap;
a watch that falls behind that is ended (like the apiserver ends a slow
watcher).
"""

import bisect
import json
import threading


class Conflict(Exception):
    pass


class NotFound(Exception):
    pass


class Obj:
    __slots__ = ("key", "rv", "data", "labels", "fields")

    def __init__(self, key, rv, data, labels, fields):
        self.key = key
        self.rv = rv
        self.data = data
        self.labels = labels
        self.fields = fields


class Ev:
    """A change: type ADDED/MODIFIED/DELETED, obj the new state (for DELETED the
    last state, carrying the deletion's RV), prev the state before (None for
    ADDED).  A silent change (a lost event) stays in the history so that
    snapshot lists at older RVs are right, but no watch ever sends it."""
    __slots__ = ("rv", "type", "obj", "prev", "silent")

    def __init__(self, rv, type_, obj, prev, silent=False):
        self.rv = rv
        self.type = type_
        self.obj = obj
        self.prev = prev
        self.silent = silent


class ResState:
    def __init__(self, rt):
        self.rt = rt
        self.objs = {}
        self.keys = []     # sorted
        self.hist = []
        self.seq0 = 0      # absolute sequence number of hist[0]
        self.lstart = 0    # first available event (absolute)
        self.floor = 0     # RVs below this are compacted for this resource
        self.trim_at = 0

    def end(self):
        return self.seq0 + len(self.hist)

    def seq_after(self, rv):
        """Absolute seq of the first available event with rv > rv."""
        lo = self.lstart - self.seq0
        i = bisect.bisect_right(self.hist, rv, lo=lo, key=lambda e: e.rv)
        return self.seq0 + i

    def ns_range(self, ns):
        keys = self.keys
        if not ns:
            return 0, len(keys)
        return (bisect.bisect_left(keys, ns + "/"), bisect.bisect_left(keys, ns + "0"))


class Lazy:
    """A JSON value decoded on first use."""
    __slots__ = ("b", "v")

    def __init__(self, b, v=None):
        self.b = b
        self.v = v

    def get(self):
        if self.v is None:
            self.v = json.loads(self.b) if self.b else {}
        return self.v


def _dumps(d):
    return json.dumps(d, separators=(",", ":")).encode()


class Store:
    def __init__(self, types, window=10000, start_rv=1):
        self.cond = threading.Condition(threading.Lock())
        self.rv = start_rv
        self.window = max(1, window)
        self.res = {t.key: ResState(t) for t in types}
        self.watches = set()
        self.mutations = 0

    # ------------------------------------------------------------ helpers
    def key_of(self, rt, ns, name):
        return (ns + "/" + name) if rt.namespaced else name

    def _make(self, rt, key, rv, d):
        data = rt.encode(d)
        return Obj(key, rv, data, rt.labels_of(d), rt.fields_of(d))

    def _record(self, rs, ev):
        rs.hist.append(ev)
        end = rs.end()
        if end - rs.lstart > self.window:
            rs.lstart = end - self.window
            rs.floor = rs.hist[rs.lstart - 1 - rs.seq0].rv
        if len(rs.hist) >= rs.trim_at:
            self._trim(rs)
        self.mutations += 1
        self.cond.notify_all()

    def _trim(self, rs):
        keep = rs.lstart
        hard = len(rs.hist) > 4 * self.window + 20000
        if not hard:
            for w in self.watches:
                if w.rs is rs and rs.seq0 <= w.pos < keep:
                    keep = w.pos
        cut = keep - rs.seq0
        if cut > 0:
            del rs.hist[:cut]
            rs.seq0 = keep
        rs.trim_at = len(rs.hist) + max(1024, self.window // 4)

    def compact_all(self):
        with self.cond:
            for rs in self.res.values():
                rs.lstart = rs.end()
                rs.floor = self.rv
                self._trim(rs)

    # ------------------------------------------------------------ bulk load
    def load(self, rt, key, data, labels, fields, rv):
        """Start-up population: no event is recorded."""
        rs = self.res[rt.key]
        rs.objs[key] = Obj(key, rv, data, labels, fields)

    def finish_load(self):
        for rs in self.res.values():
            rs.keys = sorted(rs.objs)
            rs.floor = self.rv
            rs.trim_at = max(1024, self.window // 4)

    def next_rv(self):
        """For start-up population (caller holds no lock, single-threaded)."""
        self.rv += 1
        return self.rv

    # ------------------------------------------------------------ mutations
    def create(self, rt, d, silent=False):
        md = d.setdefault("metadata", {})
        key = self.key_of(rt, md.get("namespace", ""), md["name"])
        with self.cond:
            rs = self.res[rt.key]
            if key in rs.objs:
                raise Conflict(key)
            self.rv += 1
            md["resourceVersion"] = str(self.rv)
            obj = self._make(rt, key, self.rv, d)
            rs.objs[key] = obj
            bisect.insort(rs.keys, key)
            self._record(rs, Ev(self.rv, "ADDED", obj, None, silent))
            return obj

    def create_raw(self, rt, key, data, labels, fields, silent=False):
        """create() for pre-serialised bytes whose metadata.resourceVersion
        is the placeholder "@RV@"."""
        with self.cond:
            rs = self.res[rt.key]
            if key in rs.objs:
                raise Conflict(key)
            self.rv += 1
            data = data.replace(b'"resourceVersion":"@RV@"', b'"resourceVersion":"%d"' % self.rv, 1)
            obj = Obj(key, self.rv, data, labels, fields)
            rs.objs[key] = obj
            bisect.insort(rs.keys, key)
            self._record(rs, Ev(self.rv, "ADDED", obj, None, silent))
            return obj

    def update(self, rt, key, fn, fast=None, silent=False):
        """fn(d) changes the decoded object in place.  fast: for pods, a
        function of (metadata, status) used when the stored bytes split.
        silent: no watch is told (see Ev)."""
        with self.cond:
            rs = self.res[rt.key]
            old = rs.objs.get(key)
            if old is None:
                raise NotFound(key)
            self.rv += 1
            obj = None
            if fast is not None and rt.name == "pods":
                obj = self._pod_fast(rt, old, self.rv, fast)
            if obj is None:
                d = json.loads(old.data)
                fn(d)
                md = d.setdefault("metadata", {})
                md["resourceVersion"] = str(self.rv)
                obj = self._make(rt, key, self.rv, d)
            rs.objs[key] = obj
            self._record(rs, Ev(self.rv, "MODIFIED", obj, old, silent))
            return obj

    def _pod_fast(self, rt, old, rv, fn):
        """Changes a pod decoding only what changes: metadata (without
        managedFields) always, status only if fn asks for it (Lazy.get());
        spec and managedFields are spliced as bytes.  None if the stored
        bytes don't have the expected shape (the caller decodes it all)."""
        data = old.data
        i_mf = data.find(b',"managedFields":[')
        i_spec = data.find(b'},"spec":{')
        if not data.startswith(b'{"metadata":{') or i_spec < 0 or (0 <= i_spec < i_mf):
            return None
        try:
            if i_mf >= 0:
                md = json.loads(data[12:i_mf] + b"}")
                tail = i_mf
            else:
                md = json.loads(data[12:i_spec + 1])
                tail = i_spec
        except ValueError:
            return None
        i_st = data.rfind(b',"status":{')
        status = Lazy(data[i_st + 10:-1] if i_st > i_spec else None)
        fn(md, status)
        md["resourceVersion"] = str(rv)
        mdb = _dumps(md)
        if status.v is None:
            new = b"".join((b'{"metadata":', mdb[:-1], memoryview(data)[tail:]))
            return Obj(old.key, rv, new, md.get("labels") or {}, old.fields)
        new = b"".join((b'{"metadata":', mdb[:-1], memoryview(data)[tail:i_st if i_st > i_spec else -1],
                        b',"status":', _dumps(status.v), b"}"))
        fields = dict(old.fields)
        part = rt.fields_of({"metadata": md, "status": status.v})
        for k, v in part.items():
            if not k.startswith("spec."):
                fields[k] = v
        return Obj(old.key, rv, new, md.get("labels") or {}, fields)

    def delete(self, rt, key, fn=None, silent=False):
        with self.cond:
            rs = self.res[rt.key]
            old = rs.objs.get(key)
            if old is None:
                raise NotFound(key)
            self.rv += 1
            rv = self.rv

            def setrv(md, st):
                pass
            obj = None
            if rt.name == "pods":
                obj = self._pod_fast(rt, old, rv, setrv)
            if obj is None:
                d = json.loads(old.data)
                d.setdefault("metadata", {})["resourceVersion"] = str(rv)
                obj = self._make(rt, key, rv, d)
            del rs.objs[key]
            i = bisect.bisect_left(rs.keys, key)
            if i < len(rs.keys) and rs.keys[i] == key:
                del rs.keys[i]
            self._record(rs, Ev(rv, "DELETED", obj, old, silent))
            return obj

    # ------------------------------------------------------------ reads
    def get(self, rt, key):
        with self.cond:
            return self.res[rt.key].objs.get(key)

    def overlay(self, rs, snap):
        """key -> Obj-or-None: the state at RV snap of every key changed after
        it (caller holds the lock and checked snap >= rs.floor)."""
        ov = {}
        start = rs.seq_after(snap) - rs.seq0
        hist = rs.hist
        for i in range(len(hist) - 1, start - 1, -1):
            ev = hist[i]
            ov[ev.obj.key] = ev.prev
        return ov

    def collect(self, rs, ns, lsel, fsel, snap, after, limit, match):
        """Objects of rs at RV snap (<= current), in key order, in namespace ns
        (or all), with key > after, matching match(obj).  Returns (items,
        last_key_or_None_if_complete, remaining_count).  Caller holds the lock."""
        keys = rs.keys
        lo, hi = rs.ns_range(ns)
        if after:
            lo = max(lo, bisect.bisect_right(keys, after, lo, hi))
        ov = self.overlay(rs, snap) if snap < self.rv else {}
        items = []
        objs = rs.objs
        filtered = bool(lsel or fsel)
        last = None
        full = False
        if not ov:
            for i in range(lo, hi):
                o = objs[keys[i]]
                if not filtered or match(o):
                    items.append(o)
                    if limit and len(items) >= limit:
                        last = o.key
                        full = True
                        break
            if not full:
                return items, None, 0
            remaining = hi - bisect.bisect_right(keys, last, lo, hi)
            return items, (last if remaining > 0 else None), remaining
        # slow path: merge current keys with keys that existed at snap only
        prefix = (ns + "/") if ns else ""
        extra = sorted(k for k, v in ov.items()
                       if v is not None and k not in objs and k.startswith(prefix)
                       and (not after or k > after))
        import heapq
        seq = heapq.merge((keys[i] for i in range(lo, hi)), extra)
        for k in seq:
            o = ov[k] if k in ov else objs[k]
            if o is None:
                continue
            if not filtered or match(o):
                items.append(o)
                if limit and len(items) >= limit:
                    last = k
                    full = True
                    break
        if not full:
            return items, None, 0
        remaining = hi - bisect.bisect_right(keys, last, lo, hi)
        for k, v in ov.items():
            if k > last and k.startswith(prefix):
                remaining += (1 if v is not None else 0) - (1 if k in objs else 0)
        return items, (last if remaining > 0 else None), remaining

    def oracle(self, rt, ns=None):
        with self.cond:
            rs = self.res[rt.key]
            lo, hi = rs.ns_range(ns)
            items = {k: str(rs.objs[k].rv) for k in rs.keys[lo:hi]}
            return str(self.rv), items
