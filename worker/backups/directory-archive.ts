/**
 * The container's side of a backup: `tar` compressed with `zstd` on stdout,
 * and a restore in two steps, so nothing changes before the archive is known
 * good: extract into a staging folder beside the targets (the Durable Object
 * hashes the stream meanwhile), then, once size and SHA-256 matched, swap the
 * staged folders in. See README "Workspaces that last" for what is kept.
 */
import { ErrorCode } from "../../protocol/errors";
import { AppError } from "../errors";
import { SHELL_ENV, WORKSPACE_ROOT } from "../sandbox/environment";
import type { Sandbox, SandboxProcess } from "../sandbox/sandbox";

/** The user's own files: the workspace and the user's home (dotfiles, shell history, git config). */
export const BACKUP_DIRS = [WORKSPACE_ROOT, "/root"] as const;

/**
 * Caches that are downloaded again on demand: left out to keep backups small.
 * Anchored at `/` (tar member names have no leading slash).
 */
const EXCLUDED = ["root/.cache", "root/.npm/_cacache"];

/** On the root filesystem, beside /workspace and /root, so the swap is a rename on one filesystem. */
const STAGE = "/.cloud-ide-restore";

/**
 * GNU tar in POSIX (pax) format: mtimes to the nanosecond, numeric owners,
 * hard links and symlinks as such, no other filesystems (a mount point
 * becomes an empty folder). Sockets are skipped by tar; exit 1 ("file changed
 * as we read it") is a warning, not a failure: terminals may be writing.
 */
const BACKUP_SCRIPT = `set -u
status=$(mktemp)
dirs=""
for d in "$@"; do [ -d "/$d" ] && dirs="$dirs $d"; done
{ tar -C / --format=posix --numeric-owner --one-file-system --anchored ${EXCLUDED.map((p) => `--exclude=${p}`).join(" ")} \\
    --warning=no-file-changed --warning=no-file-removed --warning=no-file-ignored -cf - $dirs; echo $? >"$status"; } \\
  | zstd -q -3 -T0 -c
z=\${PIPESTATUS[1]}
t=$(cat "$status"); rm -f "$status"
[ "$z" -eq 0 ] || { echo "zstd exited with $z" >&2; exit 2; }
[ "$t" -le 1 ] || exit "$t"
exit 0`;

/**
 * stdin (the archive) into the staging folder, owners and modes as saved.
 * What a backup does not keep is dropped here: FIFOs, devices and sockets,
 * and the setuid and setgid bits.
 */
const EXTRACT_SCRIPT = `set -u -o pipefail
stage=${STAGE}
rm -rf "$stage" "$stage".old-*
mkdir -m 700 "$stage"
if ! zstd -q -d -c | tar -C "$stage" -x --numeric-owner --same-owner --same-permissions -f -; then
  rm -rf "$stage"; exit 3
fi
# Dropping an entry must not change its folder's saved mtime.
find "$stage" \\( -type p -o -type s -o -type b -o -type c \\) -print0 | while IFS= read -r -d '' f; do
  parent=$(dirname "$f"); touch -r "$parent" "$stage.mtime"; rm -f "$f"; touch -r "$stage.mtime" "$parent"
done
rm -f "$stage.mtime"
find "$stage" -perm /6000 -exec chmod ug-s {} +
exit 0`;

/**
 * Swaps each staged folder in with renames. A folder that is part of the
 * image on an overlay filesystem cannot be renamed (EXDEV without
 * redirect_dir, as under local Docker): it is emptied and the staged entries
 * are moved into it instead (still renames, on one filesystem), then given
 * the saved folder's mode, owner and mtime.
 */
const SWAP_SCRIPT = `set -u
stage=${STAGE}
ren() { perl -e 'rename($ARGV[0], $ARGV[1]) or exit 18' "$1" "$2"; }
for d in "$@"; do
  [ -d "$stage/$d" ] || continue
  old="$stage.old-$d"
  # The saved folder's own mtime, before moving changes it.
  touch -r "$stage/$d" "$stage.ref"
  if ren "/$d" "$old" 2>/dev/null; then
    ren "$stage/$d" "/$d" || { ren "$old" "/$d"; echo "could not move the restored /$d in" >&2; exit 4; }
  else
    find "/$d" -mindepth 1 -maxdepth 1 -exec rm -rf {} + || exit 5
    find "$stage/$d" -mindepth 1 -maxdepth 1 -exec mv -t "/$d" {} + || exit 6
    chown --reference="$stage/$d" "/$d"; chmod --reference="$stage/$d" "/$d"
  fi
  touch -r "$stage.ref" "/$d"
done
rm -rf "$stage" "$stage".old-* "$stage.ref"
exit 0`;

