"""Certificates (with the openssl command line) and kubeconfig files."""

import base64
import fcntl
import os
import shutil
import secrets
import subprocess
import tempfile


def _run(args, cwd):
    subprocess.run(["openssl"] + args, cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def make_certs(prefix):
    """Writes PREFIX.ca.crt/.ca.key, .server.crt/.key, .client.crt/.key.
    Returns a dict of their paths.  With $KUBESIM_CERTS_CACHE set (a
    directory: a test suite's), the set made there first is copied: five
    openssl runs once per suite rather than once per simulator."""
    cache = os.environ.get("KUBESIM_CERTS_CACHE")
    if cache:
        return _copy_certs(cache, prefix)
    return _make_certs(prefix)


def _copy_certs(cache, prefix):
    os.makedirs(cache, exist_ok=True)
    with open(os.path.join(cache, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        made = existing_certs(os.path.join(cache, "kube-sim"))
        if made is None:
            made = _make_certs(os.path.join(cache, "kube-sim"))
    p = {}
    for k, path in made.items():
        p[k] = "%s.%s" % (os.path.abspath(prefix), k)
        shutil.copyfile(path, p[k])
        if k.endswith(".key"):
            os.chmod(p[k], 0o600)
    return p


def _make_certs(prefix):
    d = os.path.dirname(os.path.abspath(prefix)) or "."
    base = os.path.basename(prefix)
    p = {k: os.path.join(d, "%s.%s" % (base, k)) for k in
         ("ca.crt", "ca.key", "server.crt", "server.key", "client.crt", "client.key")}
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _run(["req", "-x509"] + ec + ["-keyout", p["ca.key"], "-out", p["ca.crt"], "-days", "3650",
                                  "-subj", "/CN=kube-sim-ca",
                                  "-addext", "basicConstraints=critical,CA:TRUE",
                                  "-addext", "keyUsage=critical,keyCertSign,cRLSign,digitalSignature"], d)
    with tempfile.TemporaryDirectory() as tmp:
        for who, subj, ext in (
                ("server", "/CN=kube-apiserver",
                 "subjectAltName=IP:127.0.0.1,DNS:localhost,IP:0:0:0:0:0:0:0:1\n"
                 "extendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
                 "basicConstraints=CA:FALSE\n"),
                ("client", "/O=system:masters/CN=kinf-admin",
                 "extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
                 "basicConstraints=CA:FALSE\n")):
            csr = os.path.join(tmp, who + ".csr")
            extf = os.path.join(tmp, who + ".ext")
            with open(extf, "w") as f:
                f.write(ext)
            _run(["req"] + ec + ["-keyout", p[who + ".key"], "-out", csr, "-subj", subj], d)
            _run(["x509", "-req", "-in", csr, "-CA", p["ca.crt"], "-CAkey", p["ca.key"],
                  "-set_serial", str(secrets.randbits(63)), "-days", "365", "-extfile", extf,
                  "-out", p[who + ".crt"]], d)
    for k in ("ca.key", "server.key", "client.key"):
        os.chmod(p[k], 0o600)
    return p


def existing_certs(prefix):
    """make_certs()'s dict for the files a previous run left at PREFIX, or
    None when one of them is missing."""
    p = {k: "%s.%s" % (os.path.abspath(prefix), k) for k in
         ("ca.crt", "ca.key", "server.crt", "server.key", "client.crt", "client.key")}
    if all(os.path.isfile(v) and os.path.getsize(v) > 0 for v in p.values()):
        return p
    return None


def read_token(path):
    """The first `token: ` of a kubeconfig this module wrote, or None."""
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("token: ") and line[7:].strip():
                    return line[7:].strip()
    except OSError:
        pass
    return None


def _b64file(path):
    with open(path, "rb") as f:
        return base64.b64encode(f.read()).decode()


def kubeconfig(server, user_lines, ca_line):
    cluster = "    server: %s\n" % server
    if ca_line:
        cluster += "    %s\n" % ca_line
    return ("apiVersion: v1\n"
            "kind: Config\n"
            "clusters:\n"
            "- name: kube-sim\n"
            "  cluster:\n" + cluster +
            "users:\n"
            "- name: kube-sim-user\n"
            "  user:\n" + "".join("    %s\n" % l for l in user_lines) +
            "contexts:\n"
            "- name: kube-sim\n"
            "  context:\n"
            "    cluster: kube-sim\n"
            "    user: kube-sim-user\n"
            "    namespace: default\n"
            "current-context: kube-sim\n"
            "preferences: {}\n")


def atomic_write(path, text, mode=0o600):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".kube-sim-")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def write_kubeconfigs(path, server, admin_token, viewer_token, certs, control_url):
    """All the companion files first, the main kubeconfig last (tests wait
    for it to appear)."""
    ca_path = ca_data = None
    if certs:
        ca_path = "certificate-authority: " + certs["ca.crt"]
        ca_data = "certificate-authority-data: " + _b64file(certs["ca.crt"])
    atomic_write(path + ".control", control_url + "\n", 0o644)
    atomic_write(path + ".viewer", kubeconfig(server, ["token: " + viewer_token], ca_path))
    if certs:
        atomic_write(path + ".certfile", kubeconfig(server, [
            "client-certificate: " + certs["client.crt"],
            "client-key: " + certs["client.key"]], ca_path))
        atomic_write(path + ".certdata", kubeconfig(server, [
            "client-certificate-data: " + _b64file(certs["client.crt"]),
            "client-key-data: " + _b64file(certs["client.key"])], ca_data))
    atomic_write(path, kubeconfig(server, ["token: " + admin_token], ca_path))
