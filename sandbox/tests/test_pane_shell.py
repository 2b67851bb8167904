"""pane-shell.sh, tmux's default-shell in the image (sandbox/tmux.conf): each pane's program raises its own
OOM score before it starts, so out of memory the kernel kills it rather than the tmux server."""
import os
import subprocess
import unittest

SANDBOX = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PANE_SHELL = os.path.join(SANDBOX, "pane-shell.sh")


def run(*args):
    env = {k: v for k, v in os.environ.items() if k != "SHELL"}
    return subprocess.run([PANE_SHELL, *args], capture_output=True, text=True, env=env, timeout=30)


class PaneShell(unittest.TestCase):
    def test_tmux_conf_starts_panes_through_it_where_the_image_installs_it(self):
        with open(os.path.join(SANDBOX, "tmux.conf"), encoding="utf-8") as f:
            self.assertIn("set -g default-shell /opt/cloud-ide/pane-shell\n", f.read())
        with open(os.path.join(os.path.dirname(SANDBOX), "Dockerfile"), encoding="utf-8") as f:
            self.assertIn("COPY sandbox/pane-shell.sh /opt/cloud-ide/pane-shell\n", f.read())
        self.assertTrue(os.access(PANE_SHELL, os.X_OK), "pane-shell.sh must be executable (tmux execs it)")

    def test_a_command_runs_in_bash_with_a_raised_score_and_its_exit_status(self):
        # As tmux runs a pane's command: default-shell -c COMMAND.
        done = run("-c", 'echo "$(cat /proc/self/oom_score_adj) $SHELL $BASH_VERSION"; exit 7')
        score, shell, version = done.stdout.split(" ", 2)
        self.assertEqual((score, shell, done.returncode), ("500", "/bin/bash", 7))
        self.assertTrue(version.strip(), "the command ran in bash")

    def test_a_child_inherits_the_raised_score(self):
        done = run("-c", "sh -c 'cat /proc/self/oom_score_adj'")
        self.assertEqual(done.stdout, "500\n")


if __name__ == "__main__":
    unittest.main()
