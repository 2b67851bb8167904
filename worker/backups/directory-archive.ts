/**
 * The container's side of a backup: `tar` compressed with `zstd` on stdout,
 * and a restore in two steps, so nothing changes before the archive is known
 * good: extract into a staging folder beside the targets (the Durable Object
 * hashes the stream meanwhile), then, once size and SHA-256 matched, swap the
 * staged folders in. See README "Workspaces that last" for what is kept.
 */
import { ErrorCode } from "../../protocol/errors";
import { AppError, describe } from "../errors";
import { SHELL_ENV, WORKSPACE_ROOT } from "../sandbox/environment";
import type { Sandbox, SandboxProcess } from "../sandbox/sandbox";

/** The user's own files: the workspace and the user's home (dotfiles, shell history, git config). */
export const BACKUP_DIRS = [WORKSPACE_ROOT, "/root"] as const;

/**
 * Caches that are downloaded again on demand: left out to keep backups small.
 * Anchored at `/` (tar member names have no leading slash).
 */
const EXCLUDED = ["root/.cache", "root/.npm/_cacache"];

/** The scripts' exit when curl failed: the HTTP transfer broke, the archive itself may be fine. */
const TRANSFER_FAILED = 7;

/** On the root filesystem, beside /workspace and /root, so the swap is a rename on one filesystem. */
const STAGE = "/.cloud-ide-restore";

/**
 * GNU tar in POSIX (pax) format: mtimes to the nanosecond, numeric owners,
 * hard links and symlinks as such, no other filesystems (a mount point
 * becomes an empty folder). Sockets are skipped by tar; exit 1 ("file changed
 * as we read it") is a warning, not a failure: terminals may be writing.
 */
const BACKUP_SCRIPT = `set -u
url=$1; shift
status=$(mktemp)
dirs=""
for d in "$@"; do [ -d "/$d" ] && dirs="$dirs $d"; done
send() { if [ -n "$url" ]; then curl -sS --fail -X PUT -T - -H 'Expect:' -H 'Content-Type: application/zstd' "$url"; else cat; fi; }
{ tar -C / --format=posix --numeric-owner --one-file-system --anchored ${EXCLUDED.map((p) => `--exclude=${p}`).join(" ")} \\
    --warning=no-file-changed --warning=no-file-removed --warning=no-file-ignored -cf - $dirs; echo $? >"$status"; } \\
  | zstd -q -3 -T0 -c | send
st=("\${PIPESTATUS[@]}")
t=$(cat "$status"); rm -f "$status"
[ "\${st[2]}" -eq 0 ] || { echo "the transfer failed (curl exited with \${st[2]})" >&2; exit ${TRANSFER_FAILED}; }
[ "\${st[1]}" -eq 0 ] || { echo "zstd exited with \${st[1]}" >&2; exit 2; }
[ "$t" -le 1 ] || exit "$t"
exit 0`;

/**
 * stdin (the archive) into the staging folder, owners and modes as saved.
 * What a backup does not keep is dropped here: FIFOs, devices and sockets,
 * and the setuid and setgid bits.
 */
