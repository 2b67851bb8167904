"""The container's Python as the Worker runs it (worker/resident/file-operations.ts): `python3 -c`
runs one text, so file_operations.py goes in place of a program's `from file_operations import` line."""
import os
import re
import sys
import types
from unittest import mock

SANDBOX = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMPORT_LINE = re.compile(r"^from file_operations import [^\n]*$", re.M)


def source(name):
    with open(os.path.join(SANDBOX, name), encoding="utf-8") as f:
        return f.read()


def program(name):
    """The text the Worker hands `python3 -c` for sandbox/NAME."""
    text = source(name)
    if name == "file_operations.py":
        return text
    joined, count = IMPORT_LINE.subn(lambda _: source("file_operations.py"), text, count=1)
    return joined if count else text


def load(name, env=None):
    """NAME's program run as a module (so its main() does not run), with ENV added while it loads."""
    module = types.ModuleType("cloud_ide_" + name[:-3])
    with mock.patch.dict(os.environ, env or {}):
        exec(compile(program(name), os.path.join(SANDBOX, name), "exec"), module.__dict__)
    return module


def command(name, *args):
    """The argv that runs sandbox/NAME as the Worker does."""
    return [sys.executable, "-c", program(name), *args]
