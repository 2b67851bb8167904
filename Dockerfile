# The sandbox image: one per workspace, driven by the Workspace Durable Object
# through `ctx.container.exec()`. Production builds FROM the public Node image;
# the local set-up passes BASE_IMAGE when Docker Hub cannot be reached.
ARG BASE_IMAGE=node:24-trixie-slim
FROM ${BASE_IMAGE}

# Install only what the base lacks (the local base already has all of it).
# openssh-server: the ssh tunnel starts sshd on demand (worker/ssh/); its
# package's own host keys are removed, each workspace has its own.
RUN set -eu; \
    want="ca-certificates procps tmux git curl less nano vim-tiny inotify-tools python3 xz-utils openssh-client openssh-server rsync ripgrep zstd gcc g++ make libc6-dev"; \
    missing=""; \
    for p in $want; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done; \
    if [ -n "$missing" ]; then \
      apt-get update && apt-get install -y --no-install-recommends $missing && rm -rf /var/lib/apt/lists/*; \
    fi; \
    rm -f /etc/ssh/ssh_host_*

# Language servers (TypeScript and JavaScript, Python, CSS, HTML, JSON), in
# /opt/language-servers rather than /workspace, so they are part of the
# image and never of a user's files. Their own layer, before the template, so
# a change of the template does not reinstall them. Source maps are dropped
# (8 MB nobody reads here).
COPY sandbox/language-servers/package.json sandbox/language-servers/package-lock.json /opt/language-servers/
RUN cd /opt/language-servers && npm ci --omit=dev --no-audit --no-fund \
    && find node_modules -name '*.map' -delete && npm cache clean --force

COPY sandbox/tmux.conf /etc/tmux.conf
# tmux.conf's default-shell: a pane's program is the first the OOM killer takes.
COPY sandbox/pane-shell.sh /opt/cloud-ide/pane-shell
COPY sandbox/profile.sh /etc/profile.d/cloud-ide.sh
COPY sandbox/bashrc /root/.bashrc

# The default template (Vite + React + TypeScript), dependencies installed,
# right in /workspace: a new workspace runs `npm run dev` at once, its first
# start copies nothing (copying node_modules took half a second), and its
# snapshots hold only what the user changed. An "empty" workspace clears it on
# its first start (worker/templates.ts).
WORKDIR /workspace
COPY sandbox/templates/vite-react/ /workspace/
# `npm install` (it follows package-lock.json) rather than `npm ci`: Vite lists an
# optional Windows-only package that some registries lack, and `npm ci` then
# refuses a lock file without it.
RUN npm install --no-audit --no-fund && npm cache clean --force
# Clients trust the interception CA of the network policy (sandbox/network.sh,
# worker/network/ca-trust.ts); Node's file exists empty until there is one.
COPY sandbox/network.sh /etc/profile.d/cloud-ide-network.sh
RUN mkdir -p /etc/cloud-ide && touch /etc/cloud-ide/egress-ca.crt
ENV NODE_EXTRA_CA_CERTS=/etc/cloud-ide/egress-ca.crt \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
# The file tree's folder listing in C (sandbox/list-dir.c), a third of the
# Python's CPU; the file operations list in Python where an image lacks it.
# The compiler stays: native npm modules and Python extensions build with it.
COPY sandbox/list-dir.c /opt/cloud-ide/list-dir.c
RUN gcc -O2 -Wall -Werror -shared -fPIC -o /opt/cloud-ide/list-dir.so /opt/cloud-ide/list-dir.c
# The image's own copy of the user's folders, listed with their stats and
# hashes: a backup puts what is still exactly that copy in its last frames,
# and a wake on an image with the same list skips them (sandbox/backup-base.py,
# README "Workspaces that last"). The last step: nothing after it may change
# /workspace or /root (a wake checks the folders against the list anyway).
COPY sandbox/backup-base.py /opt/cloud-ide/backup-base.py
RUN python3 /opt/cloud-ide/backup-base.py manifest
# exec() needs a running container; the workspace itself is driven by exec.
CMD ["sleep", "infinity"]
