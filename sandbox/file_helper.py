# The program that every file operation runs in the container when the
# resident agent cannot (`python3 -c SCRIPT op root args...`, the Worker's
# worker/files/helper-script.ts): one process per operation, the 1.x Files
# helper's way, running the same operations as the agent (file_operations.py,
# put in place of the import below, where the confinement to `root` is
# described). `root` (may be empty for "/") confines every path.
# It reports a failure as one JSON line on stderr, `{"code":"ENOENT","detail":"..."}`,
# and exits 1, so the Worker gets the real Linux error name.
#
# Ops: read PATH [stat] (writes 0x01 once open, with "stat" a JSON stat line, then the bytes),
# archive PATH (0x01 once the folder is open, then a .tar.gz of it from `tar`; the helper's alone),
# write PATH (stdin), write-at PATH OFFSET (stdin; offset 0 truncates), stat/lstat PATH,
# readdir PATH, list PATH (entries with lstat metadata), mkdir PATH RECURSIVE,
# rename SRC DST NOREPLACE, remove PATH RECURSIVE FORCE,
# save TEMP DEST EXPECTED (stdin into TEMP, then commit), commit TEMP DEST EXPECTED (compare-and-rename for
# atomic saves; EXPECTED is an etag, "" for no check, "-" for "must not exist").
import errno, json, os, stat as S, sys
from file_operations import DIR_FLAGS, Fail, answer_bytes, error_json, locate, oserror, run_op, stat_at

class Stdout:
    """run_op's sink: a read's 0x01 (and stat line) once its file is open, then the bytes."""
    def __init__(self):
        self.buffer = sys.stdout.buffer

    def begin(self, st):
        self.buffer.write(b"\x01")
        if st is not None:
            self.buffer.write(json.dumps(st).encode() + b"\n")
        self.buffer.flush()

    def write(self, data):
        self.buffer.write(data)

def archive(path):
    dirfd, name = locate(path, True)
    if name is None:
        # root itself, by its name in its parent (tar archives a link found there as a link)
        os.close(dirfd)
        dirfd, name = os.open(os.path.dirname(root), DIR_FLAGS), os.path.basename(root) or "."
    if not S.S_ISDIR(stat_at(dirfd, name).st_mode):
        raise oserror(errno.ENOTDIR)
    # tar runs in that folder's parent, reached through descriptors, and without -h it
    # archives every link it meets as a link, the named one included.
    os.fchdir(dirfd)
    sys.stdout.buffer.write(b"\x01"); sys.stdout.buffer.flush()
    os.execvp("tar", ["tar", "-czf", "-", "--", name])

def main():
    global root, rootfd
    op, root, args = sys.argv[1], os.path.normpath(sys.argv[2] or "/"), sys.argv[3:]
    try:
        rootfd = os.open(root, DIR_FLAGS | os.O_NOFOLLOW)
        if op == "archive":
            archive(args[0])
        out = Stdout()
        result = run_op(op, args, sys.stdin.buffer, out)
        if result is not None:
            out.write(answer_bytes(result))
        out.buffer.flush()
    except BrokenPipeError:
        sys.exit(1)
    except (Fail, OSError) as e:
        sys.stderr.write(json.dumps(error_json(e)) + "\n"); sys.exit(1)

if __name__ == "__main__":
    main()
