# The image's own copy of the user's folders, for backups that need not
# carry it back (worker/backups/directory-archive.ts, README "Workspaces that last").
#
#   manifest          (image build) every entry of /workspace and /root as built,
#                     with its stat and, for files, its SHA-256, into MANIFEST
#   split DIR         (backup) which entries are still exactly the image's: DIR/base
#                     and every other one DIR/rest (names, NUL-separated, for tar -T
#                     --no-recursion), and a JSON line on stdout: {"manifest": sha256
#                     of MANIFEST, "deleted": [...]}, the image's entries gone or of
#                     another type (a folder once, not its contents)
#   same DIR          (backup, after tar) exit 0 when DIR/base still matches, else 1
#   fresh SHA NAME... (wake) when MANIFEST has that SHA-256 and the folders are exactly
#                     as built (nothing added, removed or changed), removes the entries
#                     NAME... (folders whole); else exit 10 and nothing changed
#   strip-end         a tar stream on stdin to stdout without its end-of-archive blocks
#
# "Exactly" is the quick check rsync makes: type, size, mtime to the
# nanosecond, mode, owner, link target, one link only. A file someone wrote
# has a new mtime; one that matches was never written since the image.
import hashlib, json, os, shutil, stat, sys

MANIFEST = "/opt/cloud-ide/backup-manifest"
DIRS = ("workspace", "root")
# The caches a backup leaves out (directory-archive.ts EXCLUDED).
EXCLUDED = ("root/.cache", "root/.npm/_cacache")


def kind(mode):
    if stat.S_ISDIR(mode):
        return "d"
    if stat.S_ISREG(mode):
        return "f"
    if stat.S_ISLNK(mode):
        return "l"
    return "o"


def describe(name, st):
    entry = {"p": name, "t": kind(st.st_mode), "m": st.st_mode, "u": st.st_uid, "g": st.st_gid,
             "n": st.st_nlink if not stat.S_ISDIR(st.st_mode) else 1, "s": 0, "ns": 0}
    if entry["t"] in ("f", "l"):
        entry["s"] = st.st_size
        entry["ns"] = st.st_mtime_ns
    if entry["t"] == "l":
        entry["l"] = os.readlink("/" + name)
    return entry


def walk():
    """Every entry beneath the folders, as tar sees them: not into other filesystems, not the caches."""
    for top in DIRS:
        if not os.path.isdir("/" + top) or os.path.islink("/" + top):
            continue
        device = os.lstat("/" + top).st_dev
        stack = [top]
        while stack:
            folder = stack.pop()
            with os.scandir("/" + folder) as entries:
                for item in entries:
                    name = folder + "/" + item.name
                    if name in EXCLUDED:
                        continue
                    st = item.stat(follow_symlinks=False)
                    yield name, st
                    if stat.S_ISDIR(st.st_mode) and st.st_dev == device:
                        stack.append(name)


# What the quick check compares (the link count apart: see same and fresh).
COMPARED = ("t", "m", "u", "g", "s", "ns", "l")


def matches(now, entry):
    return all(now.get(k) == entry.get(k) for k in COMPARED)


def same(entry, name):
    try:
        st = os.lstat("/" + name)
    except OSError:
        return False
    now = describe(name, st)
    return matches(now, entry) and now["n"] == 1


def load():
    with open(MANIFEST, "rb") as f:
        data = f.read()
    entries = [json.loads(line) for line in data.splitlines() if line]
    return hashlib.sha256(data).hexdigest(), entries


