"""resident_agent.py: its frames and flow control in this process, then the program itself over
stdio as the Worker drives it (worker/resident/agent-protocol.ts is the Worker's side)."""
import io
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
import unittest

from programs import command, load

OPEN, DATA, END, CANCEL, CREDIT, HEAD, RESULT, ERROR, HELLO = 1, 2, 3, 4, 5, 6, 7, 8, 9
WINDOW, MAX_PAYLOAD, MAX_HEADER = 1 << 20, 256 * 1024, 64 * 1024


def frame(rid, kind, header=None, payload=b""):
    head = b"" if header is None else json.dumps(header).encode()
    return struct.pack(">IIBI", 9 + len(head) + len(payload), rid, kind, len(head)) + head + payload


def parse(data):
    """The frames in DATA: (rid, kind, header, payload)."""
    frames = []
    while data:
        length, rid, kind, hlen = struct.unpack(">IIBI", data[:13])
        body, data = data[13:4 + length], data[4 + length:]
        frames.append((rid, kind, json.loads(body[:hlen]) if hlen else None, body[hlen:]))
    return frames


def read_frame(stream):
    """One frame from STREAM: (rid, kind, header, payload)."""
    head = stream.read(13)
    if len(head) < 13:
        raise EOFError()
    length, rid, kind, hlen = struct.unpack(">IIBI", head)
    body = stream.read(length - 9)
    return rid, kind, json.loads(body[:hlen]) if hlen else None, body[hlen:]


class InProcess(unittest.TestCase):
    """The agent's parts loaded as a module (its main() does not run), its stdout a buffer."""

    def setUp(self):
        self.agent = load("resident_agent.py")
        self.out = io.BytesIO()
        self.agent.stdout = self.out

    def test_the_version_is_the_workers(self):
        protocol = os.path.join(os.path.dirname(__file__), "../../worker/resident/agent-protocol.ts")
        if not os.path.exists(protocol):
            self.skipTest("no worker/ beside sandbox/")
        with open(protocol) as f:
            self.assertIn("export const AGENT_VERSION = %d;" % self.agent.VERSION, f.read())

    def test_a_frame_is_length_id_kind_header_length_header_payload(self):
        self.agent.send(7, HEAD, {"a": 1}, b"xyz")
        data = self.out.getvalue()
        self.assertEqual(data, struct.pack(">IIBI", 9 + 7 + 3, 7, HEAD, 7) + b'{"a":1}' + b"xyz")

    def test_a_frame_without_a_header_has_header_length_zero(self):
        self.agent.send(1, END)
        self.assertEqual(parse(self.out.getvalue()), [(1, END, None, b"")])

    def test_a_broken_pipe_cancels_the_request_that_wrote(self):
        class Broken:
            def write(self, _):
                raise BrokenPipeError()

        self.agent.stdout = Broken()
        with self.assertRaises(self.agent.Cancelled):
            self.agent.send(1, DATA, None, b"x")

    def test_reading_a_requests_body_grants_what_was_taken(self):
        req = self.agent.Request(3)
        req.inbox.extend([b"abc", b"de"])
        req.ended = True
        self.assertEqual(b"".join(iter(req.read, b"")), b"abcde")
        credits = [(f[0], f[1], f[2]) for f in parse(self.out.getvalue())]
        self.assertEqual(credits, [(3, CREDIT, {"n": 3}), (3, CREDIT, {"n": 2})])

    def test_a_cancelled_request_stops_its_reader_and_its_writer(self):
        req = self.agent.Request(4)
        req.cancelled = True
        with self.assertRaises(self.agent.Cancelled):
            req.read()
        with self.assertRaises(self.agent.Cancelled):
            req.write(b"x")

    def test_a_write_goes_in_frames_of_at_most_max_payload_as_far_as_granted(self):
        req = self.agent.Request(5)
        req.credit = MAX_PAYLOAD + 10
        data = bytes(range(256)) * 1024 + b"tail"  # 256 KiB + 4
        req.write(data)
        frames = parse(self.out.getvalue())
        self.assertEqual([len(f[3]) for f in frames], [MAX_PAYLOAD, 4])
        self.assertEqual(b"".join(f[3] for f in frames), data)
        self.assertEqual(req.credit, 6)

    def test_a_write_waits_for_credit(self):
        req = self.agent.Request(6)
        writer = threading.Thread(target=req.write, args=(b"12345",))
        writer.start()
        with req.cond:
            req.credit = 5
            req.cond.notify_all()
        writer.join()
        self.assertEqual(parse(self.out.getvalue()), [(6, DATA, None, b"12345")])

    def test_read_exact_raises_eof_on_a_short_stream(self):
        self.assertEqual(self.agent.read_exact(io.BytesIO(b"abcd"), 4), b"abcd")
        with self.assertRaises(EOFError):
            self.agent.read_exact(io.BytesIO(b"ab"), 4)


