# cloud-ide resident agent (the name tests and people find it by: pgrep -f "cloud-ide[ ]resident agent")
#
# One long-lived Python process per container (`python3 -c SCRIPT ROOT`, the
# Worker's worker/resident/agent-script.ts) that answers file operations and
# streams change events over its stdin/stdout (the framing is in
# worker/resident/agent-protocol.ts). Python because it is in every image (an
# old snapshot included) and its start, not its work, was the cost of the
# per-call helper: resident, a stat is a round trip on the pipe. Each request
# runs on its own thread, so a large download never holds back a stat; each
# stream flows only as far as the other side granted (CREDIT), so neither
# holds a whole file.
#
# The operations are the helper's own (file_operations.py, put in place of
# the import below): every path resolved beneath a descriptor of ROOT, never
# followed out of it. ROOT's descriptor is opened again when the folder itself
# was replaced. Change events come from inotify through ctypes, in
# inotifywait's line format, so the Worker parses them as before. A thread
# forwards dev servers that listen on loopback only to the container's own
# address, where getTcpPort() reaches them (loopback_forwarder.py, put in
# place of its import line too).
import ctypes, json, os, struct, sys, time
from file_operations import DIR_FLAGS, Fail, answer_bytes, error_json, libc, open_path, oserror, run_op
from loopback_forwarder import start_loopback_forwarder
import collections, re, select, signal, threading

# Frames, both ways: u32 length of the rest, u32 request id, u8 kind, u32 header length, JSON header, payload.
OPEN, DATA, END, CANCEL, CREDIT, HEAD, RESULT, ERROR, HELLO = 1, 2, 3, 4, 5, 6, 7, 8, 9
WINDOW = 1 << 20  # bytes of a request's stream either side may send before the other grants more
MAX_PAYLOAD = 256 * 1024
MAX_HEADER = 64 * 1024  # a call's answer longer than this goes as DATA, never as one oversized frame
VERSION = 4  # worker/resident/agent-protocol.ts's AGENT_VERSION

class Cancelled(BaseException):
    """The Worker cancelled the request (or went away): unwinds it, and a save removes its temporary file."""

send_lock = threading.Lock()
stdout = sys.stdout.buffer

def send(rid, kind, header=None, payload=b""):
    """Writes one frame; a Worker that went away (EPIPE) cancels the request that tried."""
    send_raw(rid, kind, None if header is None else json.dumps(header, separators=(",", ":")).encode(), payload)

def send_raw(rid, kind, head, payload=b""):
    """send() with the header's JSON already encoded (HEAD None: no header)."""
    head = head or b""
    prefix = struct.pack(">IIBI", 9 + len(head) + len(payload), rid, kind, len(head))
    with send_lock:
        try:
            stdout.write(prefix + head)
            if payload:
                stdout.write(payload)
            stdout.flush()
        except (OSError, ValueError):
            # A broken pipe, or the Worker's connection reset: either way nobody reads the answer.
            raise Cancelled()

class Request:
    """One request in flight: its body arriving (src for run_op) and its answer leaving (out for run_op),
    each side flowing only as far as the other has granted (CREDIT)."""
    def __init__(self, rid):
        self.rid, self.cond = rid, threading.Condition()
        self.inbox, self.ended, self.cancelled, self.credit = collections.deque(), False, False, WINDOW

    def read(self, size=-1):
        with self.cond:
            while not self.inbox and not self.ended and not self.cancelled:
                self.cond.wait()
            if self.cancelled:
                raise Cancelled()
            if not self.inbox:
                return b""
            chunk = self.inbox.popleft()
        send(self.rid, CREDIT, {"n": len(chunk)})
        return chunk

    def begin(self, st):
        send(self.rid, HEAD, st)

    def write(self, data):
        view = memoryview(data)
        while len(view):
            n = min(len(view), MAX_PAYLOAD)
            with self.cond:
                while self.credit < n and not self.cancelled:
                    self.cond.wait()
                if self.cancelled:
                    raise Cancelled()
                self.credit -= n
            send(self.rid, DATA, None, view[:n])
            view = view[n:]

    def flush(self):
        pass

requests = {}
requests_lock = threading.Lock()
root_lock = threading.Lock()
root_id = None

def ensure_root():
    """A descriptor of root, opened again when root was replaced (a restore); old ones stay open for
    requests still using them."""
    global rootfd, root_id
    st = os.stat(root, follow_symlinks=False)
    if (st.st_dev, st.st_ino) != root_id:
        with root_lock:
            fd = os.open(root, DIR_FLAGS | os.O_NOFOLLOW)
            st = os.fstat(fd)
            rootfd, root_id = fd, (st.st_dev, st.st_ino)

