# Login shell defaults for the IDE's terminals.
export TERM="${TERM:-xterm-256color}"
export EDITOR=nano
export LANG=C.UTF-8
