# The Python program a search runs in the container (`python3 -c SCRIPT CONFIG`,
# the Worker's worker/search/search-script.ts): it starts ripgrep (`CONFIG.argv`,
# always `--json`), reads its output as it comes and writes the search's own
# NDJSON lines (protocol/search.ts) to stdout, so the Durable Object only
# passes bytes through.
#
# The first line says whether the search runs: `{"type":"start"}`, or
# `{"type":"error","kind":"regex"|"glob","message":STDERR}` when ripgrep refuses the
# query (`CONFIG.check`, the same argv over /dev/null, is run first when the
# query can fail: a regular expression, globs; when it fails,
# `CONFIG.checkGlobs`, the globs alone, tells which was refused by its exit
# status), or `"kind":"missing"` without ripgrep. So the Durable Object can answer 400 before any result, and send
# headers at once otherwise.
#
# Why in the container: ripgrep's JSON carries every matching line whole
# (`--max-columns` does not apply to `--json`), so one match in a 50 MB
# minified file is a 50 MB line, and one with a match every few bytes adds
# millions of submatches. Such a line never leaves the container: past
# LONG_LINE bytes it is not kept, only its head (the path) and the part after
# its text (line number, offset, the first submatches); its preview is read
# back from the file at the offset ripgrep gave.
#
# Limits (CONFIG): `maxResults` matching lines, `maxBytes` of output,
# `seconds` of time; the first one reached stops ripgrep (killed, not left
# running) and is named in the `done` line. SIGTERM kills ripgrep first; a
# reader that went away (EPIPE) too. A ripgrep killed from outside (a
# cancelled search) ends the output without a `done` line.
import base64, itertools, json, os, re, select, signal, subprocess, sys, time

def configure(config):
    """The search's CONFIG (argv[1]): its limits and preview sizes, read by everything below."""
    global cfg, MAX_RESULTS, MAX_BYTES, SECONDS, PREVIEW, BEFORE, MAX_RANGES, LONG_LINE, started
    cfg = config
    MAX_RESULTS, MAX_BYTES, SECONDS = cfg["maxResults"], cfg["maxBytes"], cfg["seconds"]
    PREVIEW, BEFORE, MAX_RANGES = cfg["preview"], cfg["before"], cfg["maxRanges"]
    LONG_LINE = cfg.get("longLine", 262144)
    started = time.monotonic()

HEAD, TAIL = 16384, 65536
MARK = b'"},"line_number":'
HEAD_RE = re.compile(rb'\{"type":"match","data":\{"path":(\{"(?:text|bytes)":"(?:[^"\\]|\\.)*"\})')
TAIL_RE = re.compile(rb'"\},"line_number":(\d+|null),"absolute_offset":(\d+),"submatches":\[')
SUB_RE = re.compile(rb'"start":(\d+),"end":(\d+)\}')

def line_out(obj):
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8", "replace")

rg = None

def stop(*_):
    # Killed and waited for: a child left to PID 1 (sleep, in the sandbox image) would stay a zombie.
    if rg is not None:
        try:
            rg.kill()
            rg.wait()
        except OSError:
            pass
    os._exit(0)

