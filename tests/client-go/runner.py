#!/usr/bin/env python3
"""Run one scenario through one client and write what it did as NDJSON.

    runner.py --scenario FILE --client peer|kinf --bin PATH --client-go VERSION --out FILE [--h2]

It starts kube-sim with the script, starts the client on it, and stops the
client once the script is exhausted and the client idle: the last request is
a watch the script holds open in silence, nothing else has arrived for the
scenario's "settle" seconds (2 by default) and the client's output has been
still for half a second.  Timing decides only when it stops, never what the
client was answered.

With --h2 the client reaches kube-sim through nghttpx (Debian's
nghttp2-proxy), a real HTTP/2 front end over TLS, as both clients speak to
an apiserver by default: every request a stream of one connection.  The
script's answers pass through it as they are, but for a reset, which the
front end turns into what it sends an HTTP/2 client: a 502 before the
answer's head, an RST_STREAM (INTERNAL_ERROR) after it.  A watch whose
"then" is "freeze" goes silent and says so in kube-sim's log; half a
second later (its head and events have reached the client) the runner
freezes the client's connection in a freeze-proxy before nghttpx: nothing
passes any more, PINGs included, and no FIN or RST comes, while new
connections are served.  One whose "then" is "goaway" has, half a second
after, the front end end the client's connection as a server going away
does without waiting for its streams: new connections are sent to a
second front end, the first is told to shut down (SIGQUIT: a GOAWAY on
each connection) and GOAWAY_CLOSE later killed (the connection closes
under its streams).  Such scenarios run only with --h2, with the
scenario's "env" (the HTTP2_*_TIMEOUT_SECONDS both clients read) given to
the client.

The output: a header line, then the requests on the scripted resource in
order, each with its time ("t", seconds after the first), then the handler
calls in order:

    {"scenario":"...","clientGo":"v0.35.7","client":"peer"}
    {"request":{"method":"GET","path":"/api/v1/namespaces/default/pods","query":"limit=500&resourceVersion=0",
                "accept":"application/json","answer":"list#1","t":0.0}}
    {"call":{"handler":"OnAdd","key":"default/a","resourceVersion":"5","initialList":true}}

A query is kept as it was sent, parameters in their order and escaped as
they were, but for timeoutSeconds's random value, written "*" (client-go
draws it from 300..600 s; both clients do).  A call keeps only
the members both clients print; false and empty ones are left out.
"""

import argparse
import collections
import json
import os
import shutil
import socket
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
KUBE_SIM = os.path.join(HERE, "..", "apiserver", "kube-sim")
sys.path.insert(0, os.path.join(HERE, "..", "apiserver"))
from kubesim import zygote  # noqa: E402
FREEZE_PROXY = os.path.join(HERE, "..", "apiserver", "freeze-proxy")
# After kube-sim says a watch froze, the runner waits this long before it
# freezes the connection: the watch's head and events are through by then.
FREEZE_DELAY = 0.5
# A front end told to shut down is killed this long after.
GOAWAY_CLOSE = 0.3
DEADLINE = 120.0


def norm_query(raw):
    """The query as sent, but for the random values of timeoutSeconds and
    of a typed client's timeout (which it draws with it)."""
    def norm(kv):
        for name in ("timeoutSeconds=", "timeout="):
            if kv.startswith(name):
                return name + "*"
        return kv
    return "&".join(norm(kv) for kv in raw.split("&")) if raw else ""


def norm_call(d):
    """A handler call in the comparable form, from the peer's or kinf's record."""
    c = {"handler": d["handler"], "key": d.get("key", ""), "resourceVersion": d.get("resourceVersion", "")}
    if d["handler"] == "OnUpdate":
        c["oldResourceVersion"] = d.get("oldResourceVersion", "")
        if d.get("unchanged"):
            c["unchanged"] = True
    if d["handler"] == "OnAdd" and d.get("initialList"):
        c["initialList"] = True
    if d["handler"] == "OnDelete" and d.get("tombstone"):
        c["tombstone"] = True
    return c


