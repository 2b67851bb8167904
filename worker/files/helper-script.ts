/**
 * The Python program that every file operation runs in the container
 * (`python3 -c HELPER_SCRIPT op root args...`). One process per operation, as
 * the 1.x Files helper does. It reports failures as one JSON line on stderr,
 * `{"code":"ENOENT","detail":"..."}`, and exits 1, so the Worker gets the real
 * Linux error name. `root` (may be empty) confines every path to a directory:
 * each path is resolved with realpath in the same process that then opens it.
 *
 * Ops: read PATH [stat] (writes 0x01 once open, with "stat" a JSON stat line, then the bytes), write PATH (stdin),
 * write-at PATH OFFSET (stdin; offset 0 truncates), stat/lstat PATH,
 * readdir PATH, list PATH (entries with lstat metadata), mkdir PATH RECURSIVE,
 * rename SRC DST NOREPLACE, remove PATH RECURSIVE FORCE,
 * save TEMP DEST EXPECTED (stdin into TEMP, then commit), commit TEMP DEST EXPECTED (compare-and-rename for atomic saves; EXPECTED is
 * an etag, "" for no check, "-" for "must not exist").
 */
export const HELPER_SCRIPT = String.raw`
import errno, json, os, shutil, stat as S, sys

OUTSIDE = "Resolves outside the workspace through a symbolic link"
op, root, args = sys.argv[1], sys.argv[2], sys.argv[3:]
rootreal = os.path.realpath(root) if root else ""

class Fail(Exception):
    def __init__(self, code, detail):
        self.code, self.detail = code, detail

def confine(path, follow):
    if not rootreal:
        return
    if follow:
        target = os.path.realpath(path)
    else:
        parent, name = os.path.split(path.rstrip("/") or "/")
        target = os.path.join(os.path.realpath(parent or "/"), name)
    if target != rootreal and not target.startswith(rootreal + "/"):
        raise Fail("EXDEV", OUTSIDE)

def kind(mode):
    if S.S_ISREG(mode): return "file"
    if S.S_ISDIR(mode): return "directory"
    if S.S_ISLNK(mode): return "symlink"
    if S.S_ISBLK(mode): return "blockDevice"
    if S.S_ISCHR(mode): return "characterDevice"
    if S.S_ISFIFO(mode): return "fifo"
    return "socket"

def etag(st):
    return '"%x-%x-%x"' % (st.st_ino, st.st_size, st.st_mtime_ns)

def stat_json(st):
    return {"type": kind(st.st_mode), "size": st.st_size, "mode": st.st_mode, "uid": st.st_uid,
            "gid": st.st_gid, "atimeMs": st.st_atime_ns // 1000000, "mtimeMs": st.st_mtime_ns // 1000000,
            "ctimeMs": st.st_ctime_ns // 1000000, "etag": etag(st)}

def check_name(name):
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise Fail("EILSEQ", "Invalid or incomplete multibyte or wide character (os error 84)")

def copy(src, dst):
    while True:
        chunk = src.read(65536)
        if not chunk:
            return
        dst.write(chunk)

def run():
    out = sys.stdout.buffer
    if op == "read":
        confine(args[0], True)
        fd = os.open(args[0], os.O_RDONLY | os.O_NONBLOCK)
        mode = os.fstat(fd).st_mode
        if S.S_ISDIR(mode):
            raise OSError(errno.EISDIR, os.strerror(errno.EISDIR))
        if not S.S_ISREG(mode):
            raise Fail("EINVAL", "Not a regular file")
        os.set_blocking(fd, True)
        out.write(b"\x01")
        if args[1:] == ["stat"]:
            out.write(json.dumps(stat_json(os.fstat(fd))).encode() + b"\n")
        out.flush()
        with os.fdopen(fd, "rb") as f:
            copy(f, out)
        out.flush()
    elif op in ("write", "write-at"):
        confine(args[0], True)
        offset = int(args[1]) if op == "write-at" else 0
        # A later chunk continues a file that exists and is long enough: never
        # a new file padded with zeros (a lost or skipped chunk).
        flags = os.O_WRONLY | (os.O_CREAT | os.O_TRUNC if offset == 0 else 0)
        fd = os.open(args[0], flags, 0o644)
        if S.S_ISDIR(os.fstat(fd).st_mode):
            raise OSError(errno.EISDIR, os.strerror(errno.EISDIR))
        if os.fstat(fd).st_size < offset:
            raise OSError(errno.EINVAL, "it has %d bytes, fewer than the offset %d" % (os.fstat(fd).st_size, offset))
        with os.fdopen(fd, "wb") as f:
            if offset:
                f.truncate(offset); f.seek(offset)
            copy(sys.stdin.buffer, f)
            f.flush()
            st = os.fstat(f.fileno())
        out.write(json.dumps(stat_json(st)).encode())
    elif op in ("stat", "lstat"):
        confine(args[0], op == "stat")
        st = os.stat(args[0]) if op == "stat" else os.lstat(args[0])
        out.write(json.dumps(stat_json(st)).encode())
    elif op in ("readdir", "list"):
        confine(args[0], True)
        entries = []
        with os.scandir(args[0]) as it:
            for e in it:
                check_name(e.name)
                if op == "readdir":
                    entries.append({"name": e.name, "type": kind(e.stat(follow_symlinks=False).st_mode)})
                else:
                    try:
                        st = e.stat(follow_symlinks=False)
                    except FileNotFoundError:
                        continue
                    entries.append({"name": e.name, "type": kind(st.st_mode), "size": st.st_size,
                                    "modifiedAt": st.st_mtime_ns // 1000000})
        out.write(json.dumps({"entries": entries}, separators=(",", ":")).encode())
    elif op == "mkdir":
        confine(args[0], False)
        if args[1] == "1":
            os.makedirs(args[0], exist_ok=True)
        else:
            os.mkdir(args[0])
    elif op == "rename":
        confine(args[0], False); confine(args[1], False)
        if args[2] == "1" and os.path.lexists(args[1]):
            raise OSError(errno.EEXIST, os.strerror(errno.EEXIST))
        os.rename(args[0], args[1])
    elif op == "remove":
        confine(args[0], False)
        try:
            st = os.lstat(args[0])
        except FileNotFoundError:
            if args[2] == "1":
                return
            raise
        if S.S_ISDIR(st.st_mode):
            if args[1] != "1":
                raise OSError(errno.EISDIR, os.strerror(errno.EISDIR))
            shutil.rmtree(args[0])
        else:
            os.unlink(args[0])
    elif op in ("commit", "save"):
        temp, dest, expected = args
        if op == "save":
            # Write stdin to the temporary file first, then commit it, in this one process.
            confine(temp, False); confine(dest, True)
            try:
                with open(temp, "xb") as f:
                    copy(sys.stdin.buffer, f)
            except BaseException:
                try:
                    os.unlink(temp)
                except OSError:
                    pass
                raise
        confine(temp, False); confine(dest, True)
        if expected == "-" and os.path.lexists(dest):
            os.unlink(temp)
            raise OSError(errno.EEXIST, os.strerror(errno.EEXIST))
        if expected and expected != "-":
            try:
                current = etag(os.stat(dest))
            except FileNotFoundError:
                current = ""
            if current != expected:
                os.unlink(temp)
                raise Fail("ESTALE", "The file changed since it was read")
        try:
            os.chmod(temp, S.S_IMODE(os.stat(dest).st_mode))
        except FileNotFoundError:
            pass
        os.rename(temp, os.path.realpath(dest))
        out.write(json.dumps(stat_json(os.stat(dest))).encode())
    else:
        raise Fail("EINVAL", "Unknown operation " + op)

try:
    run()
except Fail as e:
    sys.stderr.write(json.dumps({"code": e.code, "detail": e.detail}) + "\n"); sys.exit(1)
except BrokenPipeError:
    sys.exit(1)
except OSError as e:
    code = errno.errorcode.get(e.errno or 0, "UNKNOWN")
    sys.stderr.write(json.dumps({"code": code, "detail": "%s (os error %s)" % (e.strerror, e.errno)}) + "\n"); sys.exit(1)
`;