class Agent:
    """The agent program over stdio: frames written to its stdin, read from its stdout."""

    def __init__(self, root, *args):
        self.process = subprocess.Popen(command("resident_agent.py", root, *args), stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE)
        self.next = 1

    def read(self):
        return read_frame(self.process.stdout)

    def send(self, *parts):
        self.process.stdin.write(frame(*parts))
        self.process.stdin.flush()

    def open(self, op, *args):
        rid, self.next = self.next, self.next + 1
        self.send(rid, OPEN, {"op": op, "args": list(args)})
        return rid

    def answer(self, rid, grant=True):
        """The frames of RID up to its RESULT or ERROR, granting credit for DATA as it comes."""
        frames = []
        while True:
            got = self.read()
            if got[0] != rid:
                continue
            frames.append(got)
            if got[1] == DATA and grant:
                self.send(rid, CREDIT, {"n": len(got[3])})
            if got[1] in (RESULT, ERROR):
                return frames

    def call(self, op, *args):
        last = self.answer(self.open(op, *args))[-1]
        return last[1], last[2]

    def close(self):
        self.process.stdin.close()
        code = self.process.wait()
        self.process.stdout.close()
        return code


class OverStdio(unittest.TestCase):
    def setUp(self):
        scratch = tempfile.mkdtemp(prefix="cloud-ide-agent-")
        self.addCleanup(shutil.rmtree, scratch)
        self.root = os.path.join(scratch, "workspace")
        os.mkdir(self.root)
        self.agent = Agent(self.root)
        self.addCleanup(lambda: self.agent.process.poll() is None and self.agent.close())
        self.hello = self.agent.read()

    def at(self, path):
        return os.path.join(self.root, path)

    def test_it_says_hello_with_its_version_and_pid(self):
        self.assertEqual(self.hello[:2], (0, HELLO))
        self.assertEqual(self.hello[2], {"version": 4, "pid": self.agent.process.pid})

    def test_ping_answers_its_pid(self):
        self.assertEqual(self.agent.call("ping"), (RESULT, {"pid": self.agent.process.pid}))

    def test_an_operation_answers_its_result_and_a_failure_its_linux_error(self):
        with open(self.at("f.txt"), "w") as f:
            f.write("abc")
        kind, st = self.agent.call("stat", self.at("f.txt"))
        self.assertEqual((kind, st["type"], st["size"]), (RESULT, "file", 3))
        kind, error = self.agent.call("stat", self.at("missing"))
        self.assertEqual((kind, error["code"]), (ERROR, "ENOENT"))

    def test_an_unknown_operation_is_einval(self):
        self.assertEqual(self.agent.call("chmod", self.root), (ERROR, {"code": "EINVAL", "detail": "Unknown operation chmod"}))

    def test_a_read_sends_head_then_data_then_a_result_without_header(self):
        with open(self.at("f.txt"), "wb") as f:
            f.write(b"hello")
        frames = self.agent.answer(self.agent.open("read", self.at("f.txt"), "stat"))
        self.assertEqual([f[1] for f in frames], [HEAD, DATA, RESULT])
        self.assertEqual(frames[0][2]["size"], 5)
        self.assertEqual(frames[1][3], b"hello")
        self.assertIsNone(frames[2][2])

    def test_a_large_read_never_runs_more_than_a_window_ahead_of_the_credit(self):
        size = 3 * WINDOW + 12345
        with open(self.at("big"), "wb") as f:
            f.write(os.urandom(size))
        rid = self.agent.open("read", self.at("big"))
        received, granted, outstanding, data = 0, 0, 0, []
        while True:
            got = self.agent.read()
            if got[1] == HEAD:
                continue
            if got[1] == RESULT:
                break
            self.assertEqual(got[1], DATA)
            self.assertLessEqual(len(got[3]), MAX_PAYLOAD)
            data.append(got[3])
            received += len(got[3])
            outstanding += len(got[3])
            self.assertLessEqual(outstanding, WINDOW)
            if outstanding == WINDOW or received == size:
                self.agent.send(rid, CREDIT, {"n": outstanding})
                granted += outstanding
                outstanding = 0
        with open(self.at("big"), "rb") as f:
            self.assertEqual(b"".join(data), f.read())

    def test_a_stat_is_answered_while_a_read_waits_for_credit(self):
        with open(self.at("big"), "wb") as f:
            f.write(b"x" * (2 * WINDOW))
        read = self.agent.open("read", self.at("big"))
        stat = self.agent.open("stat", self.at("big"))
        seen = {}
        while stat not in seen:
            rid, kind, header, _ = self.agent.read()
            if rid == stat and kind == RESULT:
                seen[stat] = header
        self.assertEqual(seen[stat]["size"], 2 * WINDOW)
        self.agent.send(read, CANCEL)
        self.assertEqual(self.agent.answer(read)[-1][1:3], (ERROR, {"code": "ECANCELED", "detail": "The request was cancelled"}))

    def test_a_write_takes_its_body_from_data_frames_and_grants_them(self):
        rid = self.agent.open("write", self.at("w.txt"))
        self.agent.send(rid, DATA, None, b"hello ")
        self.agent.send(rid, DATA, None, b"world")
        self.agent.send(rid, END)
        frames = self.agent.answer(rid)
        credits = sum(f[2]["n"] for f in frames if f[1] == CREDIT)
        self.assertEqual(credits, 11)
        self.assertEqual(frames[-1][1], RESULT)
        self.assertEqual(frames[-1][2]["size"], 11)
        with open(self.at("w.txt")) as f:
            self.assertEqual(f.read(), "hello world")

    def test_a_cancelled_save_leaves_the_file_and_no_temporary(self):
        with open(self.at("s.txt"), "w") as f:
            f.write("old")
        rid = self.agent.open("save", self.at(".tmp-s"), self.at("s.txt"), "")
        self.agent.send(rid, DATA, None, b"partial")
        self.agent.send(rid, CANCEL)
        self.assertEqual(self.agent.answer(rid)[-1][2]["code"], "ECANCELED")
        self.assertEqual(sorted(os.listdir(self.root)), ["s.txt"])
        with open(self.at("s.txt")) as f:
            self.assertEqual(f.read(), "old")

    def test_a_listing_longer_than_a_header_comes_as_data(self):
        for i in range(1500):
            open(self.at("file-with-a-long-enough-name-%04d" % i), "w").close()
        frames = self.agent.answer(self.agent.open("list", self.root))
        self.assertEqual(frames[-1][1:3], (RESULT, None))
        listing = json.loads(b"".join(f[3] for f in frames if f[1] == DATA))
        self.assertEqual(len(listing["entries"]), 1500)

    def test_a_short_listing_is_the_results_header(self):
        open(self.at("one"), "w").close()
        kind, listing = self.agent.call("list", self.root)
        self.assertEqual((kind, [e["name"] for e in listing["entries"]]), (RESULT, ["one"]))

    def test_run_answers_a_commands_exit_code_and_output(self):
        options = json.dumps({"cwd": self.root, "env": {"GREETING": "hi"}})
        kind, result = self.agent.call("run", options, "sh", "-c", 'echo "$GREETING $PWD"; echo oops >&2; exit 3')
        self.assertEqual(kind, RESULT)
        self.assertEqual(result, {"exitCode": 3, "stdout": "hi %s\n" % self.root, "stderr": "oops\n"})

    def test_run_gives_the_requests_body_as_stdin_when_asked(self):
        rid = self.agent.open("run", json.dumps({"stdin": True}), "cat")
        self.agent.send(rid, DATA, None, b"piped")
        self.agent.send(rid, END)
        self.assertEqual(self.agent.answer(rid)[-1][2]["stdout"], "piped")

    def test_command_streams_output_with_stderr_then_its_exit_code(self):
        frames = self.agent.answer(self.agent.open("command", json.dumps({}), "sh", "-c", "echo out; echo err >&2; exit 5"))
        self.assertEqual(frames[0][1], HEAD)
        self.assertEqual(b"".join(f[3] for f in frames if f[1] == DATA), b"out\nerr\n")
        self.assertEqual(frames[-1][1:3], (RESULT, {"exitCode": 5}))

    def test_a_shell_command_is_the_first_the_oom_killer_takes_and_the_agents_own_run_is_not(self):
        # The agent runs the person's commands (run_command) by "shell": raised to 500, so out of memory the
        # kernel kills them before the agent. "run" is the IDE's own (git, tmux: a tmux server it starts keeps
        # the agent's score).
        own = open("/proc/%d/oom_score_adj" % self.agent.process.pid).read().strip()
        # A HOME of its own: the login shell reads no profile of this machine's user (slow ones exist).
        env = json.dumps({"HOME": os.path.dirname(self.root)})
        frames = self.agent.answer(self.agent.open("shell", env, "60", "1", "cat /proc/self/oom_score_adj"))
        self.assertEqual(b"".join(f[3] for f in frames if f[1] == DATA), b"500\n", frames)
        self.assertEqual(frames[-1][1:3], (RESULT, {"exitCode": 0}))
        kind, result = self.agent.call("run", json.dumps({}), "cat", "/proc/self/oom_score_adj")
        self.assertEqual((kind, result["stdout"].strip()), (RESULT, own))

    def test_watch_streams_changes_in_inotifywaits_format_until_cancelled(self):
        os.mkdir(self.at("skip"))
        rid = self.agent.open("watch", self.root, "/skip$")
        self.assertEqual(self.agent.read()[:2], (rid, HEAD))
        open(self.at("skip/ignored"), "w").close()
        with open(self.at("new.txt"), "w") as f:
            f.write("x")
        lines = []
        while not any(line.startswith("CLOSE_WRITE") for line in lines):
            got = self.agent.read()
            self.assertEqual(got[:2], (rid, DATA))
            self.agent.send(rid, CREDIT, {"n": len(got[3])})
            lines += got[3].decode().splitlines()
        self.assertEqual(lines[0], "CREATE\t%s/new.txt" % self.root)
        self.assertIn("CLOSE_WRITE\t%s/new.txt" % self.root, lines)
        self.assertFalse(any("skip" in line for line in lines))
        self.agent.send(rid, CANCEL)
        self.assertEqual(self.agent.answer(rid)[-1][2]["code"], "ECANCELED")

    def test_a_replaced_root_is_opened_again(self):
        with open(self.at("f.txt"), "w") as f:
            f.write("first")
        self.assertEqual(self.agent.call("stat", self.at("f.txt"))[1]["size"], 5)
        os.rename(self.root, self.root + "-old")
        os.mkdir(self.root)
        with open(self.at("f.txt"), "w") as f:
            f.write("second!")
        self.assertEqual(self.agent.call("stat", self.at("f.txt"))[1]["size"], 7)

    def test_it_exits_when_its_stdin_ends(self):
        self.assertEqual(self.agent.close(), 0)