def client_argv(a, sc, kubeconfig):
    ns = sc.get("namespace", "default")
    cl = sc.get("client", {})
    if a.client == "peer":
        argv = [a.bin, "--kubeconfig", kubeconfig, "--resource", sc.get("resource", "pods"), "--namespace", ns]
        if cl.get("resync"):
            argv += ["--resync", cl["resync"]]
        if cl.get("selector"):
            argv += ["--selector", cl["selector"]]
        if cl.get("fieldSelector"):
            argv += ["--field-selector", cl["fieldSelector"]]
        if a.typed:
            argv += ["--typed"]
        return argv
    argv = [a.bin, "watch", sc.get("resource", "pods"), "-o", "json", "--client-go", a.client_go,
            "--kubeconfig", kubeconfig]
    argv += ["-n", ns] if ns else ["-A"]
    if cl.get("resync"):
        argv += ["--resync", cl["resync"]]
    if cl.get("selector"):
        argv += ["-l", cl["selector"]]
    if cl.get("fieldSelector"):
        argv += ["--field-selector", cl["fieldSelector"]]
    return argv


class Forked:
    """A kube-sim the zygote forked (not this process's child), as much of
    a Popen as stop() and start_sim() use."""
    def __init__(self, pid):
        self.pid = pid

    def poll(self):
        return None if zygote.alive(self.pid) else 0

    def send_signal(self, sig):
        try:
            os.kill(self.pid, sig)
        except ProcessLookupError:
            pass

    def kill(self):
        self.send_signal(signal.SIGKILL)

    def wait(self, timeout=None):
        end = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if end is not None and time.monotonic() >= end:
                raise subprocess.TimeoutExpired("kube-sim", timeout)
            time.sleep(0.02)
        return 0


def start_sim(scenario, tmp, tls=False):
    """kube-sim on the scenario: forked by the zygote of the bats run, when
    there is one (sim_helper.bash), else started."""
    kc = os.path.join(tmp, "kubeconfig")
    log = os.path.join(tmp, "sim.log")
    argv = ["--kubeconfig", kc, "--pods", "0", "--nodes", "0", "--deployments", "0", "--scenario", scenario,
            "--scenario-log", os.path.join(tmp, "requests")] + ([] if tls else ["--plain-http"])
    run_dir = os.environ.get("BATS_RUN_TMPDIR")
    pid = run_dir and zygote.spawn(os.path.join(run_dir, "kube-sim-zygote"), argv, os.getpid(), log)
    if pid:
        sim = Forked(pid)
    else:
        with open(log, "w") as f:
            sim = subprocess.Popen([sys.executable, "-S", KUBE_SIM] + argv, stdout=subprocess.DEVNULL,
                                   stderr=f)
    for _ in range(300):
        if os.path.exists(kc) and "kube-sim: serving" in open(log).read():
            return sim, kc
        if sim.poll() is not None:
            break
        time.sleep(0.05)
    sys.stderr.write(open(log).read())
    raise SystemExit("runner: kube-sim did not come up")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_of(kc):
    with open(kc) as f:
        text = f.read()
    return text, next(line.split("server:", 1)[1].strip() for line in text.splitlines() if "server:" in line)