def manifest():
    lines = []
    for name, st in sorted(walk()):
        entry = describe(name, st)
        if entry["t"] == "f":
            h = hashlib.sha256()
            with open("/" + name, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
            entry["h"] = h.hexdigest()
        lines.append(json.dumps(entry, sort_keys=True))
    os.makedirs(os.path.dirname(MANIFEST), exist_ok=True)
    with open(MANIFEST, "w") as f:
        f.write("\n".join(lines) + "\n")


def split(out):
    digest, entries = load()
    base, deleted, gone = set(), [], set()
    for entry in entries:
        name = entry["p"]
        if any(folder in gone for folder in parents(name)):
            continue
        try:
            st = os.lstat("/" + name)
        except OSError:
            st = None
        if st is None or kind(st.st_mode) != entry["t"]:
            deleted.append(name)
            if entry["t"] == "d":
                gone.add(name)
            continue
        # Names a tar -T list could misread stay out of the base: they go with the rest.
        if entry["t"] != "d" and "\n" not in name and same(entry, name):
            base.add(name)
    # The rest is every other entry tar would walk: the two lists part the folders exactly.
    rest = [name for name, _ in walk() if name not in base]
    write_list(os.path.join(out, "base"), sorted(base))
    # The folders themselves last: the rest's tar then ends in a header, not in a file's data.
    write_list(os.path.join(out, "rest"), rest + [d for d in DIRS if os.path.isdir("/" + d)])
    print(json.dumps({"manifest": digest, "deleted": deleted, "base": len(base)}))


def parents(name):
    parts = name.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def write_list(path, names):
    with open(path, "wb") as f:
        f.write(b"".join(n.encode("utf-8", "surrogateescape") + b"\0" for n in names))


def still_same(out):
    _, entries = load()
    by_name = {e["p"]: e for e in entries}
    with open(os.path.join(out, "base"), "rb") as f:
        names = [n.decode("utf-8", "surrogateescape") for n in f.read().split(b"\0") if n]
    return all(same(by_name[n], n) for n in names)


def fresh(expected):
    digest, entries = load()
    if digest != expected:
        return False
    seen = 0
    by_name = {e["p"]: e for e in entries}
    for name, st in walk():
        entry = by_name.get(name)
        if entry is None:
            return False
        now = describe(name, st)
        if not matches(now, entry) or now["n"] != entry["n"]:
            return False
        seen += 1
    return seen == len(entries)


def delete(names):
    for name in names:
        parts = name.split("/")
        # Only what a manifest names: beneath the folders, no way out of them.
        if parts[0] not in DIRS or len(parts) < 2 or any(p in ("", ".", "..") for p in parts):
            sys.exit("refused to delete " + repr(name))
        path = "/" + name
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.unlink(path)


def strip_end():
    """stdin to stdout without the trailing zero blocks: a tar stream without its end-of-archive
    (and record padding), so another tar stream can follow it. Its last member must end in a
    block that is not all zeros (a folder's header: the rest list ends with the folders).
    Reads go into one reused buffer: a read of a pipe returns 64 KiB at most, and a new bytes
    object for each one (read1, os.read) cost seconds of the container's CPU per 200 MB."""
    buffer = bytearray(1 << 20)
    whole = memoryview(buffer)
    source = open(0, "rb", buffering=0, closefd=False)
    emitted = held = 0
    while True:
        size = source.readinto(buffer)
        if not size:
            break
        chunk = whole[:size]
        kept = size if buffer[size - 1] else len(bytes(chunk).rstrip(b"\0"))
        if kept == 0:
            held += size
            continue
        start = emitted + held
        upto = min(-(-(start + kept) // 512) * 512, start + size)
        while held:
            n = min(held, 1 << 20)
            write_all(bytes(n))
            held -= n
        n = upto - start
        write_all(chunk[:n])
        emitted = upto
        held = size - n
    # The last block's own trailing zeros (a header ends in zeros), up to its end.
    if emitted % 512:
        write_all(bytes(512 - emitted % 512))


def write_all(data):
    view = memoryview(data)
    while view:
        view = view[os.write(1, view):]


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "manifest":
        manifest()
    elif command == "split":
        split(sys.argv[2])
    elif command == "same":
        sys.exit(0 if still_same(sys.argv[2]) else 1)
    elif command == "fresh":
        if not (os.path.exists(MANIFEST) and fresh(sys.argv[2])):
            sys.exit(10)
        delete(sys.argv[3:])
    elif command == "strip-end":
        strip_end()
    else:
        sys.exit("unknown command " + command)
