"""file_helper.py as the Worker runs it, one process per operation: its answers on stdout, its failures
as one JSON line on stderr with exit status 1."""
import io
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
import unittest

from programs import command


class Helper(unittest.TestCase):
    def setUp(self):
        scratch = tempfile.mkdtemp(prefix="cloud-ide-helper-")
        self.addCleanup(shutil.rmtree, scratch)
        self.root = os.path.join(scratch, "workspace")
        os.makedirs(os.path.join(self.root, "src"))
        with open(os.path.join(self.root, "src", "a.txt"), "w") as f:
            f.write("hello")
        os.symlink(scratch, os.path.join(self.root, "out"))

    def run_helper(self, op, *args, stdin=b"", root=None):
        paths = [os.path.join(self.root, a) if i == 0 else a for i, a in enumerate(args)]
        return subprocess.run(command("file_helper.py", op, self.root if root is None else root, *paths),
                              input=stdin, capture_output=True)

    def test_read_writes_the_open_mark_then_the_bytes(self):
        run = self.run_helper("read", "src/a.txt")
        self.assertEqual((run.returncode, run.stdout, run.stderr), (0, b"\x01hello", b""))

    def test_read_with_stat_writes_a_stat_line_first(self):
        run = self.run_helper("read", "src/a.txt", "stat")
        mark, rest = run.stdout[:1], run.stdout[1:]
        line, content = rest.split(b"\n", 1)
        self.assertEqual(mark, b"\x01")
        self.assertEqual(json.loads(line)["size"], 5)
        self.assertEqual(content, b"hello")

    def test_a_failure_is_one_json_line_on_stderr_and_exit_1(self):
        run = self.run_helper("read", "src/missing")
        self.assertEqual(run.returncode, 1)
        self.assertEqual(run.stdout, b"")
        self.assertEqual(json.loads(run.stderr), {"code": "ENOENT", "detail": "No such file or directory (os error 2)"})

    def test_a_link_out_is_refused_with_exdev(self):
        run = self.run_helper("read", "out/workspace/src/a.txt")
        self.assertEqual(json.loads(run.stderr)["code"], "EXDEV")

    def test_write_takes_stdin_and_answers_the_stat(self):
        run = self.run_helper("write", "new.txt", stdin=b"from stdin")
        self.assertEqual(json.loads(run.stdout)["size"], 10)
        with open(os.path.join(self.root, "new.txt")) as f:
            self.assertEqual(f.read(), "from stdin")

    def test_an_empty_root_is_slash(self):
        run = self.run_helper("stat", "src/a.txt", root="")
        self.assertEqual(json.loads(run.stdout)["type"], "file")

    def test_archive_is_a_tar_gz_of_the_folder_under_its_own_name(self):
        run = self.run_helper("archive", "src")
        self.assertEqual(run.stdout[:1], b"\x01")
        with tarfile.open(fileobj=io.BytesIO(run.stdout[1:]), mode="r:gz") as tar:
            self.assertEqual(sorted(tar.getnames()), ["src", "src/a.txt"])

    def test_archive_of_the_root_names_it_by_its_own_name(self):
        run = self.run_helper("archive", ".")
        with tarfile.open(fileobj=io.BytesIO(run.stdout[1:]), mode="r:gz") as tar:
            names = tar.getnames()
            link = tar.getmember("workspace/out")
        self.assertIn("workspace/src/a.txt", names)
        self.assertTrue(link.issym())  # the link archived as a link, never followed
        self.assertFalse(any(name.startswith("workspace/out/") for name in names))

    def test_archive_of_a_file_is_enotdir(self):
        run = self.run_helper("archive", "src/a.txt")
        self.assertEqual(json.loads(run.stderr)["code"], "ENOTDIR")


if __name__ == "__main__":
    unittest.main()