def answer(rid, kind, header):
    try:
        send(rid, kind, header)
    except Cancelled:
        pass

def answer_raw(rid, kind, head):
    try:
        send_raw(rid, kind, head)
    except Cancelled:
        pass

def serve(req, op, args):
    try:
        ensure_root()
        if op == "ping":
            result = {"pid": os.getpid()}
        elif op == "watch":
            result = watch(req, args)
        elif op == "run":
            result = run_command(req, args)
        elif op == "command":
            result = stream_command(req, args)
        elif op == "shell":
            result = run_shell(req, args)
        else:
            result = run_op(op, args, req, req)
        body = None if result is None else answer_bytes(result)
        if body is not None and len(body) > MAX_HEADER:
            # A large answer (a folder of many entries) flows as DATA, as far as the Worker granted.
            req.write(body)
            body = None
        answer_raw(req.rid, RESULT, body)
    except Cancelled:
        answer(req.rid, ERROR, {"code": "ECANCELED", "detail": "The request was cancelled"})
    except (Fail, OSError) as e:
        answer(req.rid, ERROR, error_json(e))
    except Exception as e:  # a bug here must answer its caller, not leave it waiting
        answer(req.rid, ERROR, {"code": "EIO", "detail": "agent: %s: %s" % (type(e).__name__, e)})
    finally:
        with requests_lock:
            requests.pop(req.rid, None)

# Change events: inotify through ctypes, the events and line format of
# inotifywait -m -r -e create,modify,close_write,attrib,delete,move --format '%e\t%w%f'.
IN_EVENTS = [(0x2, "MODIFY"), (0x4, "ATTRIB"), (0x8, "CLOSE_WRITE"), (0x40, "MOVED_FROM"), (0x80, "MOVED_TO"),
             (0x100, "CREATE"), (0x200, "DELETE")]
WATCH_MASK = 0x2 | 0x4 | 0x8 | 0x40 | 0x80 | 0x100 | 0x200
IN_Q_OVERFLOW, IN_IGNORED, IN_ISDIR = 0x4000, 0x8000, 0x40000000
IN_NONBLOCK, IN_CLOEXEC = 0o4000, 0o2000000