class OverTcp(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="cloud-ide-agent-")
        self.addCleanup(shutil.rmtree, self.root)
        self.agent = Agent(self.root, "tcp")
        self.addCleanup(lambda: self.agent.process.poll() is None and self.agent.close())

    def test_a_connection_presenting_the_token_carries_the_frames(self):
        token = b"t" * 32
        self.agent.process.stdin.write(token + b"\n")
        self.agent.process.stdin.flush()
        hello = self.agent.read()
        self.assertEqual(hello[1], HELLO)
        stranger = socket.create_connection(("127.0.0.1", hello[2]["port"]))
        stranger.sendall(b"x" * 32 + b"\n")
        self.assertEqual(stranger.recv(1), b"")  # dropped unanswered
        stranger.close()
        conn = socket.create_connection(("127.0.0.1", hello[2]["port"]))
        self.addCleanup(conn.close)
        conn.sendall(token + b"\n")
        reader = conn.makefile("rb")
        self.assertEqual(read_frame(reader)[:3], (0, HELLO, {"version": 4, "pid": self.agent.process.pid}))
        conn.sendall(frame(1, OPEN, {"op": "ping", "args": []}))
        self.assertEqual(read_frame(reader)[:3], (1, RESULT, {"pid": self.agent.process.pid}))
        reader.close()

    def test_a_short_token_is_refused(self):
        self.agent.process.stdin.write(b"short\n")
        self.agent.process.stdin.flush()
        self.assertNotEqual(self.agent.process.wait(), 0)
        self.agent.process.stdin.close()
        self.agent.process.stdout.close()


if __name__ == "__main__":
    unittest.main()
