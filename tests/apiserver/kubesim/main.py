"""Command line, start-up and shutdown."""

import argparse
import os
import secrets
import signal
import ssl
import sys
import threading
import time

from . import rtypes
from .api import APIServer
from .control import ControlServer
from .sim import Sim
from . import tlsgen
from . import zygote


def parse_args(argv):
    p = argparse.ArgumentParser(prog="kube-sim", description="A simulated kube-apiserver for kinf's tests.")
    p.add_argument("--kubeconfig", required=True, help="kubeconfig file to write (and companions FILE.*)")
    p.add_argument("--pods", type=int, default=10)
    p.add_argument("--namespaces", type=int, default=0,
                   help="extra namespaces ns-1..ns-N; workloads are spread over default and these")
    p.add_argument("--nodes", type=int, default=3)
    p.add_argument("--deployments", type=int, default=3)
    p.add_argument("--churn", type=float, default=0, help="endless pods churn at this rate per second")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--stamp-churn", action="store_true",
                   help="each churn update carries the server's wall clock (ns since the epoch) when it was "
                        "made, in the annotation %s, for the benchmarks' delivery latency" % "kube-sim.example.com/sent")
    p.add_argument("--plain-http", action="store_true")
    p.add_argument("--anonymous", metavar="USER", default=None,
                   help="a request with no credential is USER's (as an apiserver whose "
                        "anonymous user is bound to a role): for plain-http, where "
                        "clients send none")
    p.add_argument("--bookmark-interval", type=float, default=60.0)
    p.add_argument("--history", type=int, default=10000, help="events kept per resource for watches")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--control-port", type=int, default=0)
    p.add_argument("--no-watch-list", action="store_true",
                   help="reject sendInitialEvents like a server without the WatchList feature gate")
    p.add_argument("--aggregated-discovery", nargs="?", const="v2,v2beta1", default=None,
                   metavar="VERSIONS",
                   help="answer aggregated discovery (apidiscovery.k8s.io VERSIONS, default "
                        "v2,v2beta1) when asked")
    p.add_argument("--start-rv", type=int, default=1,
                   help="the global resourceVersion counter starts here (start-up objects get the next ones)")
    p.add_argument("--reuse-credentials", action="store_true",
                   help="keep the tokens and certificates a previous run left next to the kubeconfig")
    p.add_argument("--future-rev-504", action="store_true",
                   help="limited lists and continue tokens above the current resourceVersion: 504 at once, "
                        "as Kubernetes 1.34+, instead of 1.28's 500 from etcd")
    p.add_argument("--fresh-wait", type=float, default=3.0, metavar="SECONDS",
                   help="how long a read at a resourceVersion above the current one waits for it before "
                        "its 504 (the watch cache's wait: 3 s, as the apiserver; tests shorten it)")
    p.add_argument("--knative", action="store_true",
                   help="serve core v1 services and Knative Serving's services.serving.knative.dev too: "
                        "two kinds Service, of one plural, in two groups")
    p.add_argument("--watch-cache-rv", action="store_true",
                   help="a LIST at resourceVersion 0 answers at its type's latest resourceVersion, as the "
                        "apiserver's watch cache does, not at the whole store's")
    p.add_argument("--verbs", action="append", default=[], metavar="RESOURCE=VERB,...",
                   help="the verbs discovery gives RESOURCE (as componentstatuses' get,list); "
                        "a get, list or watch not among them is refused as the apiserver refuses it")
    p.add_argument("--scenario", metavar="FILE",
                   help="answer the lists and watches of the script's resource from FILE, in order "
                        "(tests/client-go/README.md)")
    p.add_argument("--scenario-log", metavar="FILE",
                   help="with --scenario: append one JSON line per scripted request to FILE "
                        "(default: FILE.requests next to the kubeconfig)")
    opts = p.parse_args(argv)
    if opts.start_rv < 1:
        p.error("--start-rv must be at least 1")
    return opts


def tune_malloc():
    """Keep freed memory instead of handing it back to the kernel: objects
    are replaced at a high rate, and touching fresh pages is what costs most
    (notably in VMs).  glibc only; harmless elsewhere."""
    try:
        import ctypes
        libc = ctypes.CDLL(None)
        m_trim_threshold, m_top_pad, m_mmap_threshold = -1, -2, -3
        libc.mallopt(m_trim_threshold, 1 << 30)
        libc.mallopt(m_top_pad, 256 << 20)
        libc.mallopt(m_mmap_threshold, 32 << 20)
    except (OSError, AttributeError):
        pass


