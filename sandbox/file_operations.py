# The file operations, one copy, that both ways of reaching the container run:
# the per-call helper (file_helper.py, `python3 -c` once per operation) and the
# resident agent (resident_agent.py, one process answering many). `python3 -c`
# runs one text, so the Worker puts this file in place of each one's
# `from file_operations import ...` line (worker/resident/file-operations.ts);
# the unit tests (sandbox/tests/) join them the same way. Each sets the globals
# below after this text: `root` (the confining folder, normalised) and `rootfd`
# (its descriptor, O_PATH).
#
# No path is ever opened by name from "/": everything is reached through
# descriptors opened beneath `rootfd`, so a symbolic link swapped in during
# an operation cannot lead it outside (the audit's race: resolve, check, then
# open by name again). A directory is opened with openat2(RESOLVE_BENEATH)
# where the kernel has it; where it has not, or where openat2 refuses an
# absolute link, by a walk that opens one component at a time with
# O_NOFOLLOW, reads each link itself, and follows it only while it stays under
# `root` (an absolute link naming a place under `root` is followed). The last
# component is then used with *at() calls and O_NOFOLLOW relative to its
# directory's descriptor; a link that appears there between the two steps is
# resolved again. EXDEV with the OUTSIDE detail is the refusal. Hard links are
# not links to anything: they are the file itself.
#
# `run_op(op, args, src, out)` runs one operation (the list is in
# file_helper.py); `error_json(e)` is the `{code, detail}` a failure is
# reported as, the Linux error's name, which the Worker maps; `answer_bytes(result)` is
# an answer's JSON bytes (`list` returns its JSON already encoded).
# CLOUD_IDE_FILES_RESOLVE=walk in the environment skips openat2; =openat2
# requires it, failing with ENOSYS where the kernel refuses it instead of
# walking (the unit tests run both ways, and so know which ran).
import ctypes, errno, json, json.encoder, os, shutil, stat as S, struct

root = "/"  # set after this text by the program it is part of
rootfd = None

OUTSIDE = "Resolves outside the workspace through a symbolic link"
MAX_LINKS = 40
O_PATH = getattr(os, "O_PATH", 0o10000000)
DIR_FLAGS = O_PATH | os.O_DIRECTORY | os.O_CLOEXEC
RESOLVE_NO_MAGICLINKS, RESOLVE_BENEATH = 0x02, 0x08
SYS_OPENAT2 = 437
RENAME_NOREPLACE = 1

class Fail(Exception):
    def __init__(self, code, detail):
        self.code, self.detail = code, detail

def oserror(code, detail=None):
    return OSError(code, detail or os.strerror(code))

try:
    libc = ctypes.CDLL(None, use_errno=True)
except OSError:
    libc = None
resolve_mode = os.environ.get("CLOUD_IDE_FILES_RESOLVE")
use_openat2 = libc is not None and resolve_mode != "walk"
NO_OPENAT2 = "openat2 is required (CLOUD_IDE_FILES_RESOLVE=openat2) but this kernel refuses it"

def openat2_dir(path):
    """The directory at PATH beneath root, or None when openat2 cannot say (then the walk decides)."""
    global use_openat2
    how = ctypes.create_string_buffer(struct.pack("QQQ", DIR_FLAGS, 0, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS), 24)
    fd = libc.syscall(SYS_OPENAT2, rootfd, path.encode("utf-8", "surrogateescape"), how, 24)
    if fd >= 0:
        return fd
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EPERM, errno.E2BIG, errno.EINVAL):
        if resolve_mode == "openat2":
            raise Fail("ENOSYS", NO_OPENAT2)
        use_openat2 = False  # no openat2 here (old kernel, seccomp)
        return None
    if code in (errno.EXDEV, errno.EAGAIN):
        return None  # an absolute link, a real escape, or a rename meanwhile: the walk tells them apart
    raise oserror(code)

def split(path):
    return [c for c in path.split("/") if c not in ("", ".")]