const EXTRACT_SCRIPT = `set -u
url=$1
stage=${STAGE}
rm -rf "$stage" "$stage".old-*
mkdir -m 700 "$stage"
receive() { if [ -n "$url" ]; then curl -sS --fail "$url"; else cat; fi; }
receive | zstd -q -d -c | tar -C "$stage" -x --numeric-owner --same-owner --same-permissions -f -
st=("\${PIPESTATUS[@]}")
if [ "\${st[1]}" -ne 0 ] || [ "\${st[2]}" -ne 0 ]; then rm -rf "$stage"; exit 3; fi
if [ "\${st[0]}" -ne 0 ]; then rm -rf "$stage"; echo "the transfer failed (curl exited with \${st[0]})" >&2; exit ${TRANSFER_FAILED}; fi
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

/** The archive's way between the container and this object: over HTTP (a transfer's URL) or the exec's stdio. */
export type ArchiveVia = { url: string } | "exec";

/**
 * `tar | zstd` of `dirs`: to the transfer's URL (curl PUTs it), or on stdout
 * (then `stream` is the exec's stdout). `finished()` rejects when tar, zstd
 * or curl failed (the upload is then aborted).
 */
export async function startArchive(
  sandbox: Sandbox,
  dirs: readonly string[],
  via: ArchiveVia,
  quick?: Pick<Sandbox, "run">,
): Promise<{ stdout: ReadableStream<Uint8Array> | null; exitCode: Promise<number>; failure: () => Promise<string> }> {
  const url = via === "exec" ? "" : via.url;
  if (url && quick) {
    // Over HTTP the script needs no stdio of ours: the resident agent runs it, an exec's round trip fewer.
    const result = quick.run(["bash", "-c", BACKUP_SCRIPT, "backup", url, ...members(dirs)], { wake: false });
    result.catch(() => {});
    return {
      stdout: null,
      exitCode: result.then((done) => done.exitCode),
      failure: async () => {
        const done = await result.catch((error: unknown) => ({ exitCode: -1, stderr: describe(error) }));
        return archiveFailure(url, done.exitCode, done.stderr);
      },
    };
  }
  const proc = await sandbox.exec(["bash", "-c", BACKUP_SCRIPT, "backup", url, ...members(dirs)], {
    stdout: via === "exec" ? "pipe" : "ignore",
    stderr: "pipe",
    wake: false,
  });
  if (via === "exec" && !proc.stdout) throw new Error("tar has no stdout");
  const stderr = readText(proc);
  return {
    stdout: via === "exec" ? (proc.stdout as ReadableStream<Uint8Array>) : null,
    exitCode: proc.exitCode,
    failure: async () => archiveFailure(url, await proc.exitCode, await stderr),
  };
}

/** What failed, named by the pipeline that ran (curl too when it PUT the archive); the script's stderr says which part. */
function archiveFailure(url: string, exitCode: number, stderr: string): string {
  return `${url ? "tar | zstd | curl" : "tar | zstd"} exited with ${exitCode}: ${stderr.trim().slice(0, 300)}`;
}

/**
 * Unpacks the archive into the staging folder: from the transfer's URL
 * (curl GETs it) or from `stdin`. Throws NO_SPACE when the disk has no room
 * for a second copy, BACKUP_INTEGRITY when it does not unpack,
 * BACKUP_UNAVAILABLE when the HTTP transfer broke; either way the staging
 * folder is gone and nothing else changed.
 */
export async function extractToStaging(
  sandbox: Sandbox,
  source: { url: string } | { stdin: ReadableStream<Uint8Array> },
  quick?: Pick<Sandbox, "run">,
): Promise<void> {
  const { code, stderr } = await runExtract(sandbox, source, quick);
  if (code === 0) return;
  if (/no space left/i.test(stderr)) {
    throw new AppError(
      ErrorCode.NO_SPACE,
      "The disk has no room to unpack the backup beside your files (a restore needs space for both copies). Nothing was changed; free some space and try again.",
    );
  }
  if (code === TRANSFER_FAILED) {
    throw new AppError(
      ErrorCode.BACKUP_UNAVAILABLE,
      `The backup could not be carried into the container (${stderr.trim().slice(0, 300)}). Nothing was changed; try again.`,
    );
  }
  throw new AppError(
    ErrorCode.BACKUP_INTEGRITY,
    `The backup does not unpack (${stderr.trim().slice(0, 300) || `exit ${code}`}). Nothing was changed.`,
  );
}

/** The extract script's exit code and stderr; over HTTP through the resident agent when there is one (no stdio of ours needed). */
async function runExtract(
  sandbox: Sandbox,
  source: { url: string } | { stdin: ReadableStream<Uint8Array> },
  quick: Pick<Sandbox, "run"> | undefined,
): Promise<{ code: number; stderr: string }> {
  const viaHttp = "url" in source;
  if (viaHttp && quick) {
    const done = await quick.run(["bash", "-c", EXTRACT_SCRIPT, "extract", source.url], { wake: false });
    return { code: done.exitCode, stderr: done.stderr };
  }
  const proc = await sandbox.exec(["bash", "-c", EXTRACT_SCRIPT, "extract", viaHttp ? source.url : ""], {
    ...(viaHttp ? {} : { stdin: source.stdin }),
    stdout: "ignore",
    stderr: "pipe",
    wake: false,
  });
  const [code, stderr] = await Promise.all([proc.exitCode, readText(proc)]);
  return { code, stderr };
}

/** Removes what an extraction left (after a refused check). */
export async function discardStaging(sandbox: Pick<Sandbox, "run">): Promise<void> {
  await sandbox.run(["rm", "-rf", STAGE], { wake: false });
}

/** Swaps the staged folders in place of `dirs`. */
export async function swapStaged(sandbox: Pick<Sandbox, "run">, dirs: readonly string[]): Promise<void> {
  const result = await sandbox.run(["bash", "-c", SWAP_SCRIPT, "swap", ...members(dirs)], { wake: false });
  if (result.exitCode !== 0) {
    throw new Error(`replacing the files failed (exit ${result.exitCode}): ${result.stderr.trim().slice(0, 300)}`);
  }
}

/** Tells each terminal what happened and starts its shell again in the restored tree. */
export async function restartTerminals(sandbox: Pick<Sandbox, "run">, message: string): Promise<void> {
  // The message goes through printf's %s, never as a format: no quoting games.
  const safe = message.replace(/["'\\$`]/g, "");
  await sandbox.run(["bash", "-c", RESTART_TERMINALS_SCRIPT, "restart", safe], { env: SHELL_ENV, wake: false });
}

function readText(proc: SandboxProcess): Promise<string> {
  return proc.stderr ? new Response(proc.stderr).text() : Promise.resolve("");
}
