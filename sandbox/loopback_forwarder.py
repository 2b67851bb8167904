# Loopback forwarder: part of the resident agent (one daemon thread).
#
# getTcpPort() reaches a container's port on the container's own network address, never on its loopback, and
# most dev servers (`npm run dev` of a create-vite app, Next.js, Angular...) listen on localhost by default. So for
# each port that listens on loopback only (127.0.0.1, ::1, or both), held by a process of this container, this
# binds the same port on each of the container's own non-loopback addresses and relays every connection to the
# loopback listener. Linux allows a specific address beside a loopback listener on the same port. The forward
# closes as soon as the loopback listener goes, so a server restarted on 0.0.0.0 finds its port free.
#
# Which ports are forwarded, by which of this process's sockets, and why a port could not be, is written to
# FORWARDS_FILE for the preview pane (worker/previews/ports.ts reads it with the listening ports).

import errno
import os
import select
import socket
import sys
import threading
import time

FORWARDS_FILE = "/run/cloud-ide/forwards"
FORWARD_SCAN_SECONDS = 0.5
FORWARD_RETRY_SECONDS = 10
FORWARD_MIN_PORT = 1024
FORWARD_MAX_PORTS = 64
FORWARD_CHUNK = 256 * 1024
LISTEN = "0A"


def decode_proc_address(hex_address):
    """An address of /proc/net/tcp{,6} (hex, in 32-bit words of host byte order) as text."""
    raw = bytes.fromhex(hex_address)
    words = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
    if len(words) == 4:
        return socket.inet_ntop(socket.AF_INET, words)
    ipv4 = words[:12] == b"\0" * 10 + b"\xff\xff"
    return socket.inet_ntop(socket.AF_INET, words[12:]) if ipv4 else socket.inet_ntop(socket.AF_INET6, words)


def is_loopback(address):
    return address.startswith("127.") or address == "::1"


def parse_listeners(tables):
    """{port: [(address, inode)]} of listening TCP sockets, from the text of /proc/net/tcp and /proc/net/tcp6."""
    listeners = {}
    for line in tables.splitlines():
        fields = line.split()
        if len(fields) < 10 or fields[3] != LISTEN or ":" not in fields[1]:
            continue
        address, port_hex = fields[1].rsplit(":", 1)
        try:
            port = int(port_hex, 16)
            listeners.setdefault(port, []).append((decode_proc_address(address), fields[9]))
        except ValueError:
            continue
    return listeners


def loopback_only_ports(listeners, own_inodes, min_port=FORWARD_MIN_PORT):
    """{port: loopback address to relay to} for ports whose listeners (other than ours) are all on loopback.
    127.0.0.1 is preferred to ::1 when a server listens on both (it answers either)."""
    ports = {}
    for port, sockets in listeners.items():
        theirs = [(address, inode) for address, inode in sockets if inode not in own_inodes]
        if port < min_port or not theirs or not all(is_loopback(address) for address, _ in theirs):
            continue
        addresses = sorted({address for address, _ in theirs}, key=lambda a: (a == "::1", a))
        ports[port] = addresses[0]
    return ports


def parse_local_ipv4(fib_trie):
    """The container's own IPv4 addresses (not loopback), from /proc/net/fib_trie."""
    addresses, last = [], None
    for line in fib_trie.splitlines():
        text = line.strip()
        if text.startswith("|--") or text.startswith("+--"):
            last = text[3:].strip().split()[0]
        elif text.startswith("/32 host LOCAL") and last and not last.startswith("127."):
            if last not in addresses:
                addresses.append(last)
    return addresses


def parse_local_ipv6(if_inet6):
    """The container's own global IPv6 addresses (scope 00), from /proc/net/if_inet6."""
    addresses = []
    for line in if_inet6.splitlines():
        fields = line.split()
        if len(fields) >= 6 and fields[3] == "00" and len(fields[0]) == 32:
            address = socket.inet_ntop(socket.AF_INET6, bytes.fromhex(fields[0]))
            if address != "::1" and address not in addresses:
                addresses.append(address)
    return addresses


def read_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def socket_inodes_of_processes():
    """Inodes of the sockets some process of this container holds (the network sidecar shares the namespace
    locally: its listeners are not the person's, and never forwarded)."""
    inodes = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        fd_dir = "/proc/%s/fd" % pid
        try:
            names = os.listdir(fd_dir)
        except OSError:
            continue
        for name in names:
            try:
                target = os.readlink("%s/%s" % (fd_dir, name))
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    return inodes


def pump(source, sink):
    """One direction of a relay. At the end of its stream, half-closes the other side; on an error, ends both."""
    try:
        while True:
            data = source.recv(FORWARD_CHUNK)
            if not data:
                sink.shutdown(socket.SHUT_WR)
                return
            sink.sendall(data)
    except OSError:
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def relay(client, target):
    family = socket.AF_INET6 if ":" in target[0] else socket.AF_INET
    upstream = socket.socket(family, socket.SOCK_STREAM)
    try:
        upstream.settimeout(5)
        upstream.connect(target)
        upstream.settimeout(None)
        for s in (client, upstream):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
        back.start()
        pump(client, upstream)
        back.join()
    except OSError:
        pass
    finally:
        client.close()
        upstream.close()