def link_target(linkfd, names):
    """The components to resolve instead of the link open as LINKFD (O_PATH, O_NOFOLLOW) followed by
    NAMES: a relative target in its place, an absolute one from root (refused unless beneath root)."""
    target = os.readlink("", dir_fd=linkfd)
    if not target.startswith("/"):
        return False, split(target) + names
    parts, rootparts = split(target), split(root)
    if parts[:len(rootparts)] != rootparts:
        raise Fail("EXDEV", OUTSIDE)
    return True, parts[len(rootparts):] + names

def walk(names):
    """Opens the directory at NAMES beneath root one component at a time, never following a link by name.
    Returns (fd, physical components)."""
    stack, done, todo, links = [os.dup(rootfd)], [], list(names), 0
    try:
        while todo:
            name = todo.pop(0)
            if name == "..":
                if len(stack) == 1:
                    if root == "/":
                        continue
                    raise Fail("EXDEV", OUTSIDE)
                os.close(stack.pop()); done.pop()
                continue
            fd = os.open(name, O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=stack[-1])
            mode = os.fstat(fd).st_mode
            if S.S_ISLNK(mode):
                links += 1
                try:
                    if links > MAX_LINKS:
                        raise oserror(errno.ELOOP)
                    absolute, todo = link_target(fd, todo)
                finally:
                    os.close(fd)
                if absolute:
                    for extra in stack[1:]:
                        os.close(extra)
                    del stack[1:]; done = []
                continue
            if not S.S_ISDIR(mode):
                os.close(fd)
                raise oserror(errno.ENOTDIR)
            stack.append(fd); done.append(name)
        return stack.pop(), done
    finally:
        for fd in stack:
            os.close(fd)

def open_dir(names):
    """A descriptor (O_PATH) of the directory at NAMES beneath root, following links that stay beneath it."""
    if not names:
        return os.dup(rootfd)
    if resolve_mode == "openat2" and libc is None:
        raise Fail("ENOSYS", NO_OPENAT2)
    if use_openat2:
        fd = openat2_dir("/".join(names))
        if fd is not None:
            return fd
    return walk(names)[0]

def names_of(path):
    """PATH (absolute, as the Worker sends it) as components beneath root."""
    parts, rootparts = split(path), split(root)
    if parts[:len(rootparts)] != rootparts:
        raise Fail("EXDEV", OUTSIDE)
    return parts[len(rootparts):]

def locate(path, follow):
    """(directory fd, name) of PATH's last component, that name never a link when FOLLOW
    (it may not exist). Name is None for root itself. The caller closes the fd."""
    names, links = names_of(path), 0
    while True:
        if names and names[-1] == "..":
            fd, done = walk(names)  # rare: a path that ends going up; the walk knows where that is
            os.close(fd)
            names = done
        if not names:
            return os.dup(rootfd), None
        dirfd = open_dir(names[:-1])
        name = names[-1]
        if not follow:
            return dirfd, name
        try:
            linkfd = os.open(name, O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dirfd)
        except FileNotFoundError:
            return dirfd, name
        try:
            if not S.S_ISLNK(os.fstat(linkfd).st_mode):
                return dirfd, name
            os.close(dirfd)
            links += 1
            if links > MAX_LINKS:
                raise oserror(errno.ELOOP)
            absolute, rest = link_target(linkfd, [])
        finally:
            os.close(linkfd)
        names = rest if absolute else names[:-1] + rest

def retrying(path, follow, action):
    """Runs ACTION(dirfd, name) on PATH's location; a link swapped in meanwhile (ELOOP from
    O_NOFOLLOW) makes it locate again."""
    for attempt in range(10):
        dirfd, name = locate(path, follow)
        try:
            return action(dirfd, name)
        except OSError as e:
            if e.errno != errno.ELOOP or attempt == 9:
                raise
        finally:
            os.close(dirfd)

def open_path(path, flags, mode=0o666):
    """An fd of PATH opened with FLAGS, following links beneath root only."""
    def action(dirfd, name):
        return os.open(name or ".", flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=dirfd)
    return retrying(path, True, action)

def stat_at(dirfd, name):
    return os.stat(name or ".", dir_fd=dirfd, follow_symlinks=False)

