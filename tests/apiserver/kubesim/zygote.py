"""kube-sim's start made cheap: one process that has imported kube-sim
forks each simulator a test asks for.

A fresh kube-sim spends ~0.1 s of CPU starting Python and importing
itself before it does anything, and a test run starts a thousand.  The
zygote (`kube-sim-fork --serve FILE`) imports once, listens on a port of
127.0.0.1 and writes "PORT TOKEN" to FILE (mode 0600).  A request is a
connection that sends NUL-terminated fields:

    TOKEN PARENT-PID CWD LOG ARGC ARG... NAME=VALUE... (an empty field)

and reads back the PID of a child that runs kube-sim's main() with the
arguments, in the working directory, with exactly that environment, its
standard output and error LOG (truncated, as a shell's `>` opens it) and
its standard input /dev/null.  Bash sends it through /dev/tcp, with no
process of its own (sim_helper.bash), and Python through spawn().

The PID is the simulator's: signals go to it directly, and the zygote
reaps it, so `kill -0` tells when it has ended.  The child exits when
PARENT-PID does (KUBESIM_PARENT), as a simulator started from a shell
exits with its parent.  The zygote forks from its one thread and imports
nothing once it serves, so each child starts from the state a fresh
start has (module state a child changes, such as rtypes' verbs, is its
own after the fork).

The zygote ends when FILE's folder is removed (bats removes its run's)
or after ten minutes without a request.
"""

import os
import secrets
import select
import signal
import socket
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
KUBE_SIM = os.path.join(HERE, "kube-sim")
IDLE_EXIT_S = 600


def _reap(signum, frame):
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _read_request(conn):
    """TOKEN PARENT CWD LOG ARGC ARG... NAME=VALUE..., up to the empty
    field (an argument may be empty, a NAME=VALUE never is); None when
    the connection ends first or the fields are no request."""
    data = b""
    while True:
        part = conn.recv(65536)
        if not part:
            return None
        data += part
        f = data.split(b"\0")[:-1]     # the fields ended so far
        if len(f) < 5 or not f[4].isdigit():
            if len(f) >= 5:
                return None
            continue
        env = f[5 + int(f[4]):]
        if b"" in env:
            f = f[:5 + int(f[4]) + env.index(b"")]
            return [x.decode("utf-8", "surrogateescape") for x in f]


def _child(conn, srv, cwd, log, argv, env):
    from . import main as kmain
    import random

    srv.close()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    null = os.open(os.devnull, os.O_RDONLY)
    out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    os.dup2(null, 0)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(null)
    os.close(out)
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    random.seed()
    sys.argv = [KUBE_SIM] + argv
    conn.sendall(b"%d\n" % os.getpid())
    conn.close()
    code = 1
    try:
        kmain.main(argv)
        code = 0
    except SystemExit as e:
        if isinstance(e.code, int) or e.code is None:
            code = e.code or 0
        else:
            sys.stderr.write("%s\n" % e.code)
    except BaseException:
        import traceback
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _spawn_child(conn, srv, token):
    try:
        f = _read_request(conn)
        if not f or f[0] != token:
            return
        argc = int(f[4])
        argv, env = f[5:5 + argc], f[5 + argc:]
        env = dict(e.split("=", 1) for e in env if "=" in e)
        env["KUBESIM_PARENT"] = f[1]
        if os.fork() == 0:
            _child(conn, srv, f[2], f[3], argv, env)
    except (OSError, ValueError) as e:
        sys.stderr.write("kube-sim zygote: %s\n" % e)


def serve(path):
    """The zygote: imports kube-sim, then forks a child per request."""
    from . import main as kmain  # noqa: F401 (every module kube-sim imports)
    from . import scenario  # noqa: F401 (imported by main() only with --scenario)
    import ctypes  # noqa: F401 (main()'s tune_malloc)
    import random  # noqa: F401
    import traceback  # noqa: F401

    watch = os.path.dirname(os.path.abspath(path))
    token = secrets.token_hex(16)
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    signal.signal(signal.SIGCHLD, _reap)
    fd = os.open(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.write(fd, b"%d %s\n" % (srv.getsockname()[1], token.encode()))
    os.close(fd)
    os.rename(path + ".tmp", path)
    last = time.monotonic()
    while os.path.isdir(watch) and time.monotonic() - last < IDLE_EXIT_S:
        if not select.select([srv], [], [], 2.0)[0]:
            continue
        conn, _ = srv.accept()
        last = time.monotonic()
        with conn:
            conn.settimeout(30)     # a request half sent holds up no other for long
            _spawn_child(conn, srv, token)
    try:
        os.unlink(path)
    except OSError:
        pass
    return 0


def start(path):
    """The zygote for path, started unless its file is there (under a lock:
    threads and processes may ask at once); false when it could not start."""
    import fcntl
    import subprocess

    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(path):
            return True
        with open(path + ".log", "a") as log:
            z = subprocess.Popen([sys.executable, "-S", os.path.join(HERE, "kube-sim-fork"), "--serve", path],
                                 cwd="/", stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                 start_new_session=True)
        while not os.path.exists(path) and z.poll() is None:    # until it listens
            time.sleep(0.02)
        return os.path.exists(path)


def spawn(path, argv, parent, log, env=None, cwd=None):
    """A kube-sim with argv, its output in log, forked by the zygote whose
    FILE is path (started if need be); it exits when process parent does.
    Its PID, or None when no zygote answers."""
    try:
        if not start(path):
            return None
        with open(path) as f:
            port, token = f.read().split()
        s = socket.create_connection(("127.0.0.1", int(port)))
    except (OSError, ValueError):
        return None
    env = os.environ if env is None else env
    fields = [token, str(parent), cwd or os.getcwd(), log, str(len(argv))] + list(argv) + \
        ["%s=%s" % kv for kv in env.items()]
    with s:
        s.sendall(b"".join(x.encode("utf-8", "surrogateescape") + b"\0" for x in fields) + b"\0")
        answer = b""
        while True:
            part = s.recv(64)
            if not part:
                break
            answer += part
    return int(answer) if answer.strip().isdigit() else None


def alive(pid):
    """Whether process pid is there (a child the zygote forked is reaped
    as it ends, so this is whether it runs)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True