def watch(req, args):
    """Watches the folder at ARGS[0] and every folder beneath it except those matching the regex ARGS[1];
    HEAD once every folder is watched, then lines of events as DATA until cancelled."""
    top, exclude = args[0].rstrip("/") or "/", re.compile(args[1]) if args[1] else None
    if libc is None:
        raise Fail("ENOSYS", "No libc for inotify")
    ifd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
    if ifd < 0:
        raise oserror(ctypes.get_errno())
    paths = {}

    def add_tree(path):
        # Reached through descriptors beneath root (never a link), each folder watched by its descriptor.
        try:
            fd = open_path(path, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return
        try:
            for rel, dirs, files, dirfd in os.fwalk(".", dir_fd=fd, follow_symlinks=False):
                full = path if rel == "." else path + rel[1:]
                dirs[:] = [d for d in dirs if not (exclude and exclude.search(full + "/" + d))]
                wd = libc.inotify_add_watch(ifd, ("/proc/self/fd/%d" % dirfd).encode(), WATCH_MASK)
                if wd >= 0:
                    paths[wd] = full
        except OSError:
            pass  # a folder removed meanwhile
        finally:
            os.close(fd)

    try:
        add_tree(top)
        req.begin(None)
        while True:
            with req.cond:
                if req.cancelled:
                    raise Cancelled()
            if not select.select([ifd], [], [], 0.25)[0]:
                continue
            try:
                # 64 KiB: a read that asks for more (Python allocates what it asks for, then shrinks it to the
                # few events there are) cost ~80 us of CPU against ~3 us, on every batch of events.
                data = os.read(ifd, 64 * 1024)
            except BlockingIOError:
                continue
            lines, offset = [], 0
            while offset + 16 <= len(data):
                wd, mask, cookie, length = struct.unpack_from("iIII", data, offset)
                name = data[offset + 16:offset + 16 + length].rstrip(b"\0").decode("utf-8", "surrogateescape")
                offset += 16 + length
                if mask & IN_Q_OVERFLOW:
                    lines.append("Q_OVERFLOW\t")
                    continue
                if mask & IN_IGNORED:
                    paths.pop(wd, None)
                    continue
                base = paths.get(wd)
                if base is None or not mask & WATCH_MASK:
                    continue
                full = base + "/" + name if name else base + "/"
                if exclude and exclude.search(full.rstrip("/")):
                    continue
                if mask & IN_ISDIR and mask & (0x80 | 0x100):
                    add_tree(full)
                flags = [label for bit, label in IN_EVENTS if mask & bit]
                if mask & IN_ISDIR:
                    flags.append("ISDIR")
                lines.append(",".join(flags) + "\t" + full)
            if lines:
                req.write(("\n".join(lines) + "\n").encode("utf-8", "surrogateescape"))
    finally:
        os.close(ifd)

def run_command(req, args):
    """Runs ARGS[1:] to completion (a short command: output kept whole), with ARGS[0] (JSON) its options:
    cwd ("/" unless given), env (added to the environment), stdin (true: the request's body, else none)."""
    import subprocess
    options = json.loads(args[0])
    env = dict(os.environ)
    env.update(options.get("env") or {})
    stdin = b"".join(iter(req.read, b"")) if options.get("stdin") else None
    done = subprocess.run(args[1:], input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
                          capture_output=True, cwd=options.get("cwd") or "/", env=env)
    return {"exitCode": done.returncode, "stdout": done.stdout.decode("utf-8", "replace"),
            "stderr": done.stderr.decode("utf-8", "replace")}

def stream_command(req, args):
    """Runs ARGS[1:] in "/" with ARGS[0] (JSON) added to the environment, stderr into stdout, streamed as DATA
    as the Worker grants; answers its exit code. A cancel ends its whole process group (TERM, KILL 5 s later)."""
    import subprocess
    env = dict(os.environ)
    env.update(json.loads(args[0]))
    p = subprocess.Popen(args[1:], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         cwd="/", env=env, start_new_session=True)
    def end_on_cancel():
        with req.cond:
            while not req.cancelled and p.poll() is None:
                req.cond.wait(0.5)
            if not req.cancelled:
                return
        end_group(p, 5)
    threading.Thread(target=end_on_cancel, daemon=True).start()
    stream_output(req, p)
    return {"exitCode": p.wait()}

def end_group(p, grace, signalled=lambda sig: None):
    """TERM to P's process group, then KILL GRACE seconds later if it is still there (SIGNALLED is told
    before each)."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 0)):
        signalled(sig)
        try:
            os.killpg(p.pid, sig)
        except OSError:
            return
        end = time.monotonic() + wait
        while p.poll() is None and time.monotonic() < end:
            time.sleep(0.05)
        if p.poll() is not None:
            return

def stream_output(req, p):
    """P's stdout to the request as DATA, as far as the Worker grants, until it ends."""
    req.begin(None)
    try:
        while True:
            chunk = os.read(p.stdout.fileno(), 65536)
            if not chunk:
                break
            req.write(chunk)
    finally:
        p.stdout.close()

# Commands run by a login shell (run_command's bash -lc). Such a shell costs a bash and its profile's own
# processes (Debian's /etc/profile runs id and run-parts, ours cat) before the command even starts: one is
# started ahead instead (when a command ends, for the next), reads its profile, and waits on a pipe for the
# next command (SHELL_BOOT). It is used only while nothing its profile reads has changed since it started, and
# never for another environment.
SHELL_BOOT = r"""# cloud-ide: a login shell started ahead for the agent's next command, which comes on fd $1
# Out of memory, the command goes before the agent (and tmux): its score raised, inherited by what it runs.
echo 500 >/proc/self/oom_score_adj 2>/dev/null
__cloud_ide_fd=$1
shift
. "/dev/fd/$__cloud_ide_fd"
exec {__cloud_ide_fd}<&-
unset __cloud_ide_fd
[ $# -gt 0 ] || exit 0
eval "shift; $1"
"""
# What a login bash reads (with the file ours reads), ~ being its HOME.
PROFILE_PATHS = ("/etc/profile", "/etc/profile.d", "/etc/bash.bashrc", "/etc/cloud-ide/preview-hosts",
                 "~/.bash_profile", "~/.bash_login", "~/.profile", "~/.bashrc")
ready_lock = threading.Lock()
ready = None  # the shell started ahead: (environment, profile state, process, write end of its command pipe)

def profile_state(home):
    """Each profile file (and each file of a profile folder) as it stands: identity, size, time."""
    state = []
    for path in PROFILE_PATHS:
        path = home + path[1:] if path.startswith("~") else path
        names = [path]
        if os.path.isdir(path):
            try:
                names += [os.path.join(path, name) for name in sorted(os.listdir(path))]
            except OSError:
                pass
        for name in names:
            try:
                st = os.stat(name)
                state.append((name, st.st_ino, st.st_size, st.st_mtime_ns))
            except OSError:
                state.append((name, None))
    return state

def start_shell(env):
    import subprocess
    r, w = os.pipe()
    try:
        p = subprocess.Popen(["bash", "-l", "-c", SHELL_BOOT, "bash", str(r)], pass_fds=(r,), stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd="/", env=env, start_new_session=True)
    except BaseException:
        os.close(w)
        raise
    finally:
        os.close(r)
    return p, w

def drop_shell(shell, wait=None):
    """A shell started ahead that will not run a command: its pipe closed, it reads none and exits; reaped
    (in the background unless WAIT seconds are given, then killed when it takes longer)."""
    import subprocess
    p, w = shell
    os.close(w)
    p.stdout.close()
    if wait is None:
        threading.Thread(target=p.wait, daemon=True).start()
        return
    try:
        p.wait(wait)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        p.wait()

def prepare_shell(key, env):
    """Starts the shell for the next command (replacing one that was there)."""
    global ready
    state = profile_state(env.get("HOME", "/root"))  # before it starts: a change during its profile counts
    try:
        shell = start_shell(env)
    except Exception:
        return  # the next command starts its own
    with ready_lock:
        old, ready = ready, (key, state) + shell
    if old is not None:
        drop_shell(old[2:])

def take_shell(key, env):
    """A login shell for ENV (KEY is its JSON): the one started ahead when it fits, else a new one."""
    global ready
    with ready_lock:
        kept, ready = ready, None
    if kept is not None:
        if kept[0] == key and kept[2].poll() is None and kept[1] == profile_state(env.get("HOME", "/root")):
            return kept[2:]
        drop_shell(kept[2:])
    return start_shell(env)

def shell_quote(word):
    return "'" + word.replace("'", "'\\''") + "'"

def run_shell(req, args):
    """timeout --kill-after=ARGS[2] ARGS[1] bash -lc ARGS[3] bash ARGS[4:], in "/" with ARGS[0] (JSON) added to
    the environment, stderr into stdout: its output streamed as DATA as the Worker grants, then its exit code,
    124 when the timeout ended it or 137 when that took a KILL (as timeout(1) answers). The timeout and a cancel
    end its whole process group (TERM, then KILL)."""
    timeout, kill_after, words = float(args[1]), float(args[2]), args[3:]
    if any("\0" in word for word in words):
        raise Fail("EINVAL", "A command cannot hold a NUL character")
    command = ("set -- " + " ".join(shell_quote(word) for word in words) + "\n").encode("utf-8", "surrogateescape")
    env = dict(os.environ)
    env.update(json.loads(args[0]))
    p, w = take_shell(args[0], env)
    try:
        return supervised(req, p, w, env, command, timeout, kill_after)
    finally:
        # The next one starts once this command ended: it never competes with the command for the CPU.
        threading.Thread(target=prepare_shell, args=(args[0], env), daemon=True).start()

def supervised(req, p, w, env, command, timeout, kill_after):
    """Hands COMMAND to the shell P (its pipe W; a new one for ENV if P died meanwhile), streams its output,
    ends it at the timeout or on a cancel."""
    try:
        with open(w, "wb") as pipe:
            pipe.write(command)
    except BrokenPipeError:
        # It died before it took the command (killed from a terminal, say): a new one takes it.
        p.stdout.close()
        p.wait()
        p, w = start_shell(env)
        with open(w, "wb") as pipe:
            pipe.write(command)
    deadline = time.monotonic() + timeout
    ended = {"timeout": False, "kill": False}

    def supervise():
        with req.cond:
            while not req.cancelled and p.poll() is None and time.monotonic() < deadline:
                req.cond.wait(min(0.5, max(0, deadline - time.monotonic())))
            if not req.cancelled and p.poll() is not None:
                return
            ended["timeout"] = not req.cancelled
        end_group(p, kill_after, lambda sig: ended.__setitem__("kill", sig == signal.SIGKILL))
    threading.Thread(target=supervise, daemon=True).start()
    stream_output(req, p)
    code = p.wait()
    with req.cond:
        req.cond.notify_all()  # the supervisor's wait ends with it
        if ended["timeout"]:
            code = 137 if ended["kill"] else 124
    return {"exitCode": code}

def read_exact(stream, n):
    data = stream.read(n)
    if data is None or len(data) < n:
        raise EOFError()
    return data

def stdin_line():
    """One line of fd 0, read a byte at a time so nothing after it is taken from the frames that may follow."""
    line = b""
    while not line.endswith(b"\n"):
        byte = os.read(0, 1)
        if not byte:
            raise EOFError()
        line += byte
    return line.strip()

class QuickAcks:
    """The connection's frames, read with each segment acknowledged at once (TCP_QUICKACK, which Linux
    clears again as it pleases): the Worker's side delays a small write while its last one is unacknowledged
    (Nagle), and the delayed ACK held the next request's OPEN behind it for up to 40 ms."""
    def __init__(self, conn):
        import socket
        self.conn, self.reader = conn, conn.makefile("rb")
        self.level, self.option = socket.IPPROTO_TCP, getattr(socket, "TCP_QUICKACK", 12)

    def read(self, n):
        data = self.reader.read(n)
        try:
            self.conn.setsockopt(self.level, self.option, 1)
        except OSError:
            pass
        return data

def handshake():
    """ARGV[2] "tcp": the frames go over a TCP connection instead of stdio (a container's stdio reaches the Worker
    in pieces of a few KiB; a socket does not). The Worker writes a token line on stdin; the agent listens on a
    port of its own choosing and says it in a first HELLO on stdout; the Worker connects and presents the token.
    The first connection that presents it carries the frames and the port closes; any other is dropped (a
    preview link to that port, another container). A "stdio" line on stdin instead (the Worker could not
    connect) keeps the frames on stdio. Returns the stream the frames arrive on."""
    global stdout
    import hmac, socket
    token = stdin_line()
    if len(token) < 32:
        raise SystemExit("the token line is too short")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # 0.0.0.0: the Worker reaches a container's port from outside it (getTcpPort cannot reach 127.0.0.1).
    listener.bind(("0.0.0.0", 0))
    listener.listen(8)
    send(0, HELLO, {"version": VERSION, "pid": os.getpid(), "port": listener.getsockname()[1]})
    try:
        while True:
            if 0 in select.select([0, listener], [], [])[0]:
                if stdin_line() != b"stdio":
                    raise SystemExit("expected a stdio line")
                return sys.stdin.buffer
            conn, _ = listener.accept()
            try:
                conn.settimeout(2)  # one that says nothing holds the port no longer than this
                presented = b""
                while len(presented) < len(token) + 1:
                    more = conn.recv(len(token) + 1 - len(presented))
                    if not more:
                        break
                    presented += more
            except OSError:
                presented = b""
            if hmac.compare_digest(presented, token + b"\n"):
                conn.settimeout(None)
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                stdout = conn.makefile("wb")
                return QuickAcks(conn)
            conn.close()
    finally:
        listener.close()

def main():
    global root
    root = os.path.normpath(sys.argv[1] or "/")
    start_loopback_forwarder()
    stdin = handshake() if sys.argv[2:3] == ["tcp"] else sys.stdin.buffer
    send(0, HELLO, {"version": VERSION, "pid": os.getpid()})
    try:
        while True:
            length, rid, kind, hlen = struct.unpack(">IIBI", read_exact(stdin, 13))
            body = read_exact(stdin, length - 9)
            header = json.loads(body[:hlen]) if hlen else None
            payload = body[hlen:]
            if kind == OPEN:
                req = Request(rid)
                with requests_lock:
                    requests[rid] = req
                threading.Thread(target=serve, args=(req, header["op"], header["args"]), daemon=True).start()
                continue
            with requests_lock:
                req = requests.get(rid)
            if req is None:
                continue  # already answered
            with req.cond:
                if kind == DATA:
                    req.inbox.append(payload)
                elif kind == END:
                    req.ended = True
                elif kind == CANCEL:
                    req.cancelled = True
                elif kind == CREDIT:
                    req.credit += header["n"]
                req.cond.notify_all()
    except (EOFError, OSError):
        pass  # its stdin or its connection ended (or was reset)
    # The Worker went away: what is in flight is cancelled (a save leaves the old file), then exit.
    with requests_lock:
        pending = list(requests.values())
    for req in pending:
        with req.cond:
            req.cancelled = True
            req.cond.notify_all()
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        with requests_lock:
            if not requests:
                break
        time.sleep(0.01)
    with ready_lock:
        kept = ready
    if kept is not None:
        drop_shell(kept[2:], wait=1)  # reaped here: a process left behind would stay a zombie under PID 1
    os._exit(0)

if __name__ == "__main__":
    main()