/** Every tmux pane starts a new shell in the restored tree, after a line that says why. */
const RESTART_TERMINALS_SCRIPT = `tmux list-panes -a -F '#{pane_id}' 2>/dev/null | while read -r pane; do
  tmux respawn-pane -k -t "$pane" -c ${WORKSPACE_ROOT} "printf '\\\\r\\\\n[%s]\\\\r\\\\n' \\"$1\\"; exec bash -l"
done
exit 0`;

/** Member names for tar: the folders without their leading slash. */
export function members(dirs: readonly string[]): string[] {
  return dirs.map((dir) => dir.replace(/^\/+/, ""));
}

/** The archive on stdout; `finished()` rejects when tar or zstd failed (the upload is then aborted). */
export async function streamArchive(
  sandbox: Sandbox,
  dirs: readonly string[],
): Promise<{ stream: ReadableStream<Uint8Array>; finished: () => Promise<void> }> {
  const proc = await sandbox.exec(["bash", "-c", BACKUP_SCRIPT, "backup", ...members(dirs)], {
    stdout: "pipe",
    stderr: "pipe",
    wake: false,
  });
  if (!proc.stdout) throw new Error("tar has no stdout");
  const stderr = readText(proc);
  return {
    stream: proc.stdout,
    finished: async () => {
      const code = await proc.exitCode;
      if (code !== 0) throw new Error(`tar | zstd exited with ${code}: ${(await stderr).trim().slice(0, 300)}`);
    },
  };
}

/**
 * Unpacks `archive` into the staging folder. Throws NO_SPACE when the disk
 * has no room for a second copy, BACKUP_INTEGRITY when it does not unpack;
 * either way the staging folder is gone and nothing else changed.
 */
export async function extractToStaging(sandbox: Sandbox, archive: ReadableStream<Uint8Array>): Promise<void> {
  const proc = await sandbox.exec(["bash", "-c", EXTRACT_SCRIPT], {
    stdin: archive,
    stdout: "ignore",
    stderr: "pipe",
    wake: false,
  });
  const [code, stderr] = await Promise.all([proc.exitCode, readText(proc)]);
  if (code === 0) return;
  if (/no space left/i.test(stderr)) {
    throw new AppError(
      ErrorCode.NO_SPACE,
      "The disk has no room to unpack the backup beside your files (a restore needs space for both copies). Nothing was changed; free some space and try again.",
    );
  }
  throw new AppError(
    ErrorCode.BACKUP_INTEGRITY,
    `The backup does not unpack (${stderr.trim().slice(0, 300) || `exit ${code}`}). Nothing was changed.`,
  );
}

/** Removes what an extraction left (after a refused check). */
export async function discardStaging(sandbox: Sandbox): Promise<void> {
  await sandbox.run(["rm", "-rf", STAGE], { wake: false });
}

/** Swaps the staged folders in place of `dirs`. */
export async function swapStaged(sandbox: Sandbox, dirs: readonly string[]): Promise<void> {
  const result = await sandbox.run(["bash", "-c", SWAP_SCRIPT, "swap", ...members(dirs)], { wake: false });
  if (result.exitCode !== 0) {
    throw new Error(`replacing the files failed (exit ${result.exitCode}): ${result.stderr.trim().slice(0, 300)}`);
  }
}

/** Tells each terminal what happened and starts its shell again in the restored tree. */
export async function restartTerminals(sandbox: Sandbox, message: string): Promise<void> {
  // The message goes through printf's %s, never as a format: no quoting games.
  const safe = message.replace(/["'\\$`]/g, "");
  await sandbox.run(["bash", "-c", RESTART_TERMINALS_SCRIPT, "restart", safe], { env: SHELL_ENV, wake: false });
}

function readText(proc: SandboxProcess): Promise<string> {
  return proc.stderr ? new Response(proc.stderr).text() : Promise.resolve("");
}
