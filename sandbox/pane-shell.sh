#!/bin/sh
# tmux's default-shell (sandbox/tmux.conf): every pane's program starts through
# it, the person's shell and any command tmux runs in a pane. Out of memory, the
# kernel kills the process with the highest score; a person's program should go
# before the tmux server that holds every terminal. Raising a score needs no
# privilege (lowering the server's needs CAP_SYS_RESOURCE, which Docker's
# default capabilities lack), so the pane's process raises its own, and what it
# starts inherits it.
echo 500 >/proc/self/oom_score_adj 2>/dev/null
# As tmux set it before: root's shell, not this file.
SHELL=/bin/bash
export SHELL
[ $# -gt 0 ] || exec /bin/bash -l
exec /bin/bash "$@"