def start():
    """Runs the check, then starts ripgrep; the first line says which way it went."""
    global rg
    try:
        if cfg.get("check"):
            check = subprocess.run(cfg["check"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if check.returncode == 2:
                message = check.stderr.decode("utf-8", "replace").strip()
                # Which input ripgrep refused, by its exit status (never its words): the globs alone, or the rest.
                kind = "regex"
                if cfg.get("checkGlobs"):
                    globs = subprocess.run(cfg["checkGlobs"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    if globs.returncode == 2:
                        kind = "glob"
                os.write(1, line_out({"type": "error", "kind": kind, "message": message}))
                sys.exit(0)
        rg = subprocess.Popen(cfg["argv"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except FileNotFoundError as error:
        os.write(1, line_out({"type": "error", "kind": "missing", "message": str(error)}))
        sys.exit(0)
    os.write(1, line_out({"type": "start"}))


sent = 0
results = 0
paths = set()
limit = None
pending = []
current = None  # [path, matches]

def write(obj):
    global sent
    data = line_out(obj)
    sent += len(data)
    pending.append(data)

def flush():
    data = b"".join(pending)
    pending.clear()
    try:
        while data:
            data = data[os.write(1, data):]
    except OSError:
        stop()  # the reader went away

def u16(text):
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)

def raw_of(value):
    return value["text"].encode("utf-8", "replace") if "text" in value else base64.b64decode(value["bytes"])

def path_of(value):
    path = raw_of(value).decode("utf-8", "replace")
    return path[2:] if path.startswith("./") else path

def whole_chars(raw, lo, hi):
    """[lo, hi) moved inwards to character boundaries of UTF-8 text."""
    while lo < hi and 0x80 <= raw[lo] < 0xC0:
        lo += 1
    if hi < len(raw):
        while hi > lo and 0x80 <= raw[hi] < 0xC0:
            hi -= 1
    return lo, hi

def preview(window, offset, complete, subs):
    """window: the line's bytes from byte 'offset' on (all of the rest when complete); subs: byte offsets in the line."""
    end = len(window)
    if complete:
        while end > 0 and window[end - 1] in (10, 13):
            end -= 1
    chars = lambda a, b: window[max(0, a):max(0, min(b, end))].decode("utf-8", "replace")
    first = subs[0][0] - offset
    before = chars(0, first)
    text = before[-BEFORE:] if BEFORE else ""
    cut_start = offset > 0 or len(text) < len(before)
    ranges = []
    pos = first
    for start, stop_ in subs:
        start, stop_ = start - offset, stop_ - offset
        if start < pos and ranges:
            continue
        if start >= end:
            break
        gap = chars(pos, start)
        if ranges and u16(text) + u16(gap) >= PREVIEW:
            break
        text += gap
        a = u16(text)
        text += chars(start, stop_)
        ranges.append([a, u16(text)])
        pos = max(pos, stop_)
    rest = chars(pos, end)
    tail = rest[:max(0, PREVIEW - u16(text))]
    cut_end = len(tail) < len(rest) or not complete
    text += tail
    if cut_start:
        text = "…" + text
        ranges = [[a + 1, b + 1] for a, b in ranges]
    return {"text": text + ("…" if cut_end else ""), "ranges": ranges}

def add_match(path, line_number, column, shown):
    global current, results
    if current is None or current[0] != path:
        end_file()
        current = [path, []]
        paths.add(path)
    current[1].append({"line": line_number or 0, "column": column, **shown})
    results += 1

def end_file(keep=False):
    """Sends the current file's matches; with keep, later matches of the same file follow in another event."""
    global current
    if current is not None and current[1]:
        write({"type": "file", "path": current[0], "matches": current[1]})
        current[1] = []
    if not keep:
        current = None

def window_bounds(first):
    return max(0, first - 4 * (BEFORE + 2)), first + 4 * (PREVIEW + 2)

def on_match(data):
    raw = raw_of(data["lines"])
    subs = [(m["start"], m["end"]) for m in data["submatches"][:MAX_RANGES]]
    if not subs:
        return
    first = subs[0][0]
    column = u16(raw[:first].decode("utf-8", "replace")) + 1
    lo, hi = window_bounds(first)
    lo, hi = whole_chars(raw, min(lo, len(raw)), min(hi, len(raw)))
    shown = preview(raw[lo:hi], lo, hi == len(raw), subs)
    add_match(path_of(data["path"]), data["line_number"], column, shown)

def on_long(head, tail):
    """A match line over LONG_LINE bytes: the preview is read from the file, at the offset ripgrep gave."""
    m = HEAD_RE.match(head)
    t = TAIL_RE.match(tail or b"")
    if not m or not t:
        return
    path = path_of(json.loads(m.group(1)))
    line_number = None if t.group(1) == b"null" else int(t.group(1))
    base = int(t.group(2))
    subs = [(int(a), int(b)) for a, b in itertools.islice(SUB_RE.findall(tail, t.end()), MAX_RANGES)]
    if not subs:
        return
    first = subs[0][0]
    lo, hi = window_bounds(first)
    try:
        with open(os.path.join(".", path), "rb") as f:
            f.seek(base)
            column = u16(f.read(first).decode("utf-8", "replace")) + 1
            f.seek(base + lo)
            window = f.read(hi - lo)
    except OSError:
        return
    newline = window.find(b"\n", first - lo)
    complete = newline >= 0 or len(window) < hi - lo
    if newline >= 0:
        window = window[:newline]
    a, b = whole_chars(window, 0, len(window) if complete else len(window) - 1)
    add_match(path, line_number, column, preview(window[a:b], lo + a, complete and b == len(window), subs))

def handle(line):
    if line.startswith(b'{"type":"match"'):
        on_match(json.loads(line)["data"])
    elif line.startswith(b'{"type":"end"'):
        end_file()

class Long:
    """A line too long to keep: its head, and its part from MARK on (at most TAIL bytes)."""
    def __init__(self, start):
        self.head = start[:HEAD]
        self.tail = None
        self.carry = b""
        self.feed(start)

    def feed(self, data):
        if self.tail is not None:
            if len(self.tail) < TAIL:
                self.tail += data[:TAIL - len(self.tail)]
            return
        joined = self.carry + data
        i = joined.find(MARK)
        if i >= 0:
            self.tail = joined[i:i + TAIL]
        else:
            self.carry = joined[-(len(MARK) - 1):]

buf = bytearray()
long = None

def take(chunk):
    global buf, long, limit
    pos = 0
    while pos < len(chunk) and limit is None:
        nl = chunk.find(b"\n", pos)
        if long is not None:
            long.feed(chunk[pos:nl if nl >= 0 else len(chunk)])
            if nl < 0:
                return
            on_long(long.head, long.tail)
            long = None
        elif nl < 0:
            buf += chunk[pos:]
            if len(buf) > LONG_LINE:
                long = Long(bytes(buf))
                buf = bytearray()
            return
        else:
            buf += chunk[pos:nl]
            line = bytes(buf)
            buf = bytearray()
            handle(line)
        pos = nl + 1
        if results >= MAX_RESULTS:
            limit = "results"
        elif sent >= MAX_BYTES:
            limit = "bytes"

def main():
    global limit
    configure(json.loads(sys.argv[1]))
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    start()
    fd = rg.stdout.fileno()
    wrote = False
    while limit is None:
        left = SECONDS - (time.monotonic() - started)
        if left <= 0:
            limit = "time"
            break
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        wrote = True
        take(chunk)
        end_file(keep=True)
        flush()

    if limit is not None:
        rg.kill()
    code = rg.wait()
    if limit is None and code < 0:
        # ripgrep was killed from outside (the search was cancelled): no done line, nothing more.
        os._exit(0)
    end_file()
    done = {"type": "done", "files": len(paths), "matches": results}
    if limit is not None:
        done["limitHit"] = limit
    elif code == 2 and not wrote:
        done["error"] = rg.stderr.read().decode("utf-8", "replace").strip()
    done["elapsedMs"] = round((time.monotonic() - started) * 1000)
    write(done)
    flush()

if __name__ == "__main__":
    main()
