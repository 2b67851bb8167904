"""file_operations.py in this process: every operation on a scratch root, each way of resolving
(the walk, and openat2 where the kernel has it), links that stay inside and links that lead out."""
import errno
import io
import json
import os
import shutil
import stat
import tempfile
import unittest
import unittest.mock

from programs import load

OUTSIDE = "Resolves outside the workspace through a symbolic link"


class Sink:
    """run_op's OUT: what begin() was given, then the bytes written."""

    def __init__(self):
        self.began, self.data = [], b""

    def begin(self, st):
        self.began.append(st)

    def write(self, data):
        self.data += data


class Operations:
    """The operations' tests; a subclass picks how paths are resolved (CLOUD_IDE_FILES_RESOLVE)."""

    RESOLVE = None

    def setUp(self):
        self.ops = load("file_operations.py", {"CLOUD_IDE_FILES_RESOLVE": self.RESOLVE})
        scratch = tempfile.mkdtemp(prefix="cloud-ide-ops-")
        self.addCleanup(shutil.rmtree, scratch)
        self.outside = os.path.join(scratch, "outside")
        os.mkdir(self.outside)
        with open(os.path.join(self.outside, "secret"), "w") as f:
            f.write("secret")
        self.root = os.path.join(scratch, "workspace")
        os.mkdir(self.root)
        self.ops.root = self.root
        self.ops.rootfd = os.open(self.root, self.ops.DIR_FLAGS | os.O_NOFOLLOW)
        self.addCleanup(os.close, self.ops.rootfd)
        if self.RESOLVE == "openat2":
            try:
                self.op("stat", ".")
            except self.ops.Fail as e:
                self.skipTest(e.detail)

    # helpers
    def at(self, path):
        return os.path.join(self.root, path)

    def put(self, path, content="x"):
        os.makedirs(os.path.dirname(self.at(path)), exist_ok=True)
        with open(self.at(path), "w") as f:
            f.write(content)

    def content(self, path):
        with open(self.at(path)) as f:
            return f.read()

    def op(self, name, path, *args, data=b""):
        sink = Sink()
        result = self.ops.run_op(name, [self.at(path), *args], io.BytesIO(data), sink)
        return result, sink

    def refused(self, code, name, path, *args, data=b""):
        """The error_json of OP's failure, checked to be CODE."""
        with self.assertRaises((self.ops.Fail, OSError)) as caught:
            self.op(name, path, *args, data=data)
        answer = self.ops.error_json(caught.exception)
        self.assertEqual(answer["code"], code, answer)
        return answer

    # read
    def test_read_sends_the_bytes_after_begin_without_a_stat(self):
        self.put("a.txt", "hello")
        result, sink = self.op("read", "a.txt")
        self.assertIsNone(result)
        self.assertEqual(sink.began, [None])
        self.assertEqual(sink.data, b"hello")

    def test_read_with_stat_begins_with_the_files_stat(self):
        self.put("a.txt", "hello")
        _, sink = self.op("read", "a.txt", "stat")
        self.assertEqual(sink.began[0]["type"], "file")
        self.assertEqual(sink.began[0]["size"], 5)
        self.assertEqual(sink.began[0]["etag"], self.ops.etag(os.stat(self.at("a.txt"))))

    def test_read_of_a_folder_is_eisdir_and_of_a_fifo_einval(self):
        os.mkdir(self.at("d"))
        os.mkfifo(self.at("pipe"))
        self.refused("EISDIR", "read", "d")
        self.assertEqual(self.refused("EINVAL", "read", "pipe")["detail"], "Not a regular file")

    def test_read_of_a_missing_file_is_enoent(self):
        self.refused("ENOENT", "read", "missing.txt")

    # write
    def test_write_creates_then_truncates(self):
        result, _ = self.op("write", "w.txt", data=b"long content")
        self.assertEqual(result["size"], 12)
        self.op("write", "w.txt", data=b"short")
        self.assertEqual(self.content("w.txt"), "short")

    def test_write_at_continues_a_file_from_its_offset(self):
        self.put("w.txt", "0123456789")
        result, _ = self.op("write-at", "w.txt", "4", data=b"ab")
        self.assertEqual(self.content("w.txt"), "0123ab")
        self.assertEqual(result["size"], 6)

    def test_write_at_past_the_end_or_of_a_missing_file_changes_nothing(self):
        self.put("w.txt", "abc")
        answer = self.refused("EINVAL", "write-at", "w.txt", "10", data=b"z")
        self.assertIn("fewer than the offset 10", answer["detail"])
        self.assertEqual(self.content("w.txt"), "abc")
        self.refused("ENOENT", "write-at", "new.txt", "3", data=b"z")
        self.assertFalse(os.path.exists(self.at("new.txt")))

    def test_write_onto_a_folder_is_eisdir(self):
        os.mkdir(self.at("d"))
        self.refused("EISDIR", "write", "d", data=b"x")

    # stat and links
    def test_stat_follows_a_link_inside_and_lstat_does_not(self):
        self.put("target.txt", "abc")
        os.symlink("target.txt", self.at("link"))
        self.assertEqual(self.op("stat", "link")[0]["type"], "file")
        self.assertEqual(self.op("stat", "link")[0]["size"], 3)
        self.assertEqual(self.op("lstat", "link")[0]["type"], "symlink")

    def test_stat_of_a_dangling_link_is_enoent(self):
        os.symlink("nowhere", self.at("dangling"))
        self.refused("ENOENT", "stat", "dangling")
        self.assertEqual(self.op("lstat", "dangling")[0]["type"], "symlink")

    def test_an_absolute_link_naming_a_place_inside_is_followed(self):
        self.put("sub/f.txt", "inside")
        os.symlink(self.at("sub"), self.at("abs"))
        _, sink = self.op("read", "abs/f.txt")
        self.assertEqual(sink.data, b"inside")

    def test_a_relative_link_out_is_refused(self):
        os.symlink("../outside", self.at("out"))
        self.assertEqual(self.refused("EXDEV", "read", "out/secret")["detail"], OUTSIDE)
        self.refused("EXDEV", "stat", "out")

    def test_an_absolute_link_out_is_refused(self):
        os.symlink(self.outside, self.at("out"))
        self.refused("EXDEV", "read", "out/secret")
        os.symlink(os.path.join(self.outside, "secret"), self.at("file-out"))
        self.refused("EXDEV", "read", "file-out")

    def test_a_link_in_the_middle_of_a_path_out_is_refused(self):
        os.makedirs(self.at("a/b"))
        os.symlink("../../../outside", self.at("a/b/up"))
        self.refused("EXDEV", "read", "a/b/up/secret")

    def test_dot_dot_past_the_root_is_refused(self):
        os.mkdir(self.at("a"))
        self.refused("EXDEV", "read", "../outside/secret")
        self.refused("EXDEV", "stat", "a/../../outside")

    def test_dot_dot_inside_the_root_resolves(self):
        self.put("a/f.txt", "f")
        os.mkdir(self.at("b"))
        _, sink = self.op("read", "b/../a/f.txt")
        self.assertEqual(sink.data, b"f")

    def test_a_link_loop_is_eloop(self):
        os.symlink("two", self.at("one"))
        os.symlink("one", self.at("two"))
        self.refused("ELOOP", "read", "one")

    def test_a_file_used_as_a_folder_is_enotdir(self):
        self.put("f.txt")
        self.refused("ENOTDIR", "read", "f.txt/inner")

    def test_writes_through_a_link_out_leave_the_outside_alone(self):
        os.symlink(os.path.join(self.outside, "secret"), self.at("file-out"))
        self.refused("EXDEV", "write", "file-out", data=b"pwned")
        with open(os.path.join(self.outside, "secret")) as f:
            self.assertEqual(f.read(), "secret")

    # listings
    def test_readdir_names_each_entry_with_its_kind(self):
        self.put("f.txt")
        os.mkdir(self.at("d"))
        os.symlink("f.txt", self.at("l"))
        os.mkfifo(self.at("p"))
        result, _ = self.op("readdir", ".")
        kinds = {e["name"]: e["type"] for e in result["entries"]}
        self.assertEqual(kinds, {"f.txt": "file", "d": "directory", "l": "symlink", "p": "fifo"})

    def test_list_gives_the_file_trees_types_sizes_and_times(self):
        self.put("f.txt", "12345")
        os.mkdir(self.at("d"))
        os.symlink("f.txt", self.at("l"))
        os.mkfifo(self.at("p"))
        os.utime(self.at("f.txt"), ns=(0, 1_700_000_000_123_456_789))
        result, _ = self.op("list", ".")
        self.assertIsInstance(result, bytes)
        entries = {e["name"]: e for e in json.loads(result)["entries"]}
        self.assertEqual({n: e["type"] for n, e in entries.items()},
                         {"f.txt": "file", "d": "directory", "l": "symlink", "p": "file"})
        self.assertEqual(entries["f.txt"]["size"], 5)
        self.assertEqual(entries["f.txt"]["modifiedAt"], 1_700_000_000_123)

    def test_list_escapes_names_as_json(self):
        self.put('quo"te\\ é')
        entries = json.loads(self.op("list", ".")[0])["entries"]
        self.assertEqual([e["name"] for e in entries], ['quo"te\\ é'])

    def test_a_name_that_is_not_utf8_is_refused_in_listings(self):
        os.close(os.open(os.path.join(self.root.encode(), b"bad\xff"), os.O_CREAT | os.O_WRONLY))
        self.refused("EILSEQ", "list", ".")
        self.refused("EILSEQ", "readdir", ".")

    def test_list_of_a_file_is_enotdir(self):
        self.put("f.txt")
        self.refused("ENOTDIR", "list", "f.txt")

    # mkdir
    def test_mkdir_makes_one_folder_and_refuses_one_that_exists(self):
        self.op("mkdir", "d", "0")
        self.assertTrue(os.path.isdir(self.at("d")))
        self.refused("EEXIST", "mkdir", "d", "0")
        self.refused("ENOENT", "mkdir", "missing/d", "0")
        self.refused("EEXIST", "mkdir", ".", "0")

    def test_mkdir_recursive_makes_the_chain_again_and_again(self):
        self.op("mkdir", "a/b/c", "1")
        self.op("mkdir", "a/b/c", "1")
        self.assertTrue(os.path.isdir(self.at("a/b/c")))

    def test_mkdir_recursive_through_a_file(self):
        self.put("a/f")
        self.refused("ENOTDIR", "mkdir", "a/f/c", "1")
        self.refused("EEXIST", "mkdir", "a/f", "1")

    def test_mkdir_recursive_never_goes_out_through_a_link(self):
        os.symlink(self.outside, self.at("out"))
        self.refused("EXDEV", "mkdir", "out/new", "1")
        self.assertFalse(os.path.exists(os.path.join(self.outside, "new")))

    # rename
    def test_rename_moves_and_replaces_unless_told_not_to(self):
        self.put("a", "A")
        self.put("b", "B")
        self.refused("EEXIST", "rename", "a", self.at("b"), "1")
        self.assertEqual(self.content("b"), "B")
        self.op("rename", "a", self.at("b"), "0")
        self.assertEqual(self.content("b"), "A")
        self.assertFalse(os.path.exists(self.at("a")))

    def test_rename_moves_a_link_not_its_target(self):
        self.put("t", "T")
        os.symlink("t", self.at("l"))
        self.op("rename", "l", self.at("m"), "0")
        self.assertTrue(os.path.islink(self.at("m")))
        self.assertEqual(self.content("t"), "T")

    def test_rename_of_a_folder_refused_across_layers_moves_it_as_mv_does(self):
        # overlayfs answers EXDEV for a folder of a lower layer (a container from a snapshot).
        self.put("old/a.txt", "A")
        self.put("old/sub/b.txt", "B")
        os.symlink("a.txt", self.at("old/link"))
        real = os.rename
        refused = []

        def rename(src, dst, *args, **kwargs):
            if src == "old" and not refused:
                refused.append(src)
                raise OSError(errno.EXDEV, "Invalid cross-device link")
            return real(src, dst, *args, **kwargs)

        with unittest.mock.patch.object(self.ops.os, "rename", rename):
            self.op("rename", "old", self.at("moved"), "0")
        self.assertEqual(refused, ["old"])
        self.assertFalse(os.path.exists(self.at("old")))
        self.assertEqual(self.content("moved/a.txt"), "A")
        self.assertEqual(self.content("moved/sub/b.txt"), "B")
        self.assertEqual(os.readlink(self.at("moved/link")), "a.txt")
        self.assertEqual([n for n in os.listdir(self.root) if ".move-" in n], [])

    def test_rename_of_a_file_refused_across_layers_is_still_exdev(self):
        self.put("f", "F")
        real = os.rename

        def rename(src, dst, *args, **kwargs):
            if src == "f":
                raise OSError(errno.EXDEV, "Invalid cross-device link")
            return real(src, dst, *args, **kwargs)

        with unittest.mock.patch.object(self.ops.os, "rename", rename):
            self.refused("EXDEV", "rename", "f", self.at("g"), "0")
        self.assertEqual(self.content("f"), "F")

    def test_rename_of_the_root_is_einval(self):
        self.put("a")
        self.refused("EINVAL", "rename", ".", self.at("x"), "0")
        self.refused("EINVAL", "rename", "a", self.root, "0")

    # remove
    def test_remove_a_file_and_a_folder_only_when_recursive(self):
        self.put("d/f")
        self.refused("EISDIR", "remove", "d", "0", "0")
        self.op("remove", "d/f", "0", "0")
        self.op("remove", "d", "1", "0")
        self.assertFalse(os.path.exists(self.at("d")))

    def test_remove_of_a_missing_file_is_enoent_unless_forced(self):
        self.refused("ENOENT", "remove", "missing", "0", "0")
        self.assertIsNone(self.op("remove", "missing", "0", "1")[0])

    def test_remove_of_a_link_to_a_folder_removes_the_link_alone(self):
        os.symlink(self.outside, self.at("out"))
        self.op("remove", "out", "1", "0")
        self.assertFalse(os.path.lexists(self.at("out")))
        self.assertTrue(os.path.exists(os.path.join(self.outside, "secret")))

    def test_remove_recursive_never_follows_a_link_inside_the_folder(self):
        os.mkdir(self.at("d"))
        os.symlink(self.outside, self.at("d/out"))
        self.op("remove", "d", "1", "0")
        self.assertTrue(os.path.exists(os.path.join(self.outside, "secret")))

    def test_remove_of_the_root_is_einval(self):
        self.refused("EINVAL", "remove", ".", "1", "0")
        self.assertTrue(os.path.isdir(self.root))

    # save and commit
    def save(self, dest, data, expected=""):
        return self.op("save", ".tmp-save", self.at(dest), expected, data=data)[0]

    def test_save_replaces_the_file_and_leaves_no_temporary(self):
        self.put("s.txt", "old")
        result = self.save("s.txt", b"new")
        self.assertEqual(self.content("s.txt"), "new")
        self.assertEqual(result["etag"], self.ops.etag(os.stat(self.at("s.txt"))))
        self.assertFalse(os.path.exists(self.at(".tmp-save")))

    def test_save_with_the_files_etag_succeeds_and_with_an_old_one_is_estale(self):
        self.put("s.txt", "v1")
        first = self.ops.etag(os.stat(self.at("s.txt")))
        self.save("s.txt", b"v2", first)
        self.assertEqual(self.content("s.txt"), "v2")
        answer = self.refused("ESTALE", "save", ".tmp-save", self.at("s.txt"), first, data=b"v3")
        self.assertEqual(answer["detail"], "The file changed since it was read")
        self.assertEqual(self.content("s.txt"), "v2")
        self.assertFalse(os.path.exists(self.at(".tmp-save")))

    def test_save_that_must_not_exist(self):
        self.save("fresh.txt", b"one", "-")
        self.assertEqual(self.content("fresh.txt"), "one")
        self.refused("EEXIST", "save", ".tmp-save", self.at("fresh.txt"), "-", data=b"two")
        self.assertEqual(self.content("fresh.txt"), "one")

    def test_save_through_a_link_replaces_its_target_and_keeps_the_link(self):
        self.put("target.txt", "old")
        os.symlink("target.txt", self.at("link"))
        self.save("link", b"new")
        self.assertTrue(os.path.islink(self.at("link")))
        self.assertEqual(self.content("target.txt"), "new")

    def test_save_keeps_the_files_mode(self):
        self.put("run.sh", "#!/bin/sh")
        os.chmod(self.at("run.sh"), 0o751)
        self.save("run.sh", b"#!/bin/sh\necho")
        self.assertEqual(stat.S_IMODE(os.stat(self.at("run.sh")).st_mode), 0o751)

    def test_save_onto_a_link_out_writes_nothing_anywhere(self):
        os.symlink(os.path.join(self.outside, "secret"), self.at("file-out"))
        self.refused("EXDEV", "save", ".tmp-save", self.at("file-out"), "", data=b"pwned")
        self.assertFalse(os.path.exists(self.at(".tmp-save")))
        with open(os.path.join(self.outside, "secret")) as f:
            self.assertEqual(f.read(), "secret")

    def test_save_onto_the_root_is_eisdir(self):
        self.refused("EISDIR", "save", ".tmp-save", self.root, "", data=b"x")

    def test_commit_renames_a_written_temporary(self):
        self.put(".tmp-commit", "staged")
        result, _ = self.op("commit", ".tmp-commit", self.at("c.txt"), "-")
        self.assertEqual(self.content("c.txt"), "staged")
        self.assertEqual(result["size"], 6)
        self.assertFalse(os.path.exists(self.at(".tmp-commit")))

    def test_an_unknown_operation_is_einval(self):
        self.assertEqual(self.refused("EINVAL", "chmod", ".")["detail"], "Unknown operation chmod")