def exists_at(dirfd, name):
    try:
        stat_at(dirfd, name)
        return True
    except FileNotFoundError:
        return False

READ_SIZE = 256 * 1024
LIST_ENTRY = '{"name":%s,"type":"%s","size":%d,"modifiedAt":%d}'
json_string = json.encoder.encode_basestring_ascii

def answer_bytes(result):
    """An operation's answer as JSON bytes: a dict encoded, or bytes an operation encoded itself (a listing)."""
    return result if isinstance(result, bytes) else json.dumps(result, separators=(",", ":")).encode()

TREE_KINDS = {S.S_IFDIR: "directory", S.S_IFLNK: "symlink"}  # the file tree's types: anything else is a file

# sandbox/list-dir.c, built into the image: the same listing in a third of the CPU. An image without it (an old
# snapshot's) lists in Python. Loaded at the first listing; None once that failed.
LIST_LIBRARY = os.environ.get("CLOUD_IDE_LIST_LIBRARY", "/opt/cloud-ide/list-dir.so")
native_lister = False

def load_native_lister():
    global native_lister
    if native_lister is False:
        try:
            lib = ctypes.CDLL(LIST_LIBRARY)
            lib.cloud_ide_list.restype = ctypes.c_long
            lib.cloud_ide_list.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)]
            lib.cloud_ide_free.argtypes = [ctypes.c_void_p]
            native_lister = lib
        except (OSError, AttributeError):
            native_lister = None
    return native_lister

def list_natively(lib, fd):
    out = ctypes.c_void_p()
    length = lib.cloud_ide_list(fd, ctypes.byref(out))
    if length < 0:
        if -length == errno.EILSEQ:
            raise Fail("EILSEQ", NOT_UTF8)  # as check_name refuses it
        raise oserror(-length)
    try:
        return ctypes.string_at(out, length)
    finally:
        lib.cloud_ide_free(out)