def parent_alive(pid):
    if pid != os.getppid() and "KUBESIM_PARENT" not in os.environ:
        return False
    return zygote.alive(pid)


def main(argv=None):
    opts = parse_args(sys.argv[1:] if argv is None else argv)
    tune_malloc()
    # an apiserver reads objects nested as deep as Go's encoding/json
    # allows (10,000 levels), and so must its stand-in
    sys.setrecursionlimit(25000)
    kc = os.path.abspath(opts.kubeconfig)
    os.makedirs(os.path.dirname(kc), exist_ok=True)
    # the process to outlive not (the zygote's child is told who asked for it)
    parent = int(os.environ.get("KUBESIM_PARENT", "0")) or os.getppid()
    t0 = time.monotonic()
    if opts.knative:
        rtypes.enable_knative()
    for spec in opts.verbs:
        name, _, verbs = spec.partition("=")
        rtypes.BY_NAME[name].verbs = [v for v in verbs.split(",") if v]
    sim = Sim(opts)
    sim.populate()
    if opts.scenario:
        from .scenario import Script
        sim.script = Script(opts.scenario, lambda name: rtypes.BY_NAME.get(name),
                            opts.scenario_log or kc + ".requests")
    admin_token = viewer_token = None
    if opts.reuse_credentials:
        admin_token = tlsgen.read_token(kc)
        viewer_token = tlsgen.read_token(kc + ".viewer")
        if admin_token and viewer_token:
            sys.stderr.write("kube-sim: reusing the tokens of %s\n" % kc)
        else:
            admin_token = viewer_token = None
    if admin_token is None:
        admin_token = "admin-" + secrets.token_hex(16)
        viewer_token = "viewer-" + secrets.token_hex(16)
    sim.tokens = {admin_token: "admin", viewer_token: "system:serviceaccount:default:viewer"}
    sim.anonymous = opts.anonymous

    ctx = None
    certs = None
    if not opts.plain_http:
        certs = tlsgen.existing_certs(kc) if opts.reuse_credentials else None
        if certs is not None:
            sys.stderr.write("kube-sim: reusing the CA and certificates of %s\n" % kc)
        else:
            certs = tlsgen.make_certs(kc)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(certs["server.crt"], certs["server.key"])
        ctx.load_verify_locations(certs["ca.crt"])
        ctx.verify_mode = ssl.CERT_OPTIONAL
        ctx.set_alpn_protocols(["http/1.1"])
    api = APIServer(("127.0.0.1", opts.port), sim, ctx)
    ctl = ControlServer(("127.0.0.1", opts.control_port), sim)
    scheme = "http" if opts.plain_http else "https"
    api_url = "%s://127.0.0.1:%d" % (scheme, api.server_address[1])
    ctl_url = "http://127.0.0.1:%d" % ctl.server_address[1]
    for srv in (api, ctl):
        threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.5}, daemon=True).start()
    if opts.churn > 0:
        sim.start_churn(rtypes.BY_NAME["pods"], opts.churn, 0, opts.seed, {"add": 1, "update": 3, "delete": 1})

    print("api: " + api_url)
    print("control: " + ctl_url)
    sys.stdout.flush()
    tlsgen.write_kubeconfigs(kc, api_url, admin_token, viewer_token, certs, ctl_url)
    sys.stderr.write("kube-sim: serving %d pods at %s (control %s), ready in %.1fs\n"
                     % (opts.pods, api_url, ctl_url, time.monotonic() - t0))
    sys.stderr.flush()

    stop = threading.Event()

    def on_signal(signum, frame):
        stop.set()
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    while not stop.wait(1.0):
        if not parent_alive(parent):
            sys.stderr.write("kube-sim: parent process went away, exiting\n")
            break
    sim.stop_churns()
    for srv in (api, ctl):
        try:
            srv.socket.close()
        except OSError:
            pass
    # open watch and keep-alive threads are daemons: exiting ends them
    sys.stdout.flush()
    os._exit(0)