def start_freezer(kc, tmp, then_file=None):
    """tests/apiserver/freeze-proxy before the server of kubeconfig kc
    (after a SIGHUP, the one then_file holds then); returns it and a
    kubeconfig that points at it."""
    text, server = server_of(kc)
    then = ["--then-file", then_file] if then_file else []
    proc = subprocess.Popen([sys.executable, "-S", FREEZE_PROXY] + then + [server.split("//", 1)[1]],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    first = proc.stdout.readline().strip()      # "proxy: 127.0.0.1:PORT"
    if not first.startswith("proxy: "):
        proc.kill()
        raise SystemExit("runner: freeze-proxy did not come up")
    fkc = os.path.join(tmp, "kubeconfig.freeze")
    with open(fkc, "w") as f:
        f.write(text.replace(server, "https://" + first.split(" ", 1)[1]))
    return proc, fkc


def h2_faults(sc):
    """The ends of its watches, and the LISTs never answered, that need
    the front end's help."""
    ends = {a.get("then") for k in ("watch", "watchlist") for a in sc.get(k, [])}
    ends |= {k for a in sc.get("list", []) for k in ("freeze", "goaway") if a.get(k)}
    return ends & {"freeze", "goaway"}


def start_h2(kc, tmp, log_name="h2.log"):
    """nghttpx before kube-sim (TLS on both sides, the sim's own server
    certificate); returns it and a kubeconfig that points at it."""
    nghttpx = shutil.which("nghttpx") or "/usr/sbin/nghttpx"
    with open(kc) as f:
        text = f.read()
    server = next(line.split("server:", 1)[1].strip() for line in text.splitlines() if "server:" in line)
    sim_port = server.rsplit(":", 1)[1]
    log = os.path.join(tmp, log_name)
    # A port free now may be taken before nghttpx binds it (other cells
    # pick theirs at the same time): then it exits, and another is tried.
    # A loaded machine may take a while to start it: its "Listening" line
    # is waited for, a minute at most, and never assumed.
    for attempt in range(5):
        port = free_port()
        if os.path.exists(log):
            os.remove(log)
        proc = subprocess.Popen([nghttpx, "--conf=/dev/null", "--single-process", "--no-ocsp",
                                 "--frontend=127.0.0.1,%d" % port,
                                 "--backend=127.0.0.1,%s;;tls;sni=localhost" % sim_port,
                                 "--cacert=%s.ca.crt" % kc,
                                 "--backend-read-timeout=1h", "--frontend-http2-read-timeout=1h",
                                 "--errorlog-file=%s" % log, kc + ".server.key", kc + ".server.crt"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if os.path.exists(log) and ("Listening on 127.0.0.1:%d" % port) in open(log).read():
                break
            time.sleep(0.05)
        else:
            if proc.poll() is None:
                proc.kill()
                raise SystemExit("runner: nghttpx did not listen within 60 s: %s" % open(log).read())
            continue  # it exited: the port was taken, most likely
        break
    else:
        raise SystemExit("runner: nghttpx did not come up: %s" % open(log).read())
    h2kc = os.path.join(tmp, "kubeconfig." + log_name[:-4])
    with open(h2kc, "w") as f:
        f.write(text.replace(server, "https://127.0.0.1:%d" % port))
    return proc, h2kc


def read_log(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.endswith("\n")]


def read_requests(path):
    """kube-sim's log less its "freeze", "goaway" and "gone" records."""
    return [r for r in read_log(path) if "method" in r]


def held_open(path):
    """The last request, while kube-sim holds it open in silence: a watch
    the client has not left (a watch it left after an ERROR event, say,
    is no place to rest: its next request is still to come); else None."""
    log = read_log(path)
    gone = {r["gone"] for r in log if "gone" in r}
    reqs = [r for r in log if "method" in r]
    if reqs and reqs[-1].get("held") and reqs[-1]["n"] not in gone:
        return reqs[-1]
    return None


class Faults:
    """The HTTP/2 faults of a run: the freeze-proxy before the front end,
    the front end, the one that takes over after a GOAWAY (started again
    after each), and the one going away."""
    def __init__(self, sim_kc, tmp):
        self.sim_kc, self.tmp = sim_kc, tmp
        self.freezer = self.front = self.second = self.dying = None
        self.then_file = os.path.join(tmp, "then")
        self.done = collections.Counter()
        self.kill_at = None
        self.fronts = 0

    def start(self, wanted):
        """The front end, and what wanted ("freeze", "goaway") needs;
        returns the kubeconfig the client is to use."""
        self.front, kc = self.spawn()
        if not wanted:
            return kc
        if "goaway" in wanted:
            self.spare()
        self.freezer, kc = start_freezer(kc, self.tmp, self.then_file if "goaway" in wanted else None)
        return kc

    def spawn(self):
        self.fronts += 1
        return start_h2(self.sim_kc, self.tmp, "h2-%d.log" % self.fronts)

    def spare(self):
        """A front end to take over at the next GOAWAY, named in then_file."""
        self.second, kc = self.spawn()
        with open(self.then_file, "w") as f:
            f.write(server_of(kc)[1].split("//", 1)[1])

    def act(self, log):
        """Acts on kube-sim's "freeze" and "goaway" records; a message
        when one cannot be (no freeze-proxy: not --h2)."""
        now = time.time()
        if self.dying is not None and now >= self.kill_at:
            self.dying.kill()
            self.dying.wait()
            self.dying = None
        for what in ("freeze", "goaway"):
            marks = [r for r in log if r.get(what)]
            if len(marks) <= self.done[what] or now - marks[self.done[what]]["t"] < FREEZE_DELAY:
                continue
            if self.freezer is None:
                return "a %s needs --h2" % what
            if self.dying is not None:
                continue    # the GOAWAY before it is not done yet
            self.done[what] += 1
            if what == "freeze":
                self.freezer.send_signal(signal.SIGUSR1)
                continue
            self.freezer.send_signal(signal.SIGHUP)    # new connections: to the spare
            # Its "then:" line says it has read then_file, which spare()
            # rewrites below: a freezer slow to take the signal would
            # otherwise read the next spare's address, and the connections
            # that follow would go where no GOAWAY is ever sent.
            if not self.freezer.stdout.readline().startswith("then: "):
                return "the freeze-proxy did not take the spare front end"
            self.front.send_signal(signal.SIGQUIT)     # GOAWAY on the open ones
            self.dying, self.kill_at = self.front, now + GOAWAY_CLOSE
            self.front = self.second
            self.spare()
        return None

    def helpers(self):
        return [h for h in (self.freezer, self.front, self.second, self.dying) if h]


def wait_idle(proc, reqpath, outpath, settle, faults=None):
    """Until the last request is held open (held_open), for `settle` s without another,
    the output still; or the client exits; or the deadline.  The faults act
    on kube-sim's records meanwhile."""
    t0 = time.monotonic()
    last_size, size_since = -1, time.monotonic()
    while time.monotonic() - t0 < DEADLINE:
        if proc.poll() is not None:
            return "exited %d" % proc.returncode
        size = os.path.getsize(outpath)
        if size != last_size:
            last_size, size_since = size, time.monotonic()
        if faults is not None:
            cannot = faults.act(read_log(reqpath))
            if cannot:
                return cannot
        last = held_open(reqpath)
        if last and time.time() - last["t"] >= settle and time.monotonic() - size_since >= 0.5:
            return "idle"
        time.sleep(0.1)
    return "deadline"


def stop(proc):
    """SIGTERM, 10 s to end, then SIGKILL: a stop that hangs is a kill."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run(a):
    with open(a.scenario) as f:
        sc = json.load(f)
    name = os.path.basename(a.scenario).rsplit(".", 1)[0]
    tmp = tempfile.mkdtemp(prefix="kinf-golden.")
    sim, kc = start_sim(a.scenario, tmp, a.h2)
    faults = Faults(kc, tmp)
    outpath, errpath = os.path.join(tmp, "out"), os.path.join(tmp, "err")
    try:
        if a.h2:
            kc = faults.start(h2_faults(sc))
        env = dict(os.environ, **sc.get("env", {}))
        with open(outpath, "w") as out, open(errpath, "w") as err:
            proc = subprocess.Popen(client_argv(a, sc, kc), stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                    env=env)
            try:
                how = wait_idle(proc, os.path.join(tmp, "requests"), outpath, float(sc.get("settle", 2)),
                                faults)
            finally:    # the client never outlives its run, whatever ended it
                stop(proc)
    finally:    # nor the front end and the sim theirs
        for helper in faults.helpers() + [sim]:
            if helper:
                stop(helper)
    lines = [{"scenario": name, "clientGo": a.client_go, "client": a.client, "end": how}]
    reqs = read_requests(os.path.join(tmp, "requests"))
    for r in reqs:
        lines.append({"request": {"method": r["method"], "path": r["path"], "query": norm_query(r["query"]),
                                  "accept": r["accept"], "answer": r["answer"],
                                  "t": round(r["t"] - reqs[0]["t"], 2)}})
    with open(outpath) as f:
        for line in f:
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if isinstance(d, dict) and d.get("handler") in ("OnAdd", "OnUpdate", "OnDelete"):
                lines.append({"call": norm_call(d)})
    with open(a.out, "w") as f:
        for d in lines:
            f.write(json.dumps(d, separators=(",", ":")) + "\n")
    if a.keep:
        sys.stderr.write("runner: kept %s\n" % tmp)
    else:
        subprocess.run(["rm", "-rf", tmp])
    return 0 if how == "idle" else 1


def parse(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--scenario", required=True)
    p.add_argument("--client", choices=("peer", "kinf"), required=True)
    p.add_argument("--bin", required=True)
    p.add_argument("--client-go", required=True, help="the version, e.g. v0.35.7")
    p.add_argument("--out", required=True)
    p.add_argument("--keep", action="store_true", help="keep the run's folder (kube-sim's log, stderr)")
    p.add_argument("--h2", action="store_true", help="through an HTTP/2 front end (nghttpx) over TLS")
    p.add_argument("--typed", action="store_true", help="the peer's typed informer (a clientset's, pods only)")
    return p.parse_args(argv)


def main():
    sys.exit(run(parse(sys.argv[1:])))


if __name__ == "__main__":
    main()
