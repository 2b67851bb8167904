"""The container's Python as the Worker runs it (worker/resident/file-operations.ts): `python3 -c`
runs one text, so file_operations.py (and loopback_forwarder.py) go in place of a program's
`from file_operations import` (`from loopback_forwarder import`) line."""
import os
import re
import sys
import types
from unittest import mock

SANDBOX = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMPORT_LINE = re.compile(r"^from (file_operations|loopback_forwarder) import [^\n]*$", re.M)


def source(name):
    with open(os.path.join(SANDBOX, name), encoding="utf-8") as f:
        return f.read()


def program(name):
    """The text the Worker hands `python3 -c` for sandbox/NAME."""
    text = source(name)
    if name in ("file_operations.py", "loopback_forwarder.py"):
        return text
    return IMPORT_LINE.sub(lambda m: source(m.group(1) + ".py"), text)


def load(name, env=None):
    """NAME's program run as a module (so its main() does not run), with ENV added while it loads."""
    module = types.ModuleType("cloud_ide_" + name[:-3])
    with mock.patch.dict(os.environ, env or {}):
        exec(compile(program(name), os.path.join(SANDBOX, name), "exec"), module.__dict__)
    return module


def command(name, *args):
    """The argv that runs sandbox/NAME as the Worker does."""
    return [sys.executable, "-c", program(name), *args]