def list_in_python(fd):
    """The listing of the folder open at fd where the image lacks sandbox/list-dir.c."""
    # The answer's JSON written directly, an entry a format: a folder of 10,000 entries took twice as long
    # as dicts then json.dumps (the lstat of each, which ls -l makes too, is the rest). Its types are the
    # file tree's (a device, fifo or socket is a file), so a route hands the bytes on unparsed.
    names, parts = [], []
    name_of, add, entry, quoted, tree_kind = names.append, parts.append, LIST_ENTRY, json_string, TREE_KINDS.get
    with os.scandir(fd) as it:
        for e in it:
            try:
                st = e.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            name = e.name
            name_of(name)
            add(entry % (quoted(name), tree_kind(S.S_IFMT(st.st_mode), "file"), st.st_size,
                         st.st_mtime_ns // 1000000))
    try:
        "".join(names).encode("utf-8")  # one check for all: a name that is not UTF-8 is refused
    except UnicodeEncodeError:
        for name in names:
            check_name(name)
    return ('{"entries":[' + ",".join(parts) + "]}").encode()

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

NOT_UTF8 = "Invalid or incomplete multibyte or wide character (os error 84)"

def check_name(name):
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise Fail("EILSEQ", NOT_UTF8)

def copy(src, dst, size=65536):
    while True:
        chunk = src.read(size)
        if not chunk:
            return
        dst.write(chunk)

def mkdirs(path):
    """mkdir -p beneath root: like os.makedirs(exist_ok=True), one component at a time."""
    names = names_of(path)
    for i in range(1, len(names) + 1):
        for attempt in (0, 1):
            try:
                os.close(open_dir(names[:i]))
                break
            except FileNotFoundError:
                if attempt:
                    raise oserror(errno.EEXIST)  # a link to nowhere is in the way
                parent = open_dir(names[:i - 1])
                try:
                    os.mkdir(names[i - 1], 0o777, dir_fd=parent)
                except FileExistsError:
                    pass
                finally:
                    os.close(parent)
            except NotADirectoryError:
                raise oserror(errno.EEXIST if i == len(names) else errno.ENOTDIR)

def rename_at(sdir, sname, ddir, dname, noreplace):
    if noreplace and libc is not None and hasattr(libc, "renameat2"):
        if libc.renameat2(sdir, sname.encode("utf-8", "surrogateescape"), ddir,
                          dname.encode("utf-8", "surrogateescape"), RENAME_NOREPLACE) == 0:
            return
        code = ctypes.get_errno()
        if code not in (errno.EINVAL, errno.ENOSYS, errno.EPERM):
            raise oserror(code)
    if noreplace and exists_at(ddir, dname):
        raise oserror(errno.EEXIST)
    try:
        os.rename(sname, dname, src_dir_fd=sdir, dst_dir_fd=ddir)
    except OSError as e:
        if e.errno != errno.EXDEV:
            raise
        move_across(sdir, sname, ddir, dname)

def move_across(sdir, sname, ddir, dname):
    """A folder rename(2) refuses with EXDEV: on overlayfs (a container started from a snapshot) a
    folder of a lower layer cannot be renamed. Moved as mv does it: copied beside the destination
    (links copied as links, never followed), renamed into place, then the source removed. Through
    the folders' descriptors (/proc/self/fd), so no path is resolved again from "/"."""
    source = "/proc/self/fd/%d/%s" % (sdir, sname)
    if not S.S_ISDIR(os.lstat(source).st_mode) or exists_at(ddir, dname):
        raise oserror(errno.EXDEV)
    temp = ".%s.move-%s" % (dname, os.urandom(4).hex())
    staged = "/proc/self/fd/%d/%s" % (ddir, temp)
    try:
        shutil.copytree(source, staged, symlinks=True)
        os.rename(temp, dname, src_dir_fd=ddir, dst_dir_fd=ddir)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise
    shutil.rmtree(source)

def commit(tdir, tname, temp_fd, dest, expected):
    """Renames the temporary file onto DEST (or the file a link there leads to, beneath root) when
    DEST's etag is still EXPECTED; a refused commit removes the temporary file."""
    ldir, lname = locate(dest, False)
    ddir, dname = locate(dest, True)
    try:
        if lname is None or dname is None:
            raise oserror(errno.EISDIR)
        try:
            current = stat_at(ddir, dname)
        except FileNotFoundError:
            current = None
        refused = None
        if expected == "-" and exists_at(ldir, lname):
            refused = oserror(errno.EEXIST)
        elif expected and expected != "-" and (etag(current) if current else "") != expected:
            refused = Fail("ESTALE", "The file changed since it was read")
        if refused:
            os.unlink(tname, dir_fd=tdir)
            raise refused
        if current is not None:
            os.fchmod(temp_fd, S.S_IMODE(current.st_mode))
        os.rename(tname, dname, src_dir_fd=tdir, dst_dir_fd=ddir)
        return stat_at(ddir, dname)
    finally:
        os.close(ldir); os.close(ddir)

def run_op(op, args, src, out):
    """Runs one operation. SRC has read() (the content of writes); OUT has begin(stat or None), called once
    a read's file is open, and write(bytes). Returns the JSON answer, or None."""
    if op == "read":
        fd = open_path(args[0], os.O_RDONLY | os.O_NONBLOCK)
        try:
            mode = os.fstat(fd).st_mode
            if S.S_ISDIR(mode):
                raise oserror(errno.EISDIR)
            if not S.S_ISREG(mode):
                raise Fail("EINVAL", "Not a regular file")
            os.set_blocking(fd, True)
        except BaseException:
            os.close(fd)
            raise
        with os.fdopen(fd, "rb", buffering=0) as f:
            out.begin(stat_json(os.fstat(fd)) if args[1:] == ["stat"] else None)
            # Large reads: each is one frame (or write) on the way out, and a frame's cost is per frame, not per byte.
            copy(f, out, READ_SIZE)
        return None
    if op in ("write", "write-at"):
        offset = int(args[1]) if op == "write-at" else 0
        # A later chunk continues a file that exists and is long enough: never
        # a new file padded with zeros (a lost or skipped chunk).
        flags = os.O_WRONLY | (os.O_CREAT | os.O_TRUNC if offset == 0 else 0)
        fd = open_path(args[0], flags, 0o644)
        with os.fdopen(fd, "wb") as f:
            if S.S_ISDIR(os.fstat(fd).st_mode):
                raise oserror(errno.EISDIR)
            if os.fstat(fd).st_size < offset:
                raise OSError(errno.EINVAL, "it has %d bytes, fewer than the offset %d" % (os.fstat(fd).st_size, offset))
            if offset:
                f.truncate(offset); f.seek(offset)
            copy(src, f)
            f.flush()
            return stat_json(os.fstat(f.fileno()))
    if op in ("stat", "lstat"):
        def action(dirfd, name):
            st = stat_at(dirfd, name)
            if op == "stat" and S.S_ISLNK(st.st_mode):
                raise oserror(errno.ELOOP)  # a link swapped in meanwhile: locate again
            return st
        return stat_json(retrying(args[0], op == "stat", action))
    if op == "readdir":
        fd = open_path(args[0], os.O_RDONLY | os.O_DIRECTORY)
        entries = []
        try:
            with os.scandir(fd) as it:
                for e in it:
                    check_name(e.name)
                    entries.append({"name": e.name, "type": kind(e.stat(follow_symlinks=False).st_mode)})
        finally:
            os.close(fd)
        return {"entries": entries}
    if op == "list":
        fd = open_path(args[0], os.O_RDONLY | os.O_DIRECTORY)
        try:
            lib = load_native_lister()
            return list_natively(lib, fd) if lib else list_in_python(fd)
        finally:
            os.close(fd)
    if op == "mkdir":
        if args[1] == "1":
            mkdirs(args[0])
        else:
            dirfd, name = locate(args[0], False)
            try:
                if name is None:
                    raise oserror(errno.EEXIST)
                os.mkdir(name, 0o777, dir_fd=dirfd)
            finally:
                os.close(dirfd)
        return None
    if op == "rename":
        sdir, sname = locate(args[0], False)
        try:
            ddir, dname = locate(args[1], False)
            try:
                if sname is None or dname is None:
                    raise OSError(errno.EINVAL, "The workspace folder itself cannot be moved or replaced")
                rename_at(sdir, sname, ddir, dname, args[2] == "1")
            finally:
                os.close(ddir)
        finally:
            os.close(sdir)
        return None
    if op == "remove":
        dirfd, name = locate(args[0], False)
        try:
            if name is None:
                raise OSError(errno.EINVAL, "The workspace folder itself cannot be removed")
            try:
                st = stat_at(dirfd, name)
            except FileNotFoundError:
                if args[2] == "1":
                    return None
                raise
            if S.S_ISDIR(st.st_mode):
                if args[1] != "1":
                    raise oserror(errno.EISDIR)
                shutil.rmtree(name, dir_fd=dirfd)  # fd-based: never follows a link inside
            else:
                os.unlink(name, dir_fd=dirfd)
        finally:
            os.close(dirfd)
        return None
    if op in ("commit", "save"):
        temp, dest, expected = args
        os.close(locate(dest, True)[0])  # a destination outside is refused before anything is written
        tdir, tname = locate(temp, False)
        try:
            if tname is None:
                raise oserror(errno.EISDIR)
            if op == "save":
                fd = os.open(tname, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=tdir)
                try:
                    with os.fdopen(os.dup(fd), "wb") as f:
                        copy(src, f)
                except BaseException:
                    os.close(fd)
                    try:
                        os.unlink(tname, dir_fd=tdir)
                    except OSError:
                        pass
                    raise
            else:
                fd = os.open(tname, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=tdir)
            try:
                st = commit(tdir, tname, fd, dest, expected)
            finally:
                os.close(fd)
        finally:
            os.close(tdir)
        return stat_json(st)
    raise Fail("EINVAL", "Unknown operation " + op)

def error_json(e):
    """The {code, detail} a failure is reported as: the Linux error's name, as the Worker maps it."""
    if isinstance(e, Fail):
        return {"code": e.code, "detail": e.detail}
    code = errno.errorcode.get(e.errno or 0, "UNKNOWN")
    return {"code": code, "detail": "%s (os error %s)" % (e.strerror, e.errno)}
