#!/bin/sh
# Stands between wrangler/workerd/the vite plugin and `docker`
# (`WRANGLER_DOCKER_BIN`, always set by the set-up; see README "Local platform").
#   build: without buildx (CLOUD_IDE_DOCKER_NO_BUILDX=1) drops the buildx-only
#          flags `--load` and `--provenance=false`; passes BASE_IMAGE when the
#          set-up built a local base image.
#   pull:  succeeds without the registry when the image is already present.
#   ps:    the vite plugin's clean-up on exit lists containers by image
#          (`--filter ancestor=TAG`) and removes them. Every dev server on this
#          machine runs the same cached image, so that would remove the
#          containers of every other dev server and test run, and it would
#          leave this one's network sidecars behind. It lists this dev
#          server's containers instead, sidecars included, by name.
real=${CLOUD_IDE_REAL_DOCKER:-docker}
cmd=$1
[ $# -gt 0 ] && shift
case $cmd in
build)
  if [ "${CLOUD_IDE_DOCKER_NO_BUILDX:-}" = 1 ]; then
    n=$#
    while [ "$n" -gt 0 ]; do
      a=$1; shift; n=$((n - 1))
      case $a in
      --load | --provenance=false) ;;
      *) set -- "$@" "$a" ;;
      esac
    done
  fi
  if [ -n "${CLOUD_IDE_BASE_IMAGE:-}" ]; then
    set -- --build-arg "BASE_IMAGE=$CLOUD_IDE_BASE_IMAGE" "$@"
  fi
  exec "$real" build "$@"
  ;;
pull)
  for image; do :; done
  if [ -n "${image:-}" ] && "$real" image inspect "$image" >/dev/null 2>&1; then
    exit 0
  fi
  exec "$real" pull "$@"
  ;;
ps)
  if [ -n "${CLOUD_IDE_WORKER_NAME:-}" ]; then
    n=$#
    while [ "$n" -gt 0 ]; do
      a=$1; shift; n=$((n - 1))
      if [ "$a" = "--filter" ] && [ "$n" -gt 0 ] && [ "${1#ancestor=}" != "$1" ]; then
        shift; n=$((n - 1))
        set -- "$@" --filter "name=^/workerd-${CLOUD_IDE_WORKER_NAME}-[A-Z]"
      else
        set -- "$@" "$a"
      fi
    done
  fi
  exec "$real" ps "$@"
  ;;
*)
  exec "$real" "$cmd" "$@"
  ;;
esac