class Forward:
    def __init__(self, port, target, listeners):
        self.port, self.target, self.listeners = port, target, listeners

    def inodes(self):
        return [str(os.fstat(s.fileno()).st_ino) for s in self.listeners]

    def close(self):
        for s in self.listeners:
            s.close()


def open_forward(port, target, addresses):
    """Listens on `port` at each of `addresses`. Raises OSError (with every socket closed) when one cannot bind."""
    listeners = []
    try:
        for address in addresses:
            family = socket.AF_INET6 if ":" in address else socket.AF_INET
            s = socket.socket(family, socket.SOCK_STREAM)
            listeners.append(s)
            # Its connections' TIME_WAIT sockets inherit this, and so never stop the person's server (which sets it
            # too, as Node and Python do) from listening on every address once the loopback one stopped.
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            s.bind((address, port))
            s.listen(128)
            s.setblocking(False)
    except OSError:
        for s in listeners:
            s.close()
        raise
    return Forward(port, (target, port), listeners)


def describe_bind_error(error, port):
    if error.errno == errno.EADDRINUSE:
        return "another process already listens on port %d of the container's own address" % port
    if error.errno == errno.EADDRNOTAVAIL:
        return "the container has no network address to forward port %d on" % port
    return "port %d could not be forwarded (%s)" % (port, os.strerror(error.errno or 0) or error)


def write_forwards(forwards, errors):
    """`PORT INODE,INODE` per forward and `PORT ! REASON` per port that could not be, replaced in one rename."""
    lines = ["%d %s" % (port, ",".join(f.inodes())) for port, f in sorted(forwards.items())]
    lines += ["%d ! %s" % (port, reason) for port, (reason, _) in sorted(errors.items())]
    text = "".join(line + "\n" for line in lines)
    try:
        os.makedirs(os.path.dirname(FORWARDS_FILE), exist_ok=True)
        temporary = "%s.%d" % (FORWARDS_FILE, os.getpid())
        with open(temporary, "w") as f:
            f.write(text)
        os.replace(temporary, FORWARDS_FILE)
    except OSError:
        pass


def forward_loopback_ports():
    """The forwarder's loop: rescans the listening sockets every FORWARD_SCAN_SECONDS and accepts between scans."""
    forwards = {}
    errors = {}  # port -> (reason, when)
    foreign = {}  # port -> its loopback sockets' inodes, when no process of this container holds them
    written = None
    next_scan = 0.0
    while True:
        now = time.monotonic()
        if now >= next_scan:
            next_scan = now + FORWARD_SCAN_SECONDS
            own = {inode for f in forwards.values() for inode in f.inodes()}
            tables = read_text("/proc/net/tcp") + read_text("/proc/net/tcp6")
            listeners = parse_listeners(tables)
            wanted = loopback_only_ports(listeners, own)
            for port in [p for p in forwards if forwards[p].target[0] != wanted.get(p)]:
                forwards.pop(port).close()
            for port in [p for p in errors if p not in wanted]:
                del errors[port]
            inodes = {p: frozenset(i for a, i in listeners.get(p, []) if is_loopback(a)) for p in wanted}
            new = [
                p for p in sorted(wanted)
                if p not in forwards
                and foreign.get(p) != inodes[p]
                and now - errors.get(p, ("", -1e9))[1] >= FORWARD_RETRY_SECONDS
            ]
            foreign = {p: i for p, i in foreign.items() if inodes.get(p) == i}
            if new:
                held = socket_inodes_of_processes()
                addresses = parse_local_ipv4(read_text("/proc/net/fib_trie")) + parse_local_ipv6(read_text("/proc/net/if_inet6"))
                for port in new:
                    if not inodes[port] & held:
                        foreign[port] = inodes[port]  # the sidecar's, not a process of this container
                        continue
                    if len(forwards) >= FORWARD_MAX_PORTS:
                        errors[port] = ("more than %d ports listen on loopback only" % FORWARD_MAX_PORTS, now)
                    elif not addresses:
                        errors[port] = ("the container has no network address to forward port %d on" % port, now)
                    else:
                        try:
                            forwards[port] = open_forward(port, wanted[port], addresses)
                            errors.pop(port, None)
                        except OSError as error:
                            errors[port] = (describe_bind_error(error, port), now)
            state = (tuple(sorted((p, f.target) for p, f in forwards.items())), tuple(sorted((p, r) for p, (r, _) in errors.items())))
            if state != written:
                write_forwards(forwards, errors)
                written = state
        sockets = [s for f in forwards.values() for s in f.listeners]
        timeout = max(0.0, next_scan - time.monotonic())
        if not sockets:
            time.sleep(timeout)
            continue
        try:
            ready = select.select(sockets, [], [], timeout)[0]
        except (OSError, ValueError):
            continue  # a forward closed between the list and the select
        for listener in ready:
            target = next((f.target for f in forwards.values() if listener in f.listeners), None)
            try:
                client, _ = listener.accept()
            except OSError:
                continue
            client.setblocking(True)
            threading.Thread(target=relay, args=(client, target), daemon=True).start()


def start_loopback_forwarder():
    def run():
        try:
            forward_loopback_ports()
        except Exception as error:  # never takes the agent down; the next agent starts it again
            sys.stderr.write("loopback forwarder stopped: %r\n" % (error,))
    threading.Thread(target=run, daemon=True, name="loopback-forwarder").start()