class ByWalking(Operations, unittest.TestCase):
    RESOLVE = "walk"

    def test_the_walk_never_calls_openat2(self):
        self.assertFalse(self.ops.use_openat2)
        self.put("a/b.txt")
        self.op("stat", "a/b.txt")
        self.assertFalse(self.ops.use_openat2)


class ByOpenat2(Operations, unittest.TestCase):
    RESOLVE = "openat2"

    def test_openat2_is_used(self):
        self.assertTrue(self.ops.use_openat2)
        self.put("a/b.txt")
        self.op("stat", "a/b.txt")
        self.assertTrue(self.ops.use_openat2)


class Answers(unittest.TestCase):
    """The pure parts: names, kinds, etags and the shapes of answers and errors."""

    def setUp(self):
        self.ops = load("file_operations.py")

    def test_split_drops_empty_and_dot_components(self):
        self.assertEqual(self.ops.split("/a//b/./c/"), ["a", "b", "c"])
        self.assertEqual(self.ops.split("."), [])

    def test_names_of_a_path_beneath_root(self):
        self.ops.root = "/workspace"
        self.assertEqual(self.ops.names_of("/workspace/a/b"), ["a", "b"])
        self.assertEqual(self.ops.names_of("/workspace"), [])
        with self.assertRaises(self.ops.Fail) as caught:
            self.ops.names_of("/etc/passwd")
        self.assertEqual(caught.exception.code, "EXDEV")

    def test_names_of_with_root_slash_takes_every_path(self):
        self.ops.root = "/"
        self.assertEqual(self.ops.names_of("/etc/passwd"), ["etc", "passwd"])

    def test_kind_names_each_file_type(self):
        kinds = {stat.S_IFREG: "file", stat.S_IFDIR: "directory", stat.S_IFLNK: "symlink",
                 stat.S_IFBLK: "blockDevice", stat.S_IFCHR: "characterDevice", stat.S_IFIFO: "fifo",
                 stat.S_IFSOCK: "socket"}
        for mode, name in kinds.items():
            self.assertEqual(self.ops.kind(mode | 0o644), name)

    def test_etag_changes_with_size_and_time(self):
        with tempfile.NamedTemporaryFile() as f:
            before = self.ops.etag(os.stat(f.name))
            f.write(b"more")
            f.flush()
            self.assertNotEqual(self.ops.etag(os.stat(f.name)), before)
            self.assertRegex(before, r'^"[0-9a-f]+-0-[0-9a-f]+"$')

    def test_answer_bytes_encodes_a_dict_compactly_and_passes_bytes_through(self):
        self.assertEqual(self.ops.answer_bytes({"a": 1, "b": [2]}), b'{"a":1,"b":[2]}')
        self.assertEqual(self.ops.answer_bytes(b'{"entries":[]}'), b'{"entries":[]}')

    def test_error_json_names_the_linux_error(self):
        self.assertEqual(self.ops.error_json(self.ops.oserror(errno.ENOENT)),
                         {"code": "ENOENT", "detail": "No such file or directory (os error 2)"})
        self.assertEqual(self.ops.error_json(self.ops.Fail("ESTALE", "changed")), {"code": "ESTALE", "detail": "changed"})
        self.assertEqual(self.ops.error_json(OSError(None, "odd"))["code"], "UNKNOWN")

    def test_check_name_refuses_a_name_that_is_not_utf8(self):
        self.ops.check_name("é")
        with self.assertRaises(self.ops.Fail) as caught:
            self.ops.check_name(os.fsdecode(b"bad\xff"))
        self.assertEqual(caught.exception.code, "EILSEQ")

    def test_a_missing_native_lister_falls_back_to_python(self):
        ops = load("file_operations.py", {"CLOUD_IDE_LIST_LIBRARY": "/nonexistent/list-dir.so"})
        self.assertIsNone(ops.load_native_lister())


if __name__ == "__main__":
    unittest.main()
