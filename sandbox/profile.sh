# Login shell defaults for the IDE's terminals.
export TERM="${TERM:-xterm-256color}"
export EDITOR=nano
export LANG=C.UTF-8
# Dev servers accept the IDE's preview hostnames ({port}-{id}-{token}.DOMAIN)
# with no edits: Vite adds this variable to `server.allowedHosts`. The Workspace
# writes the preview domain here when it starts the container.
if [ -r /etc/cloud-ide/preview-hosts ]; then
  __VITE_ADDITIONAL_SERVER_ALLOWED_HOSTS="$(cat /etc/cloud-ide/preview-hosts)"
  export __VITE_ADDITIONAL_SERVER_ALLOWED_HOSTS
fi
